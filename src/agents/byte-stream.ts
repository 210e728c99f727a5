// The agent's stdout as a web ReadableStream for the ACP SDK. Node 20's Readable.toWeb copies every
// chunk; this one hands the pipe's own buffers on and pauses the pipe while chunks wait unread, so a
// fast agent is held back by the pipe instead of piling its output up in Baton's memory.
import type { Readable } from "node:stream";

/** Chunks (of up to 64 KB from a pipe) queued before the pipe is paused. */
const QUEUED_CHUNKS = 4;

export function byteStream(source: Readable): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        source.on("data", (chunk: Buffer) => {
          controller.enqueue(chunk);
          if ((controller.desiredSize ?? 0) <= 0) source.pause();
        });
        source.once("end", () => controller.close());
        source.once("error", (error) => controller.error(error));
      },
      pull() {
        source.resume();
      },
      cancel() {
        source.destroy();
      },
    },
    { highWaterMark: QUEUED_CHUNKS },
  );
}
