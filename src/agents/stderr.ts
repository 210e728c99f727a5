// What an agent wrote to stderr, kept for the crash report: a bounded tail in bytes (an agent can
// write 100 MB without a newline), scrubbed of secrets, a few short lines for the chat and the
// whole tail for the log.
import { redactSecrets } from "../kernel/secrets.js";

/** Bytes of stderr kept per agent process (the log gets all of them). */
export const STDERR_TAIL_BYTES = 16 * 1024;
/** Lines of it shown in the chat, and characters of each. */
export const STDERR_CHAT_LINES = 5;
export const STDERR_CHAT_LINE_CHARS = 200;

export class StderrTail {
  private chunks: Buffer[] = [];
  private bytes = 0;
  /** Bytes dropped from the front, so the first kept line may be a fragment. */
  private dropped = 0;

  constructor(private readonly maxBytes = STDERR_TAIL_BYTES) {}

  push(chunk: Buffer): void {
    if (chunk.length >= this.maxBytes) {
      this.dropped += this.bytes + chunk.length - this.maxBytes;
      this.chunks = [Buffer.from(chunk.subarray(chunk.length - this.maxBytes))];
      this.bytes = this.maxBytes;
      return;
    }
    this.chunks.push(chunk);
    this.bytes += chunk.length;
    while (this.bytes > this.maxBytes) {
      const first = this.chunks[0];
      const excess = this.bytes - this.maxBytes;
      if (first.length <= excess) {
        this.chunks.shift();
        this.bytes -= first.length;
        this.dropped += first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.bytes -= excess;
        this.dropped += excess;
      }
    }
  }

  /**
   * The kept lines, scrubbed, without empty ones. When the front was dropped, the kept text starts
   * mid-line, maybe mid-token where the scrubber would not know it: that fragment is left out up to
   * the first space or line break.
   */
  lines(): string[] {
    let text = Buffer.concat(this.chunks).toString("utf8");
    if (this.dropped > 0) {
      const cut = text.search(/\s/);
      text = cut === -1 ? "" : `…${text.slice(cut + 1)}`;
    }
    return redactSecrets(text)
      .split("\n")
      .map((l) => l.trimEnd())
      .filter((l) => l.replace("…", "").trim().length > 0);
  }

  /** Everything kept, for the log. */
  forLog(): string {
    const lines = this.lines();
    return this.dropped > 0 ? `[${this.dropped} earlier bytes not kept]\n${lines.join("\n")}` : lines.join("\n");
  }

  /** The last few lines, each cut short, for the chat. */
  forChat(): string {
    const lines = this.lines();
    const shown = lines.slice(-STDERR_CHAT_LINES).map((l) => (l.length > STDERR_CHAT_LINE_CHARS ? `${l.slice(0, STDERR_CHAT_LINE_CHARS)}…` : l));
    const hidden = lines.length - shown.length;
    return hidden > 0 || this.dropped > 0 ? [`(last lines of the agent's stderr; the log has more)`, ...shown].join("\n") : shown.join("\n");
  }
}
