// The web chat platform: Baton's built-in chat page. It serves the page, keeps each conversation's
// recent messages on disk, and pushes every send and edit to the connected browsers. Like every
// adapter it never routes: a browser message becomes core.handleMessage on `web:<conversation>`.
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { PlatformError } from "../../kernel/errors.js";
import type { MessageRef, OutboundFile, OutboundMessage, PacingLimits, PlatformAdapter, PlatformCapabilities, PlatformCore, PlatformEnv, StartInfo } from "../contract.js";
import { PageAssets } from "./assets.js";
import { loadOrCreateToken, WebAuth } from "./auth.js";
import { registerSecretValues } from "../../kernel/secrets.js";
import type { WebAdapterConfig } from "./config.js";
import { ConversationHistory, type StoredMessage } from "./history.js";
import { CONVERSATION_ID_PATTERN, type ClientEvent, type ConversationSummary, type ServerEvent } from "./protocol.js";
import { INLINE_IMAGE_TYPES, UploadTooLargeError, WebFiles } from "./files.js";
import { wireMessage } from "./render.js";
import { loadMarkdown } from "../../render/markdown.js";
import { parseListen, startWebServer, type FileRoutes, type RunningWebServer } from "./server.js";
import { SocketHub, type BrowserClient } from "./sockets.js";
import { conversationTitle } from "./title.js";

/** Markdown characters per message: a browser has no real limit, this keeps one bubble readable. */
export const WEB_MAX_MESSAGE_CHARS = 20_000;
/** The page shows "working…" for a little longer than this after each beat. */
export const WEB_TYPING_INTERVAL_MS = 3_000;
/** Edits are cheap here (one WebSocket frame), so streaming may be smooth. */
export const WEB_MIN_EDIT_GAP_MS = 100;
/**
 * Sends and edits in one conversation: 50 a second, two at once (an answer's first bubble and the
 * edit that completes it). Far more than anyone reads (up to 50 bubbles of 20,000 characters a
 * second), and it bounds what a huge answer costs: past it the core leaves the middle of the
 * answer out here, as on every other platform, instead of rendering megabytes of markdown a second
 * (a 50 MB answer grew Baton's memory by 150 MB that way).
 */
const WEB_PACING: PacingLimits = { key: { burst: 2, perSecond: 50 } };

export class WebAdapter implements PlatformAdapter {
  readonly kind = "web";
  readonly capabilities: PlatformCapabilities;
  private core?: PlatformCore;
  private server?: RunningWebServer;
  private hub?: SocketHub;
  private history?: ConversationHistory;
  private files?: WebFiles;
  /** What the last start() answered (the line `baton start` prints), for tests and tools. */
  startInfo?: StartInfo;
  /** Conversations with a turn running (turnStatus), for the Stop button. */
  private readonly running = new Set<string>();
  /** The summary last pushed per conversation, to push only changes. */
  private readonly published = new Map<string, string>();

  constructor(
    readonly name: string,
    private readonly config: WebAdapterConfig,
    private readonly env: PlatformEnv,
  ) {
    this.capabilities = {
      maxMessageLength: WEB_MAX_MESSAGE_CHARS,
      edits: true,
      buttons: true,
      typingIntervalMs: WEB_TYPING_INTERVAL_MS,
      minEditGapMs: config.min_edit_gap_ms ?? WEB_MIN_EDIT_GAP_MS,
      pacing: WEB_PACING,
      // Whoever holds the web chat's token is the operator.
      usersAuthenticated: true,
      // The page shows the usage as a quiet line of its own under the answer, at no cost.
      usageApart: true,
    };
  }

  async start(core: PlatformCore): Promise<StartInfo> {
    this.core = core;
    const listen = parseListen(this.config.listen);
    const token = loadOrCreateToken(this.env.dataDir, this.config.token);
    // A token created in the data dir is as secret as a configured one: no log line shows it.
    registerSecretValues([token]);
    const files = new WebFiles(join(this.env.dataDir, "web", this.name));
    files.open();
    this.files = files;
    const history = new ConversationHistory(join(this.env.dataDir, "web", this.name), core.log, undefined, (conversation, message) => void files.drop(conversation, message.id));
    history.load();
    const hub = new SocketHub(
      (client, event) => this.onClientEvent(client, event),
      core.log,
      (conversation) => this.historyEvent(conversation),
    );
    // Ready before the first browser can connect.
    this.history = history;
    this.hub = hub;
    if (!isLoopback(listen.host))
      core.log.warn({ host: listen.host }, "web chat listens beyond loopback over plain HTTP: the token crosses the network in clear text; prefer an SSH tunnel or a TLS proxy");
    this.server = await startWebServer({ listen, auth: new WebAuth(token), hub, assets: new PageAssets(), files: this.fileRoutes(), log: core.log });
    const shownHost = listen.host === "0.0.0.0" || listen.host === "::" ? "127.0.0.1" : listen.host.includes(":") ? `[${listen.host}]` : listen.host;
    this.startInfo = { description: `Web chat: http://${shownHost}:${this.server.port}/?token=${encodeURIComponent(token)}` };
    return this.startInfo;
  }

  /** Uploads from the page the core fetched. */
  get filesFetched(): number {
    return this.files?.fetched ?? 0;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.hub = undefined;
    await server?.close();
    await this.history?.flush();
    this.running.clear();
    this.published.clear();
  }

  async send(route: string, message: OutboundMessage): Promise<MessageRef> {
    const conversation = this.conversationOf(route);
    const stored: StoredMessage = {
      id: randomBytes(8).toString("base64url"),
      role: "agent",
      kind: message.kind ?? "text",
      text: message.text,
      format: message.format,
      buttons: message.buttons,
      at: Date.now(),
    };
    this.store().append(conversation, stored);
    this.hub?.broadcast({ type: "message", conversation, message: wireMessage(stored, conversation) });
    this.publishSummary(conversation);
    return { id: stored.id };
  }

  /** The file kept with a message of its own (an image shows inline), its caption as the text. */
  async upload(route: string, file: OutboundFile): Promise<MessageRef> {
    const conversation = this.conversationOf(route);
    const id = randomBytes(8).toString("base64url");
    const kept = await this.requireFiles().keep(conversation, id, file);
    const stored: StoredMessage = { id, role: "agent", kind: "text", text: file.caption ?? "", format: file.format, files: [kept], at: Date.now() };
    this.store().append(conversation, stored);
    this.hub?.broadcast({ type: "message", conversation, message: wireMessage(stored, conversation) });
    this.publishSummary(conversation);
    return { id };
  }

  async edit(route: string, ref: MessageRef, message: OutboundMessage): Promise<void> {
    const conversation = this.conversationOf(route);
    const existing = this.store().get(conversation, ref.id);
    if (!existing) throw new PlatformError("That message is gone.", { reason: "refused", detail: `web: edit of unknown message ${ref.id} on ${route}` });
    const updated: StoredMessage = { ...existing, text: message.text, format: message.format, buttons: message.buttons, kind: message.kind ?? existing.kind };
    this.store().update(conversation, updated);
    this.hub?.broadcast({ type: "message", conversation, message: wireMessage(updated, conversation) });
  }

  async typing(route: string): Promise<void> {
    this.hub?.broadcast({ type: "typing", conversation: this.conversationOf(route) });
  }

  async turnStatus(route: string, state: "running" | "idle"): Promise<void> {
    const conversation = this.conversationOf(route);
    if (state === "running") {
      this.running.add(conversation);
      this.publishSummary(conversation);
      return;
    }
    this.running.delete(conversation);
    // The core still counts the turn as running until this call returns; look once it has.
    setImmediate(() => this.publishSummary(conversation));
  }

  /** The core changed what a conversation is attached to (its host stopped when idle, say): the list shows it. */
  routeChanged(route: string): void {
    this.publishSummary(this.conversationOf(route));
  }

  private async onClientEvent(client: BrowserClient, event: ClientEvent): Promise<void> {
    const core = this.core!;
    // History and echoes render markdown, whose parser loads after start-up.
    await loadMarkdown();
    switch (event.type) {
      case "hello": {
        client.user = `web:${event.browser}`;
        const conversations = this.store()
          .ids()
          .map((id) => this.summary(id));
        client.send({ type: "welcome", user: client.user, commands: core.commandList(), conversations });
        return;
      }
      case "open":
        client.send(this.historyEvent(event.conversation));
        return;
      case "send": {
        const { conversation, text } = event;
        const uploads = event.files ?? [];
        const files = this.requireFiles();
        const described = files.describe(uploads);
        const stored: StoredMessage = { id: randomBytes(8).toString("base64url"), role: "user", kind: "user", text, files: described.length ? described : undefined, at: Date.now() };
        this.store().append(conversation, stored);
        this.hub?.broadcast({ type: "message", conversation, message: wireMessage(stored, conversation) });
        this.publishSummary(conversation);
        const route = this.routeOf(conversation);
        const inbound = files.inbound(uploads);
        try {
          await core.handleMessage({ route, user: { id: client.user!, name: "web" }, text, direct: true, messageId: stored.id, files: inbound.length ? inbound : undefined });
        } finally {
          await files.release(uploads);
        }
        const info = this.core?.routeInfo?.(route);
        if (info?.open) this.store().update(conversation, { ...stored, thread: info.thread });
        this.publishSummary(conversation);
        return;
      }
      case "action": {
        const route = this.routeOf(event.conversation);
        const outcome = await core.handleAction({ route, user: { id: client.user!, name: "web" }, actionId: event.actionId });
        client.send({ type: "actionResult", conversation: event.conversation, messageId: event.messageId, ...outcome });
        return;
      }
      case "typing":
        core.handleTyping?.({ route: this.routeOf(event.conversation), user: { id: client.user!, name: "web" } });
        return;
      case "forget":
        await this.store().forget(event.conversation);
        await this.files?.forget(event.conversation);
        this.published.delete(event.conversation);
        this.hub?.broadcast({ type: "forgotten", conversation: event.conversation });
        return;
    }
  }

  private historyEvent(conversation: string): ServerEvent {
    return {
      type: "history",
      conversation,
      messages: this.store()
        .messages(conversation)
        .map((m) => wireMessage(m, conversation)),
    };
  }

  private summary(conversation: string): ConversationSummary {
    const messages = this.store().messages(conversation);
    const info = this.core?.routeInfo?.(this.routeOf(conversation));
    const title = conversationTitle(messages, info);
    const running = this.running.has(conversation) || info?.host === "running";
    return { id: conversation, title, updatedAt: messages.at(-1)?.at ?? 0, running, info };
  }

  /** Pushes a conversation's summary when it changed since the last push. */
  private publishSummary(conversation: string): void {
    if (!this.hub || !this.store().has(conversation)) return;
    const summary = this.summary(conversation);
    const json = JSON.stringify(summary);
    if (this.published.get(conversation) === json) return;
    this.published.set(conversation, json);
    this.hub.broadcast({ type: "conversation", conversation: summary });
  }

  private fileRoutes(): FileRoutes {
    return {
      serve: async (conversation, messageId) => {
        const file = this.history?.get(conversation, messageId)?.files?.[0];
        const body = file ? await this.requireFiles().read(conversation, messageId) : undefined;
        return file && body ? { body, name: file.name, mimeType: file.mimeType, inline: INLINE_IMAGE_TYPES.has(file.mimeType) } : undefined;
      },
      upload: async (body, name, mimeType, declared) => {
        const max = this.config.max_file_bytes;
        const tooLarge = `Files up to ${Math.round(max / (1024 * 1024))} MB (platforms.${this.name}.max_file_bytes).`;
        if (declared !== undefined && declared > max) return { ok: false, status: 413, text: tooLarge };
        try {
          return { ok: true, file: await this.requireFiles().receive(body, name, mimeType, max) };
        } catch (error) {
          if (error instanceof UploadTooLargeError) return { ok: false, status: 413, text: tooLarge };
          throw error;
        }
      },
    };
  }

  private requireFiles(): WebFiles {
    if (!this.files) throw new PlatformError("The web chat is not running.", { reason: "network" });
    return this.files;
  }

  private store(): ConversationHistory {
    if (!this.history) throw new PlatformError("The web chat is not running.", { reason: "network" });
    return this.history;
  }

  private routeOf(conversation: string): string {
    return `${this.name}:${conversation}`;
  }

  private conversationOf(route: string): string {
    const conversation = route.startsWith(`${this.name}:`) ? route.slice(this.name.length + 1) : "";
    if (!CONVERSATION_ID_PATTERN.test(conversation)) throw new PlatformError("No such web conversation.", { reason: "refused", detail: `web: bad route ${route}` });
    return conversation;
  }
}

function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\./.test(host);
}
