// A platform that lives in the test: it implements the platform contract in memory, records every
// message the core sends or edits, and lets a test speak as any user on any route.
import { readFile } from "node:fs/promises";
import type { PlatformError } from "../../src/kernel/errors.js";
import type {
  ActionOutcome,
  Button,
  InboundFile,
  MessageRef,
  OutboundFile,
  OutboundMessage,
  PlatformAdapter,
  PlatformCapabilities,
  PlatformCore,
  PlatformUser,
  StartInfo,
} from "../../src/platforms/contract.js";

/** What a test user does besides writing text: where, addressed how, with which files. */
export interface SayOptions {
  /** A group chat where this message is not addressed to the bot (no mention, no reply, no command). */
  addressed?: boolean;
  direct?: boolean;
  mentions?: string[];
  replyToBot?: boolean;
  /** Files by local path: fetched from there only when the core asks. */
  files?: Array<{ name: string; path: string; size?: number; mimeType?: string }>;
}

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
  /** Every send and edit, failed ones included. */
  readonly callLog: Array<{ call: "send" | "edit"; at: number; failed: boolean; text: string; messageId?: string }> = [];
  private readonly failures: Record<"send" | "edit", PlatformError[]> = { send: [], edit: [] };
  private nextId = 1;

  constructor(
    readonly name = "test",
    capabilities: Partial<PlatformCapabilities> = {},
  ) {
    this.capabilities = { maxMessageLength: 4000, edits: true, buttons: true, typingIntervalMs: 200, ...capabilities };
  }

  async start(core: PlatformCore): Promise<StartInfo> {
    this.core = core;
    return { description: `${this.name}: test platform ready` };
  }

  async stop(): Promise<void> {}

  /** The next call of this kind throws `error`, as a remote platform's refusal or rate limit would. */
  failNext(call: "send" | "edit", error: PlatformError): void {
    this.failures[call].push(error);
  }

  private attempt(call: "send" | "edit", message: OutboundMessage, messageId?: string): void {
    const failure = this.failures[call].shift();
    this.callLog.push({ call, at: Date.now(), failed: failure !== undefined, text: message.text, messageId });
    if (failure) throw failure;
  }

  async send(route: string, message: OutboundMessage): Promise<MessageRef> {
    this.attempt("send", message);
    const id = String(this.nextId++);
    this.messages.push({ id, route, text: message.text, kind: message.kind, buttons: message.buttons, history: [message.text] });
    return { id };
  }

  async edit(route: string, ref: MessageRef, message: OutboundMessage): Promise<void> {
    this.attempt("edit", message, ref.id);
    const m = this.messages.find((x) => x.id === ref.id && x.route === route);
    if (!m) throw new Error(`edit of unknown message ${ref.id}`);
    m.text = message.text;
    m.buttons = message.buttons;
    m.history.push(message.text);
  }

  /** Files uploaded, with their bytes as read at the upload (Baton's copy is deleted afterwards). */
  readonly uploads: Array<{ route: string; name: string; mimeType: string; size: number; caption?: string; data: Buffer }> = [];

  async upload(route: string, file: OutboundFile): Promise<MessageRef> {
    const data = await readFile(file.path);
    const id = String(this.nextId++);
    this.uploads.push({ route, name: file.name, mimeType: file.mimeType, size: file.size, caption: file.caption, data });
    this.messages.push({ id, route, text: `[upload ${file.name}]${file.caption ? ` ${file.caption}` : ""}`, kind: "file", history: [file.name] });
    return { id };
  }

  async typing(route: string): Promise<void> {
    this.typingCalls.push(route);
  }

  route(id: string): string {
    return `${this.name}:${id}`;
  }

  /** A user writes on a route. Resolves once the core has handled it (a prompt is queued, not answered). */
  async say(route: string, text: string, user: PlatformUser = { id: "test:alice", name: "Alice" }, extra: SayOptions = {}): Promise<void> {
    const direct = extra.direct ?? extra.addressed !== false;
    const files = extra.files?.map((f): InboundFile => ({ name: f.name, size: f.size, mimeType: f.mimeType, fetch: async () => this.fetchLocal(f.path) }));
    await this.core!.handleMessage({ route, user, text, direct, mentions: extra.mentions, replyToBot: extra.replyToBot, files, messageId: `in-${this.nextId++}` });
  }

  /** Paths the core fetched, in order (a stranger's files must never appear here). */
  readonly fetched: string[] = [];

  private async fetchLocal(path: string): Promise<AsyncIterable<Uint8Array>> {
    this.fetched.push(path);
    const data = await readFile(path);
    return (async function* () {
      yield data;
    })();
  }

  async press(route: string, actionId: string, user: PlatformUser = { id: "test:alice", name: "Alice" }): Promise<ActionOutcome> {
    return this.core!.handleAction({ route, user, actionId });
  }

  on(route: string): RecordedMessage[] {
    return this.messages.filter((m) => m.route === route);
  }

  /** All current texts on a route, joined. */
  transcript(route: string): string {
    return this.on(route)
      .map((m) => m.text)
      .join("\n");
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
