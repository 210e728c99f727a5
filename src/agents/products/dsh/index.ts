import path from "node:path";
import type { ReaderContext } from "../../stores/types.js";
import type { AgentProduct } from "../product.js";
import { envPathUnlessGiven } from "../kit/locations.js";

// The location is DSH_HOME, as `--dsh-home` takes it; DSH_SESSION_ROOT moves only the sessions.
const location = (env: NodeJS.ProcessEnv, home: string) => env.DSH_HOME || path.join(home, ".dsh");

/** Where DeepSeek Harness sessions are: DSH_SESSION_ROOT, unless the location was given. */
export function dshSessionRoot(ctx: ReaderContext): string {
  return envPathUnlessGiven(ctx, location, "DSH_SESSION_ROOT", path.join(ctx.dir, "sessions"));
}

export const dsh: AgentProduct = {
  id: "dsh",
  label: "DeepSeek Harness",
  executable: "dsh",
  terminal: {
    notStartable:
      "DeepSeek Harness has no interactive terminal session to start (`dsh --profile headless` answers one task and exits; `dsh web` is a browser UI). Continue its sessions in another runtime with --agent",
  },
  store: { location, paths: (ctx) => [dshSessionRoot(ctx)], load: async () => (await import("./store.js")).dshReader },
};
