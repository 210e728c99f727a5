// The web chat platform: Baton's built-in chat page. It serves the page, keeps each conversation's
// recent messages on disk, and pushes every send and edit to the connected browsers. Like every
// adapter it never routes: a browser message becomes core.handleMessage on `web:<conversation>`.
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { PlatformError } from "../../kernel/errors.js";
import type { MessageRef, OutboundMessage, PlatformAdapter, PlatformCapabilities, PlatformCore, PlatformEnv, StartInfo } from "../contract.js";
import { PageAssets } from "./assets.js";
import { loadOrCreateToken, WebAuth } from "./auth.js";
import type { WebAdapterConfig } from "./config.js";
import { ConversationHistory, type StoredMessage } from "./history.js";
import { CONVERSATION_ID_PATTERN, type ClientEvent, type ConversationSummary, type WireMessage } from "./protocol.js";
import { renderMessageHtml } from "./render.js";
import { loadMarkdown } from "../../render/markdown.js";
import { parseListen, startWebServer, type RunningWebServer } from "./server.js";
import { SocketHub, type BrowserClient } from "./sockets.js";

/** Markdown characters per message: a browser has no real limit, this keeps one bubble readable. */
export const WEB_MAX_MESSAGE_CHARS = 20_000;
/** The page shows "working…" for a little longer than this after each beat. */
export const WEB_TYPING_INTERVAL_MS = 3_000;
/** Edits are cheap here (one WebSocket frame), so streaming may be smooth. */
export const WEB_MIN_EDIT_GAP_MS = 100;
/** How often the conversation list is checked for state the core changed on its own (idle shutdown). */
const SUMMARY_REFRESH_MS = 5_000;
const TITLE_MAX_CHARS = 80;
const UNTITLED = "New chat";

export class WebAdapter implements PlatformAdapter {
  readonly kind = "web";
  readonly capabilities: PlatformCapabilities;
  private core?: PlatformCore;
  private server?: RunningWebServer;
  private hub?: SocketHub;
  private history?: ConversationHistory;
  private refreshTimer?: NodeJS.Timeout;
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
      // Whoever holds the web chat's token is the operator.
      usersAuthenticated: true,
    };
  }

  async start(core: PlatformCore): Promise<StartInfo> {
    this.core = core;
    const listen = parseListen(this.config.listen);
    const token = loadOrCreateToken(this.env.dataDir, this.config.token);
    const history = new ConversationHistory(join(this.env.dataDir, "web", this.name), core.log);
    history.load();
    const hub = new SocketHub((client, event) => this.onClientEvent(client, event), core.log);
    // Ready before the first browser can connect.
    this.history = history;
    this.hub = hub;
    if (!isLoopback(listen.host)) core.log.warn({ host: listen.host }, "web chat listens beyond loopback over plain HTTP: the token crosses the network in clear text; prefer an SSH tunnel or a TLS proxy");
    this.server = await startWebServer({ listen, auth: new WebAuth(token), hub, assets: new PageAssets(), log: core.log });
    this.refreshTimer = setInterval(() => this.refreshSummaries(), SUMMARY_REFRESH_MS);
    this.refreshTimer.unref();
    const shownHost = listen.host === "0.0.0.0" || listen.host === "::" ? "127.0.0.1" : listen.host.includes(":") ? `[${listen.host}]` : listen.host;
    this.startInfo = { description: `Web chat: http://${shownHost}:${this.server.port}/?token=${encodeURIComponent(token)}` };
    return this.startInfo;
  }

  async stop(): Promise<void> {
    clearInterval(this.refreshTimer);
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
    this.hub?.broadcast({ type: "message", conversation, message: toWire(stored) });
    this.publishSummary(conversation);
    return { id: stored.id };
  }

  async edit(route: string, ref: MessageRef, message: OutboundMessage): Promise<void> {
    const conversation = this.conversationOf(route);
    const existing = this.store().get(conversation, ref.id);
    if (!existing) throw new PlatformError("That message is gone.", { reason: "refused", detail: `web: edit of unknown message ${ref.id} on ${route}` });
    const updated: StoredMessage = { ...existing, text: message.text, format: message.format, buttons: message.buttons, kind: message.kind ?? existing.kind };
    this.store().update(conversation, updated);
    this.hub?.broadcast({ type: "message", conversation, message: toWire(updated) });
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

  private async onClientEvent(client: BrowserClient, event: ClientEvent): Promise<void> {
    const core = this.core!;
    // History and echoes render markdown, whose parser loads after start-up.
    await loadMarkdown();
    switch (event.type) {
      case "hello": {
        client.user = `web:${event.browser}`;
        const conversations = this.store().ids().map((id) => this.summary(id));
        client.send({ type: "welcome", user: client.user, commands: core.commandList(), conversations });
        return;
      }
      case "open":
        client.send({ type: "history", conversation: event.conversation, messages: this.store().messages(event.conversation).map(toWire) });
        return;
      case "send": {
        const { conversation, text } = event;
        const stored: StoredMessage = { id: randomBytes(8).toString("base64url"), role: "user", kind: "user", text, at: Date.now() };
        this.store().append(conversation, stored);
        this.hub?.broadcast({ type: "message", conversation, message: toWire(stored) });
        this.publishSummary(conversation);
        const route = this.routeOf(conversation);
        await core.handleMessage({ route, user: { id: client.user!, name: "web" }, text, direct: true, messageId: stored.id });
        this.publishSummary(conversation);
        return;
      }
      case "action": {
        const route = this.routeOf(event.conversation);
        const outcome = await core.handleAction({ route, user: { id: client.user!, name: "web" }, actionId: event.actionId });
        client.send({ type: "actionResult", conversation: event.conversation, messageId: event.messageId, ...outcome });
        return;
      }
      case "forget":
        await this.store().forget(event.conversation);
        this.published.delete(event.conversation);
        this.hub?.broadcast({ type: "forgotten", conversation: event.conversation });
        return;
    }
  }

  private summary(conversation: string): ConversationSummary {
    const messages = this.store().messages(conversation);
    const firstPrompt = messages.find((m) => m.role === "user" && !m.text.startsWith("/")) ?? messages.find((m) => m.role === "user");
    const title = firstPrompt ? oneLine(firstPrompt.text) : UNTITLED;
    const info = this.core?.routeInfo?.(this.routeOf(conversation));
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

  private refreshSummaries(): void {
    if (!this.hub?.size) return;
    for (const id of this.store().ids()) this.publishSummary(id);
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

function toWire(message: StoredMessage): WireMessage {
  return { id: message.id, role: message.role, kind: message.kind, html: renderMessageHtml(message.text, message.kind, message.format), buttons: message.buttons, at: message.at };
}

function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\./.test(host);
}

function oneLine(text: string): string {
  const line = text.trim().split("\n")[0].replace(/\s+/g, " ");
  return line.length > TITLE_MAX_CHARS ? `${line.slice(0, TITLE_MAX_CHARS - 1)}…` : line;
}
