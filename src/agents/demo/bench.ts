// What the demo agent reports for `npm run bench`: when each session/prompt line reached its stdin
// and when it wrote the first chunk of its answer, so a benchmark can tell Baton's time from the
// agent's. The prompts that shape the bench's load are in load.ts.
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
    appendFileSync(this.file, `${JSON.stringify(line)}\n`);
  }
}

function promptText(line: string): string | undefined {
  try {
    const message = JSON.parse(line) as { method?: string; params?: { prompt?: Array<{ type: string; text?: string }> } };
    if (message.method !== "session/prompt") return undefined;
    return (message.params?.prompt ?? [])
      .map((b) => (b.type === "text" ? b.text : ""))
      .join(" ")
      .trim();
  } catch {
    return undefined;
  }
}
