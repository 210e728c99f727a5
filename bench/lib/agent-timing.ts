// Reads what the demo agents report (src/agents/demo/bench.ts): when each session/prompt line
// reached an agent's stdin and when its first answer chunk left, keyed by the prompt's text.
import { closeSync, openSync, readSync, statSync } from "node:fs";
import type { TimingLine } from "../../src/agents/demo/bench.js";

export class AgentTimings {
  readonly promptIn = new Map<string, number>();
  readonly firstOut = new Map<string, number>();
  readonly streamEnd = new Map<string, number>();
  private offset = 0;
  private partial = "";

  /** `keyOf` picks the key from a prompt's text (undefined: the line is not one of ours). */
  constructor(
    private readonly file: string,
    private readonly keyOf: (text: string) => string | undefined = (text) => text,
  ) {}

  /** Reads what was appended since the last call. */
  refresh(): this {
    const size = statSync(this.file).size;
    if (size <= this.offset) return this;
    const buffer = Buffer.alloc(size - this.offset);
    const fd = openSync(this.file, "r");
    try {
      readSync(fd, buffer, 0, buffer.length, this.offset);
    } finally {
      closeSync(fd);
    }
    this.offset = size;
    const lines = (this.partial + buffer.toString("utf8")).split("\n");
    this.partial = lines.pop() ?? "";
    for (const line of lines) {
      const timing = JSON.parse(line) as TimingLine;
      const key = this.keyOf(timing.text);
      if (key === undefined) continue;
      const into = timing.event === "in" ? this.promptIn : timing.event === "out" ? this.firstOut : this.streamEnd;
      if (!into.has(key)) into.set(key, timing.at);
    }
    return this;
  }
}
