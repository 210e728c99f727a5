import { describe, expect, it } from "vitest";
import type { MessageRef, OutboundMessage } from "../../src/platforms/contract.js";
import { TurnStream } from "../../src/core/stream.js";
import { silentLogger } from "../../src/kernel/log.js";
import { TestPlatform } from "../support/test-platform.js";

/** A platform whose network fails on chosen calls, like a reset keep-alive connection. */
class FlakyPlatform extends TestPlatform {
  calls = 0;
  constructor(private readonly failOn: (call: number, method: "send" | "edit") => boolean) {
    super("flaky", { maxMessageLength: 200 });
  }
  override async send(route: string, message: OutboundMessage): Promise<MessageRef> {
    if (this.failOn(++this.calls, "send")) throw new Error("read ECONNRESET");
    return super.send(route, message);
  }
  override async edit(route: string, ref: MessageRef, message: OutboundMessage): Promise<void> {
    if (this.failOn(++this.calls, "edit")) throw new Error("read ECONNRESET");
    return super.edit(route, ref, message);
  }
}

const settings = { flushDebounceMs: 5, minEditGapMs: 0, showThoughts: false, showTools: true };
const chunk = (text: string) => ({ sessionUpdate: "agent_message_chunk" as const, content: { type: "text" as const, text } });

describe("TurnStream delivery", () => {
  it("retries a failed send and a failed edit, keeping the order of the pieces", async () => {
    const platform = new FlakyPlatform((n) => n === 1 || n === 4);
    const route = platform.route("r");
    const stream = new TurnStream(() => [{ route, adapter: platform }], settings, silentLogger());
    const paragraphs = Array.from({ length: 8 }, (_, i) => `Paragraph ${i + 1} ${"x".repeat(60)}`);
    for (const p of paragraphs) {
      stream.update(chunk(`${p}\n\n`));
      await new Promise((r) => setTimeout(r, 15));
    }
    await stream.finish();
    const texts = platform.on(route).map((m) => m.text);
    expect(texts.join("\n\n")).toBe(paragraphs.join("\n\n"));
  });

  it("gives up on a piece after a bounded number of attempts instead of looping", async () => {
    const platform = new FlakyPlatform(() => true);
    const route = platform.route("r");
    const stream = new TurnStream(() => [{ route, adapter: platform }], settings, silentLogger());
    stream.update(chunk("never delivered"));
    await stream.finish();
    expect(platform.calls).toBe(4);
    await new Promise((r) => setTimeout(r, 100));
    expect(platform.calls).toBe(4);
  });
});
