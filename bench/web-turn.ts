// One huge turn in the web chat, the adapter that keeps each conversation's history: a fresh
// `baton start` with only the web chat, a browser on its WebSocket (the `ws` client, as the page
// speaks), the demo agent streaming 50 MB or 100 MB in 64 KB chunks. Baton's RSS rise while it
// streams and 30 s after its end, and whether the browser got the end of the answer: one that
// reads everything, and a slow one that stops reading for the whole turn.
import WebSocket from "ws";
import { AgentTimings } from "./lib/agent-timing.js";
import { BatonProcess, sleep, until } from "./lib/baton.js";
import { batonConfig, startFakes } from "./lib/fakes.js";
import { figure, type Figure } from "./lib/figure.js";

export interface WebTurnScale {
  /** `demo:stream` sizes, and whether the browser stops reading during the turn. */
  turns: Array<{ size: string; bytes: number; slow: boolean }>;
  /** After the stream's end, memory is watched this long. */
  tailMs: number;
  /** Before the prompt, Baton settles this long (its start-up work done). */
  settleMs: number;
}

const MB = 1024 * 1024;
export const WEB_TURN_FULL: WebTurnScale = {
  turns: [
    { size: "50m", bytes: 50 * MB, slow: false },
    { size: "100m", bytes: 100 * MB, slow: false },
    { size: "100m", bytes: 100 * MB, slow: true },
  ],
  tailMs: 15_000,
  settleMs: 2_000,
};
export const WEB_TURN_TINY: WebTurnScale = { turns: [{ size: "256k", bytes: 256 * 1024, slow: true }], tailMs: 500, settleMs: 200 };

const DEADLINE_MS = 600_000;
const MEMORY_SAMPLE_MS = 100;
/** Baton's own view of its memory (process.memoryUsage through the bench probe), less often: it asks Baton's event loop. */
const HEAP_SAMPLE_MS = 500;
const CHUNK = "64k";
const END_TEXT = "End of stream.";
/** The targets: under +50 MB while streaming, back near idle within 30 s. */
const TARGET_GROWTH_MB = 50;
const TARGET_TAIL_MB = 15;

interface Browser {
  /** The answer's end arrived (live, or in the history a reconnect loads). */
  ended(): boolean;
  /** Times the server dropped the connection (the page then reconnects, as the real one does). */
  dropped(): number;
  pause(): void;
  resume(): void;
  close(): void;
}

function connect(pageUrl: string): WebSocket {
  const url = new URL(pageUrl);
  return new WebSocket(`ws://${url.host}/ws?token=${url.searchParams.get("token")}`);
}

async function openBrowser(pageUrl: string, conversation: string): Promise<Browser> {
  let ended = false;
  let dropped = 0;
  let closing = false;
  let socket: WebSocket;
  const attach = async () => {
    socket = connect(pageUrl);
    await new Promise<void>((resolve, reject) => socket.once("open", () => resolve()).once("error", reject));
    socket.on("message", (data) => {
      // Only the end matters here: the page keeps one bubble per message, the bench none.
      const text = String(data);
      if (!text.includes(END_TEXT)) return;
      const event = JSON.parse(text) as { conversation?: string; message?: { html: string }; messages?: Array<{ html: string }> };
      if (event.conversation !== conversation) return;
      if (event.message?.html.includes(END_TEXT) || event.messages?.some((m) => m.html.includes(END_TEXT))) ended = true;
    });
    socket.once("close", () => {
      if (closing) return;
      dropped++;
      void attach();
    });
    socket.send(JSON.stringify({ type: "hello", browser: "bench-browser-1" }));
    socket.send(JSON.stringify({ type: "open", conversation }));
  };
  await attach();
  const raw = () => (socket as unknown as { _socket: { pause(): void; resume(): void } })._socket;
  return {
    ended: () => ended,
    dropped: () => dropped,
    pause: () => raw().pause(),
    resume: () => raw().resume(),
    close: () => {
      closing = true;
      socket.terminate();
    },
  };
}

export async function benchWebTurn(scale: WebTurnScale): Promise<Figure[]> {
  const out: Figure[] = [];
  for (const turn of scale.turns) out.push(...(await oneTurn(turn, scale)));
  return out;
}

async function oneTurn(turn: WebTurnScale["turns"][number], scale: WebTurnScale): Promise<Figure[]> {
  const fakes = await startFakes({});
  const baton = new BatonProcess({ config: batonConfig(fakes, { web: true }), probe: true });
  let browser: Browser | undefined;
  try {
    const line = await baton.waitForLine(/^Web chat: http/);
    await baton.waitForLine(/^Baton ready/);
    const pageUrl = /(http\S+)/.exec(line.text)![1];
    const conversation = `bench-${turn.size}-${turn.slow ? "slow" : "fast"}`;
    browser = await openBrowser(pageUrl, conversation);
    await sleep(scale.settleMs);
    const timings = new AgentTimings(baton.timingFile);
    const prompt = `demo:stream ${turn.size} ${CHUNK} 0`;
    const first = baton.rssMb();
    let peak = first;
    const sampler = setInterval(() => (peak = Math.max(peak, baton.rssMb())), MEMORY_SAMPLE_MS);
    const { heap, heapSampler } = watchHeap(baton);
    const started = performance.now();
    const page = browser;
    sendPrompt(pageUrl, conversation, prompt);
    if (turn.slow) page.pause();
    await until(() => timings.refresh().streamEnd.get(prompt), "the agent to finish streaming", DEADLINE_MS, 100);
    const streamedMs = performance.now() - started;
    if (turn.slow) page.resume();
    await until(() => page.ended(), "the browser to get the end of the answer", DEADLINE_MS, 50);
    const deliveredMs = performance.now() - started;
    await sleep(scale.tailMs);
    clearInterval(sampler);
    clearInterval(heapSampler);
    const tail = baton.rssMb();
    peak = Math.max(peak, tail);
    const who = turn.slow ? "a browser that stops reading for the whole turn" : "a browser reading as it comes";
    const size = turn.bytes >= MB ? `${Math.round(turn.bytes / MB)} MB` : `${Math.round(turn.bytes / 1024)} KB`;
    const label = `web chat, a ${size} turn${turn.slow ? ", slow browser" : ""}`;
    return [
      figure(
        {
          id: `web-turn-rss-${turn.size}${turn.slow ? "-slow" : ""}`,
          label: `${label}: Baton's RSS growth`,
          unit: "MB",
          definition: `peak RSS (every ${MEMORY_SAMPLE_MS} ms) minus RSS before the prompt (${first.toFixed(0)} MB), the agent streaming ${size} in 64 KB chunks to ${who} (streamed in ${(streamedMs / 1000).toFixed(1)} s, the end in the browser at ${(deliveredMs / 1000).toFixed(1)} s; dropped by the server ${page.dropped()} times; peaks: JS heap used ${heap.used.toFixed(0)} MB, external ${heap.external.toFixed(0)} MB, of which array buffers ${heap.buffers.toFixed(0)} MB)`,
        },
        [peak - first],
        { on: "median", below: TARGET_GROWTH_MB, text: `< ${TARGET_GROWTH_MB} MB` },
      ),
      figure(
        {
          id: `web-turn-tail-${turn.size}${turn.slow ? "-slow" : ""}`,
          label: `${label}: RSS ${scale.tailMs / 1000} s after`,
          unit: "MB",
          definition: `RSS ${scale.tailMs / 1000} s after the browser got the answer's end, minus RSS before the prompt`,
        },
        [tail - first],
        { on: "median", below: TARGET_TAIL_MB, text: `< ${TARGET_TAIL_MB} MB` },
      ),
    ];
  } catch (error) {
    throw new Error(`${(error as Error).message}\n--- baton output (tail) ---\n${baton.output().slice(-3000)}`);
  } finally {
    browser?.close();
    await baton.stop();
    await fakes.close();
  }
}

/** Peaks of Baton's own view of its memory (process.memoryUsage through the bench probe), MB, until the sampler is cleared. */
function watchHeap(baton: BatonProcess): { heap: { used: number; external: number; buffers: number }; heapSampler: NodeJS.Timeout } {
  const heap = { used: 0, external: 0, buffers: 0 };
  const heapSampler = setInterval(() => {
    void baton.probe<NodeJS.MemoryUsage>("memory").then(
      (m) => {
        heap.used = Math.max(heap.used, m.heapUsed / MB);
        heap.external = Math.max(heap.external, m.external / MB);
        heap.buffers = Math.max(heap.buffers, m.arrayBuffers / MB);
      },
      () => undefined,
    );
  }, HEAP_SAMPLE_MS);
  return { heap, heapSampler };
}

/** The prompt from a second tab: the measured browser's socket may be paused. */
function sendPrompt(pageUrl: string, conversation: string, text: string): void {
  const socket = connect(pageUrl);
  socket.once("open", () => {
    socket.send(JSON.stringify({ type: "hello", browser: "bench-browser-2" }));
    socket.send(JSON.stringify({ type: "send", conversation, text }));
    // Gone once it has asked: only the measured browser receives the turn.
    setTimeout(() => socket.terminate(), 500);
  });
}
