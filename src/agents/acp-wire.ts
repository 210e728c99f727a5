// An agent's side of the wire, newline-delimited JSON-RPC over its stdin and stdout, as the Stream
// the ACP SDK connects to. The SDK's own `ndJsonStream` passes every line through web streams
// (bytes, then messages, then ours to take the text chunks out: a handful of promises per line)
// and every write through two more; with 50 agents streaming that was a tenth of Baton's CPU.
// Here stdout is split into lines as it arrives, each message is offered to `take` first
// (streamed text, handled at once), and only the rest is queued for the SDK. Writes go straight
// to stdin. What the SDK's stream does with bad input is kept: a line that is not JSON, a batch
// or a non-object gets the JSON-RPC error answer; a line over the size limit ends the connection.
import type { Readable, Writable } from "node:stream";

/** The longest line accepted from an agent (the ACP SDK's own default). */
export const MAX_MESSAGE_BYTES = 32 * 1024 * 1024;
/** Messages waiting for the SDK before the agent's stdout is paused (it is held back in its pipe). */
const SDK_QUEUE_HIGH_WATER = 8;
const NEWLINE = 0x0a;

export type WireMessage = Record<string, unknown>;

export interface AcpWire {
  readable: ReadableStream<WireMessage>;
  writable: WritableStream<WireMessage>;
}

export class MessageTooLargeError extends Error {
  constructor() {
    super(`the agent wrote a line longer than ${MAX_MESSAGE_BYTES} bytes`);
    this.name = "MessageTooLargeError";
  }
}

/** `take` returns true for a message it handled itself; the SDK never sees those. */
export function acpWire(input: Readable, output: Writable, take: (message: WireMessage) => boolean): AcpWire {
  // A write to an agent that has gone fails its write promise (the SDK closes the connection);
  // the stream's own 'error' event must not also be thrown.
  output.on("error", () => undefined);
  const writeLine = (message: unknown): Promise<void> =>
    new Promise((resolve, reject) => {
      output.write(`${JSON.stringify(message)}\n`, (error) => (error ? reject(error) : resolve()));
    });
  const answerError = (code: number, message: string, data?: unknown) => void writeLine({ jsonrpc: "2.0", id: null, error: { code, message, data } }).catch(() => undefined);

  const readable = new ReadableStream<WireMessage>(
    {
      start(controller) {
        const lines = new LineBuffer();
        let failed = false;
        const fail = (error: Error): void => {
          if (failed) return;
          failed = true;
          lines.clear();
          controller.error(error);
          input.destroy();
        };
        const onLine = (bytes: Buffer): boolean => {
          const message = parseLine(bytes, answerError);
          if (message === undefined) return true;
          let taken: boolean;
          try {
            taken = take(message);
          } catch (error) {
            // A handler that throws ends this connection (as an error in the SDK's stream would), not Baton.
            fail(error as Error);
            return false;
          }
          if (taken) return true;
          controller.enqueue(message);
          if ((controller.desiredSize ?? 0) <= 0) input.pause();
          return true;
        };
        input.on("data", (chunk: Buffer) => {
          if (failed) return;
          const tooLarge = lines.push(chunk, onLine);
          if (tooLarge) fail(tooLarge);
        });
        input.once("end", () => {
          if (failed) return;
          const rest = lines.rest();
          if (rest) onLine(rest);
          controller.close();
        });
        input.once("error", (error) => fail(error));
      },
      pull() {
        input.resume();
      },
      cancel() {
        input.destroy();
      },
    },
    { highWaterMark: SDK_QUEUE_HIGH_WATER },
  );

  const writable = new WritableStream<WireMessage>({
    write: (message) => writeLine(message),
    close: () => new Promise<void>((resolve) => output.end(resolve)),
    abort: () => void output.destroy(),
  });
  return { readable, writable };
}

/** A line as a message, or undefined after answering what the SDK's stream answers to bad input. */
function parseLine(bytes: Buffer, answerError: (code: number, message: string, data?: unknown) => undefined): WireMessage | undefined {
  const text = bytes.toString("utf8").trim();
  if (!text) return undefined;
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return answerError(-32700, "Parse error");
  }
  // The SDK's own answers, word for word (test/agents/acp-differential.test.ts holds them to it).
  if (Array.isArray(message)) return answerError(-32600, "Invalid request: JSON-RPC batches are not supported");
  if (typeof message !== "object" || message === null) return answerError(-32600, "Invalid request", message);
  return message as WireMessage;
}

/** Splits the agent's output into lines as it arrives, keeping the unfinished last one (in pieces until its newline comes). */
class LineBuffer {
  private parts: Buffer[] = [];
  private bytes = 0;

  /**
   * Hands each whole line in `chunk` to `each` (which returns false to stop), and keeps the rest.
   * Returns the error for a line over MAX_MESSAGE_BYTES, whole or still unfinished.
   */
  push(chunk: Buffer, each: (line: Buffer) => boolean): MessageTooLargeError | undefined {
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      const line = this.bytes === 0 ? chunk.subarray(start, end) : Buffer.concat([...this.parts, chunk.subarray(start, end)]);
      this.clear();
      start = end + 1;
      if (line.length > MAX_MESSAGE_BYTES) return new MessageTooLargeError();
      if (!each(line)) return undefined;
    }
    if (start === chunk.length) return undefined;
    this.bytes += chunk.length - start;
    if (this.bytes > MAX_MESSAGE_BYTES) return new MessageTooLargeError();
    this.parts.push(chunk.subarray(start));
    return undefined;
  }

  /** The last line when the output ended without a newline after it. */
  rest(): Buffer | undefined {
    return this.bytes > 0 ? Buffer.concat(this.parts) : undefined;
  }

  clear(): void {
    this.parts = [];
    this.bytes = 0;
  }
}
