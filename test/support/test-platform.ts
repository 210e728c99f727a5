// A platform that lives in the test: it implements the platform contract in memory, records every
// message the core sends or edits, and lets a test speak as any user on any route.
import type { ActionOutcome, Button, MessageRef, OutboundMessage, PlatformAdapter, PlatformCapabilities, PlatformCore, PlatformUser, StartInfo } from "../../src/platforms/contract.js";

export interface RecordedMessage {
  id: string;
  route: string;
  text: string;
  kind?: string;
  buttons?: Button[][];
  /** Every text this message had, first send included. */
  history: string[];
}

export class TestPlatform implements PlatformAdapter {
  readonly kind = "test";
  readonly capabilities: PlatformCapabilities;
  core?: PlatformCore;
  readonly messages: RecordedMessage[] = [];
  readonly typingCalls: string[] = [];
  private nextId = 1;

  constructor(readonly name = "test", capabilities: Partial<PlatformCapabilities> = {}) {
    this.capabilities = { maxMessageLength: 4000, edits: true, buttons: true, typing: true, typingIntervalMs: 200, dialect: "plain", ...capabilities };
  }

  async start(core: PlatformCore): Promise<StartInfo> {
    this.core = core;
    return { description: `${this.name}: test platform ready` };
  }

  async stop(): Promise<void> {}

  async send(route: string, message: OutboundMessage): Promise<MessageRef> {
    const id = String(this.nextId++);
    this.messages.push({ id, route, text: message.text, kind: message.kind, buttons: message.buttons, history: [message.text] });
    return { id };
  }

  async edit(route: string, ref: MessageRef, message: OutboundMessage): Promise<void> {
    const m = this.messages.find((x) => x.id === ref.id && x.route === route);
    if (!m) throw new Error(`edit of unknown message ${ref.id}`);
    m.text = message.text;
    m.buttons = message.buttons;
    m.history.push(message.text);
  }

  async typing(route: string): Promise<void> {
    this.typingCalls.push(route);
  }

  route(id: string): string {
    return `${this.name}:${id}`;
  }

  /** A user writes on a route. Resolves once the core has handled it (a prompt is queued, not answered). */
  async say(route: string, text: string, user: PlatformUser = { id: "test:alice", name: "Alice" }, extra: { addressed?: boolean; files?: Array<{ name: string; path: string; size: number; mimeType?: string }> } = {}): Promise<void> {
    await this.core!.handleMessage({ route, user, text, addressed: extra.addressed ?? true, files: extra.files, messageId: `in-${this.nextId++}` });
  }

  async press(route: string, actionId: string, user: PlatformUser = { id: "test:alice", name: "Alice" }): Promise<ActionOutcome> {
    return this.core!.handleAction({ route, user, actionId });
  }

  on(route: string): RecordedMessage[] {
    return this.messages.filter((m) => m.route === route);
  }

  /** All current texts on a route, joined. */
  transcript(route: string): string {
    return this.on(route).map((m) => m.text).join("\n");
  }

  /** Waits until some message on the route matches. */
  async waitFor(route: string, match: RegExp | ((m: RecordedMessage) => boolean), timeoutMs = 10_000): Promise<RecordedMessage> {
    const test = typeof match === "function" ? match : (m: RecordedMessage) => match.test(m.text);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.on(route).find(test);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`timed out waiting on ${route} for ${String(match)}; transcript:\n${this.transcript(route)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}
