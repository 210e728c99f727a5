// The core's delivery (Outbox + TurnStream) against an in-memory platform that fails the way real
// ones do: typed PlatformErrors for a dropped connection, a 429 with retry-after, a refusal, a
// refused formatting. What the platform ends up showing, and the calls it saw, are asserted.
import { describe, expect, it } from "vitest";
import { FormattingError, PlatformError } from "../../src/kernel/errors.js";
import type { MessageRef, OutboundMessage, PlatformCapabilities } from "../../src/platforms/contract.js";
import { MAX_NETWORK_ATTEMPTS, Outbox } from "../../src/core/delivery/outbox.js";
import { TurnStream } from "../../src/core/stream.js";
import { silentLogger } from "../../src/kernel/log.js";
import { TestPlatform } from "../support/test-platform.js";

type Failure = PlatformError | undefined;

/** A platform whose calls fail as scripted, recording each call with its time. */
class ScriptedPlatform extends TestPlatform {
  readonly calls: Array<{ method: "send" | "edit"; text: string; format?: string; at: number }> = [];
  constructor(
    private readonly failure: (call: number, method: "send" | "edit", message: OutboundMessage) => Failure,
    capabilities: Partial<PlatformCapabilities> = {},
  ) {
    super("scripted", { maxMessageLength: 200, ...capabilities });
  }
  override async send(route: string, message: OutboundMessage): Promise<MessageRef> {
    this.record("send", message);
    return super.send(route, message);
  }
  override async edit(route: string, ref: MessageRef, message: OutboundMessage): Promise<void> {
    this.record("edit", message);
    return super.edit(route, ref, message);
  }
  private record(method: "send" | "edit", message: OutboundMessage): void {
    this.calls.push({ method, text: message.text, format: message.format, at: Date.now() });
    const failure = this.failure(this.calls.length, method, message);
    if (failure) throw failure;
  }
}

const network = () => new PlatformError("reset", { reason: "network", detail: "read ECONNRESET" });
const settings = { flushDebounceMs: 5, showThoughts: false, showTools: true };
const chunk = (text: string) => ({ sessionUpdate: "agent_message_chunk" as const, content: { type: "text" as const, text } });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function streamOn(platform: ScriptedPlatform, minEditGapMs = 0) {
  const route = platform.route("r");
  const outbox = new Outbox(platform, silentLogger(), minEditGapMs);
  const stream = new TurnStream(() => [{ route, outbox }], settings, silentLogger());
  return { route, outbox, stream };
}

describe("core delivery", () => {
  it("keeps the pieces of a long answer in order while sends and edits fail on the network", async () => {
    const platform = new ScriptedPlatform((n) => (n === 1 || n === 4 ? network() : undefined));
    const { route, stream } = streamOn(platform);
    const paragraphs = Array.from({ length: 8 }, (_, i) => `Paragraph ${i + 1} ${"x".repeat(60)}`);
    for (const p of paragraphs) {
      stream.update(chunk(`${p}\n\n`));
      await sleep(15);
    }
    await stream.finish();
    expect(
      platform
        .on(route)
        .map((m) => m.text)
        .join("\n\n"),
    ).toBe(paragraphs.join("\n\n"));
    for (const m of platform.on(route)) expect(m.text.length).toBeLessThanOrEqual(200);
  });

  it("gives up on a network failure after a bounded number of attempts, never looping", async () => {
    const platform = new ScriptedPlatform(() => network());
    const { stream } = streamOn(platform);
    stream.update(chunk("never delivered"));
    await stream.finish();
    expect(platform.calls).toHaveLength(MAX_NETWORK_ATTEMPTS);
    await sleep(100);
    expect(platform.calls).toHaveLength(MAX_NETWORK_ATTEMPTS);
  });

  it("never retries a refusal", async () => {
    const platform = new ScriptedPlatform((_n, method) => (method === "edit" ? new PlatformError("no", { reason: "refused", detail: "400 message to edit not found" }) : undefined));
    const { outbox, route } = streamOn(platform);
    const slot = outbox.post(route, { text: "first" });
    await slot.sent;
    slot.update({ text: "second" });
    await slot.settled();
    slot.update({ text: "third" });
    await sleep(50);
    expect(platform.calls.map((c) => c.method)).toEqual(["send", "edit"]);
    expect(slot.failed).toBe(true);
  });

  it("waits out a 429's retry-after, then sends, and holds back the other calls meanwhile", async () => {
    const platform = new ScriptedPlatform((n) => (n === 1 ? new PlatformError("slow down", { reason: "rate_limited", retryAfterMs: 300 }) : undefined));
    const { outbox, route } = streamOn(platform);
    const first = outbox.post(route, { text: "one" });
    // Posted after the 429 came back (not after a fixed time, which a busy machine can outlast):
    // the platform asked every call to wait, not just that one.
    while (platform.calls.length === 0) await sleep(5);
    const second = outbox.post(platform.route("other"), { text: "two" });
    await Promise.all([first.settled(), second.settled()]);
    const [refused, ...rest] = platform.calls;
    expect(platform.calls.map((c) => c.text).sort()).toEqual(["one", "one", "two"]);
    expect(platform.on(route).map((m) => m.text)).toEqual(["one"]);
    for (const call of rest) expect(call.at - refused.at).toBeGreaterThanOrEqual(290);
  });

  it("resends the same words as plain text when the platform refuses the formatting", async () => {
    const platform = new ScriptedPlatform((_n, _m, message) => (message.format !== "plain" ? new FormattingError("bad entities") : undefined));
    const { outbox, route } = streamOn(platform);
    const slot = outbox.post(route, { text: "**bold** <b" });
    await slot.settled();
    expect(platform.calls.map((c) => c.format)).toEqual([undefined, "plain"]);
    expect(platform.on(route)[0].text).toBe("**bold** <b");
  });

  it("collapses edits that pile up into the newest text, keeping the edit gap", async () => {
    const platform = new ScriptedPlatform(() => undefined);
    const { outbox, route } = streamOn(platform, 200);
    const slot = outbox.post(route, { text: "v0" });
    await slot.sent;
    for (let i = 1; i <= 20; i++) slot.update({ text: `v${i}` });
    await slot.settled();
    expect(platform.calls.map((c) => c.text)).toEqual(["v0", "v20"]);
    expect(platform.calls[1].at - platform.calls[0].at).toBeGreaterThanOrEqual(190);
  });

  it("edits a message only when what it shows changes: not for an equal copy, yes for new buttons or a new format alone", async () => {
    const platform = new ScriptedPlatform(() => undefined);
    const { outbox, route } = streamOn(platform);
    const slot = outbox.post(route, { text: "Run the tests?", kind: "text" });
    await slot.settled();
    slot.update({ text: "Run the tests?", kind: "text", format: "markdown" });
    expect(slot.isSettled()).toBe(true);
    slot.update({ text: "Run the tests?", kind: "text", buttons: [[{ id: "yes", label: "Yes" }]] });
    expect(slot.isSettled()).toBe(false);
    await slot.settled();
    slot.update({ text: "Run the tests?", kind: "text", buttons: [[{ id: "yes", label: "Yes" }]] });
    await slot.settled();
    slot.update({ text: "Run the tests?", kind: "text", format: "plain" });
    await slot.settled();
    expect(platform.calls.map((c) => `${c.method} ${c.format ?? ""}`.trim())).toEqual(["send", "edit", "edit plain"]);
  });

  it("leaves out what a slow platform cannot keep up with, says so where the gap is, and still shows the end", async () => {
    const platform = new ScriptedPlatform(() => undefined, { maxMessageLength: 20_000, pacing: { key: { burst: 1, perSecond: 10 } } });
    const { route, stream } = streamOn(platform);
    const line = (i: number) => `line ${i} ${"x".repeat(90)}\n`;
    // About 2 MB written at once, far faster than ten messages a second can show.
    stream.update(chunk(Array.from({ length: 20_000 }, (_, i) => line(i)).join("")));
    stream.update(chunk("The end."));
    await stream.finish();
    const shown = platform.on(route).map((m) => m.text);
    // Bounded by the backlog cap (plus what went out meanwhile), not by the answer's 2 MB.
    expect(shown.length).toBeLessThan(40);
    expect(shown.join("\n")).toContain("line 0 ");
    expect(shown.some((t) => /^✂️ .* of this answer were left out here/.test(t))).toBe(true);
    expect(shown.at(-1)).toMatch(/The end\.$/);
  });
});
