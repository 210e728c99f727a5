// What the demo agent does for `npm run bench`: it reports when each session/prompt line reached
// its stdin and when it wrote the first chunk of its answer (so a benchmark can tell Baton's time
// from the agent's), and it has two prompts that shape load: `demo:quiet` answers nothing, and
// `demo:stream BYTES [CHUNK [INTERVAL_MS]]` streams that much text without holding it in memory.
import { appendFileSync } from "node:fs";
import { monotonicMs } from "../../kernel/clock.js";

/** Where timing lines go: set by the benchmark in Baton's environment, which agents inherit. */
export const TIMING_FILE_ENV = "BATON_DEMO_TIMING_FILE";

export interface TimingLine {
  /** `in`: the session/prompt line reached stdin; `out`: the first answer chunk was written; `end`: a `demo:stream` answer was all written. */
  event: "in" | "out" | "end";
  /** The prompt's text: how the benchmark matches a line to the message it sent. */
  text: string;
  /** monotonicMs() in this process. */
  at: number;
  pid: number;
}

export class TimingReporter {
  private pending = "";

  constructor(private readonly file: string) {}

  /** Watches raw stdin: the time is taken when the bytes arrive, before the ACP SDK parses them. */
  tap(stdin: NodeJS.ReadableStream): void {
    stdin.on("data", (chunk: Buffer) => {
      const at = monotonicMs();
      const lines = (this.pending + chunk.toString("utf8")).split("\n");
      this.pending = lines.pop() ?? "";
      for (const line of lines) {
        if (!line.includes('"session/prompt"')) continue;
        const text = promptText(line);
        if (text !== undefined) this.write({ event: "in", text, at, pid: process.pid });
      }
    });
  }

  firstChunk(text: string): void {
    this.write({ event: "out", text, at: monotonicMs(), pid: process.pid });
  }

  streamEnded(text: string): void {
    this.write({ event: "end", text, at: monotonicMs(), pid: process.pid });
  }

  private write(line: TimingLine): void {
    appendFileSync(this.file, JSON.stringify(line) + "\n");
  }
}

function promptText(line: string): string | undefined {
  try {
    const message = JSON.parse(line) as { method?: string; params?: { prompt?: Array<{ type: string; text?: string }> } };
    if (message.method !== "session/prompt") return undefined;
    return (message.params?.prompt ?? []).map((b) => (b.type === "text" ? b.text : "")).join(" ").trim();
  } catch {
    return undefined;
  }
}

export interface StreamRequest {
  bytes: number;
  chunkBytes: number;
  intervalMs: number;
}

const DEFAULT_STREAM_CHUNK_BYTES = 1024;
const DEFAULT_STREAM_INTERVAL_MS = 25;
const SIZE_UNITS: Record<string, number> = { "": 1, k: 1024, m: 1024 * 1024 };

/** Parses `demo:stream 50m 65536 0`; undefined when the prompt is not one. */
export function parseStreamRequest(text: string): StreamRequest | undefined {
  const match = /^demo:stream\s+(\d+)([km]?)(?:\s+(\d+)([km]?))?(?:\s+(\d+))?$/i.exec(text.trim());
  if (!match) return undefined;
  const size = (n: string, unit: string) => Number(n) * SIZE_UNITS[unit.toLowerCase()];
  return {
    bytes: size(match[1], match[2]),
    chunkBytes: match[3] ? Math.max(1, size(match[3], match[4])) : DEFAULT_STREAM_CHUNK_BYTES,
    intervalMs: match[5] ? Number(match[5]) : DEFAULT_STREAM_INTERVAL_MS,
  };
}

/**
 * Markdown paragraphs, `bytes` long in all, handed out `chunkBytes` at a time. Each names `source`
 * (the session): answers streaming side by side differ, as real ones do, so no cache keyed by the
 * text can serve one chat with the work done for another.
 */
export function* streamChunks(request: StreamRequest, source: string): Generator<string> {
  const paragraph = (n: number) => `Paragraph ${n} of ${source}: the agent keeps writing so that a benchmark has a long answer to deliver, with **bold**, \`code\` and plain words.\n\n`;
  let buffered = "";
  let paragraphs = 0;
  for (let sent = 0; sent < request.bytes; ) {
    while (buffered.length < request.chunkBytes) buffered += paragraph(++paragraphs);
    const size = Math.min(request.chunkBytes, request.bytes - sent);
    yield buffered.slice(0, size);
    buffered = buffered.slice(size);
    sent += size;
  }
}
