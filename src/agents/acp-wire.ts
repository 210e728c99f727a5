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
        let pending: Buffer[] = [];
        let pendingBytes = 0;
        let failed = false;
        const onLine = (bytes: Buffer) => {
          const text = bytes.toString("utf8").trim();
          if (!text) return;
          let message: unknown;
          try {
            message = JSON.parse(text);
          } catch {
            return answerError(-32700, "Parse error");
          }
          // The SDK's own answers, word for word (test/agents/acp-differential.test.ts holds them to it).
          if (Array.isArray(message)) return answerError(-32600, "Invalid request: JSON-RPC batches are not supported");
          if (typeof message !== "object" || message === null) return answerError(-32600, "Invalid request", message);
          let taken: boolean;
          try {
            taken = take(message as WireMessage);
          } catch (error) {
            // A handler that throws ends this connection (as an error in the SDK's stream would), not Baton.
            return fail(error as Error);
          }
          if (taken) return;
          controller.enqueue(message as WireMessage);
          if ((controller.desiredSize ?? 0) <= 0) input.pause();
        };
        input.on("data", (chunk: Buffer) => {
          if (failed) return;
          let start = 0;
          for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
            const line = pendingBytes === 0 ? chunk.subarray(start, end) : Buffer.concat([...pending, chunk.subarray(start, end)]);
            pending = [];
            pendingBytes = 0;
            start = end + 1;
            if (line.length > MAX_MESSAGE_BYTES) return fail(new MessageTooLargeError());
            onLine(line);
            if (failed) return;
          }
          if (start === chunk.length) return;
          pendingBytes += chunk.length - start;
          if (pendingBytes > MAX_MESSAGE_BYTES) return fail(new MessageTooLargeError());
          pending.push(chunk.subarray(start));
        });
        input.once("end", () => {
          if (failed) return;
          if (pendingBytes > 0) onLine(Buffer.concat(pending));
          controller.close();
        });
        input.once("error", (error) => fail(error));
        function fail(error: Error): void {
          if (failed) return;
          failed = true;
          pending = [];
          controller.error(error);
          input.destroy();
        }
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
