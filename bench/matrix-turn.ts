// One huge turn in a Matrix room, the other adapter that keeps history (matrix-js-sdk keeps the
// room's timeline in memory): a fresh `baton start` with only Matrix on the fake homeserver, a
// person's message in an unencrypted room, the demo agent streaming 50 MB or 100 MB in 64 KB
// chunks. Baton's RSS rise while it streams and 30 s after the end reached the room.
import { parse, stringify } from "yaml";
import { createRoom, join, sendEvent } from "../test/fakes/matrix/rooms.js";
import { AgentTimings } from "./lib/agent-timing.js";
import { BatonProcess, sleep, until } from "./lib/baton.js";
import { batonConfig, startFakes } from "./lib/fakes.js";
import { figure, type Figure } from "./lib/figure.js";

export interface MatrixTurnScale {
  turns: Array<{ size: string; bytes: number }>;
  tailMs: number;
  settleMs: number;
}

const MB = 1024 * 1024;
export const MATRIX_TURN_FULL: MatrixTurnScale = {
  turns: [
    { size: "50m", bytes: 50 * MB },
    { size: "100m", bytes: 100 * MB },
  ],
  tailMs: 15_000,
  settleMs: 2_000,
};
export const MATRIX_TURN_TINY: MatrixTurnScale = { turns: [{ size: "256k", bytes: 256 * 1024 }], tailMs: 500, settleMs: 200 };

const DEADLINE_MS = 600_000;
const START_MS = 60_000;
const MEMORY_SAMPLE_MS = 100;
const POLL_MS = 100;
/** The targets: under +50 MB while streaming, back near idle within 30 s. */
const TARGET_GROWTH_MB = 50;
const TARGET_TAIL_MB = 15;

export async function benchMatrixTurn(scale: MatrixTurnScale): Promise<Figure[]> {
  const out: Figure[] = [];
  for (const turn of scale.turns) out.push(...(await oneTurn(turn, scale)));
  return out;
}

async function oneTurn(turn: MatrixTurnScale["turns"][number], scale: MatrixTurnScale): Promise<Figure[]> {
  const fakes = await startFakes({ matrix: true });
  const { server, userId: bot } = fakes.matrix!;
  const person = server.register("alice", undefined, "Alice").userId;
  const config = parse(batonConfig(fakes)) as { access: { allow: string[] } };
  config.access.allow.push(`matrix:${person}`);
  const baton = new BatonProcess({ config: stringify(config) });
  try {
    await baton.waitForLine(/^Baton ready/, START_MS);
    const room = createRoom(server.state, person, { invite: [bot] });
    join(server.state, room, bot);
    const botSaid = (pattern: RegExp) => room.timeline.some((s) => s.event.sender === bot && pattern.test(JSON.stringify(s.event.content)));
    sendEvent(server.state, room, person, "m.room.message", { msgtype: "m.text", body: "hello" });
    await until(() => botSaid(/you said/), "the first answer in the room", START_MS, POLL_MS);
    await sleep(scale.settleMs);
    const timings = new AgentTimings(baton.timingFile);
    const prompt = `demo:stream ${turn.size} 64k 0`;
    const first = baton.rssMb();
    let peak = first;
    const sampler = setInterval(() => (peak = Math.max(peak, baton.rssMb())), MEMORY_SAMPLE_MS);
    const started = performance.now();
    sendEvent(server.state, room, person, "m.room.message", { msgtype: "m.text", body: prompt });
    await until(() => timings.refresh().streamEnd.get(prompt), "the agent to finish streaming", DEADLINE_MS, POLL_MS);
    const streamedMs = performance.now() - started;
    await until(() => botSaid(/End of stream/), "the answer's end in the room", DEADLINE_MS, POLL_MS);
    const deliveredMs = performance.now() - started;
    await sleep(scale.tailMs);
    clearInterval(sampler);
    const tail = baton.rssMb();
    peak = Math.max(peak, tail);
    const size = turn.bytes >= MB ? `${Math.round(turn.bytes / MB)} MB` : `${Math.round(turn.bytes / 1024)} KB`;
    const events = room.timeline.filter((s) => s.event.sender === bot).length;
    return [
      figure(
        {
          id: `matrix-turn-rss-${turn.size}`,
          label: `Matrix, a ${size} turn: Baton's RSS growth`,
          unit: "MB",
          definition: `peak RSS (every ${MEMORY_SAMPLE_MS} ms) minus RSS before the prompt (${first.toFixed(0)} MB), the agent streaming ${size} in 64 KB chunks into a room on the fake homeserver (streamed in ${(streamedMs / 1000).toFixed(1)} s, the end in the room at ${(deliveredMs / 1000).toFixed(1)} s; ${events} events of the bot's)`,
        },
        [peak - first],
        { on: "median", below: TARGET_GROWTH_MB, text: `< ${TARGET_GROWTH_MB} MB` },
      ),
      figure(
        {
          id: `matrix-turn-tail-${turn.size}`,
          label: `Matrix, a ${size} turn: RSS ${scale.tailMs / 1000} s after`,
          unit: "MB",
          definition: `RSS ${scale.tailMs / 1000} s after the answer's end reached the room, minus RSS before the prompt`,
        },
        [tail - first],
        { on: "median", below: TARGET_TAIL_MB, text: `< ${TARGET_TAIL_MB} MB` },
      ),
    ];
  } catch (error) {
    throw new Error(`${(error as Error).message}\n--- baton output (tail) ---\n${baton.output().slice(-3000)}`);
  } finally {
    await baton.stop();
    await fakes.close();
  }
}
