// The bench's suites at full scale and at the toy scale its own test runs.
import type { Figure } from "./lib/figure.js";
import { benchInbound, INBOUND_FULL, INBOUND_TINY } from "./inbound.js";
import { benchReplay, REPLAY_FULL, REPLAY_TINY } from "./replay.js";

export type Scale = "full" | "tiny";

export interface Suite {
  name: string;
  run(): Promise<Figure[]>;
}

export function benchSuites(scale: Scale): Suite[] {
  const tiny = scale === "tiny";
  return [
    { name: "registry replay", run: () => benchReplay(tiny ? REPLAY_TINY : REPLAY_FULL) },
    { name: "inbound and round trip", run: () => benchInbound(tiny ? INBOUND_TINY : INBOUND_FULL) },
  ];
}
