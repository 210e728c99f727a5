// The web chat page: keeps the conversation list and the open conversation in step with the
// server's events, and sends what the operator types or clicks. Entry point of the page script.
import type { ConversationSummary, ServerEvent, WireMessage } from "../protocol.js";
import { Composer } from "./composer.js";
import { Attachments } from "./attachments.js";
import { Connection, type ConnectionState } from "./connection.js";
import { byId, randomId, toast } from "./dom.js";
import { MessageView } from "./messages.js";
import { describeHost, Sidebar, stateOf } from "./sidebar.js";

const BROWSER_ID_KEY = "baton.browser";
const CONVERSATION_ID_CHARS = 12;
const BROWSER_ID_CHARS = 16;
/** The "working…" line stays this long after the last typing beat (the server beats every 3 s). */
const TYPING_VISIBLE_MS = 4_500;
const NARROW_LAYOUT_PX = 760;
/** Typing signals to Baton go at most this often per conversation (Discord's clients send theirs about every 8–10 s). */
const TYPING_SIGNAL_MS = 5_000;
/** Below this width the composer's long placeholder would be cut: the short one instead. */
const SHORT_PLACEHOLDER_PX = 480;

class ChatPage {
  private readonly conversations = new Map<string, ConversationSummary>();
  private readonly unread = new Set<string>();
  private current: string;
  private typingTimer?: number;
  /** The last typing signal sent (typing()). */
  private typingSignalled?: { conversation: string; at: number };
  private readonly connection: Connection;
  private readonly messages: MessageView;
  private readonly sidebar: Sidebar;
  private readonly composer: Composer;

  constructor() {
    this.current = location.hash.slice(1) || randomId(CONVERSATION_ID_CHARS);
    this.messages = new MessageView(
      byId("messages"),
      (message, button, element) => this.press(message, button.id, element),
      (text) => (text.startsWith("/") || text.endsWith("?") ? this.sendText(text) : this.composer.fill(text)),
    );
    this.sidebar = new Sidebar(
      byId("conversations"),
      (id) => this.select(id),
      (id) => this.forget(id),
    );
    const attachments = new Attachments(byId("attachments"), byId<HTMLInputElement>("file-input"), byId<HTMLButtonElement>("attach"), byId("composer"));
    this.composer = new Composer(
      byId<HTMLFormElement>("composer"),
      byId<HTMLTextAreaElement>("input"),
      byId("hints"),
      byId<HTMLButtonElement>("stop"),
      (text, files) => this.sendText(text, files),
      attachments,
      () => this.typing(),
    );
    this.connection = new Connection(
      browserId(),
      (event) => this.onEvent(event),
      (state) => this.onConnection(state),
    );
    byId("new-chat").addEventListener("click", () => this.select(randomId(CONVERSATION_ID_CHARS)));
    byId("toggle-sidebar").addEventListener("click", (event) => {
      event.stopPropagation();
      byId("app").classList.toggle("sidebar-open");
    });
    // On a narrow screen the list covers the chat, over a backdrop; a tap beside it closes it.
    document.querySelector("main")?.addEventListener("click", () => byId("app").classList.remove("sidebar-open"));
    byId("backdrop").addEventListener("click", () => byId("app").classList.remove("sidebar-open"));
    fitPlaceholder(byId<HTMLTextAreaElement>("input"));
    window.addEventListener("hashchange", () => {
      const id = location.hash.slice(1);
      if (id && id !== this.current) this.select(id);
    });
  }

  start(): void {
    this.ensureListed(this.current);
    this.showCurrent();
    this.messages.show([]);
    this.connection.connect();
    this.composer.focus();
  }

  private onEvent(event: ServerEvent): void {
    switch (event.type) {
      case "welcome":
        this.composer.setCommands(event.commands);
        for (const summary of event.conversations) this.conversations.set(summary.id, summary);
        // Nothing selected yet: open the newest conversation instead of an empty one.
        if (!location.hash && event.conversations.length > 0) this.current = [...event.conversations].sort((a, b) => b.updatedAt - a.updatedAt)[0].id;
        // The address names the open conversation, so a reload or a second tab opens the same one.
        history.replaceState(null, "", `#${this.current}`);
        this.ensureListed(this.current);
        this.connection.send({ type: "open", conversation: this.current });
        this.showCurrent();
        return;
      case "history":
        if (event.conversation === this.current) this.messages.show(event.messages);
        return;
      case "message":
        if (event.conversation === this.current) {
          this.messages.upsert(event.message);
          if (!byId("typing").hidden) this.labelTyping();
        } else if (event.message.role === "agent" && !this.unread.has(event.conversation)) {
          this.unread.add(event.conversation);
          this.showCurrent();
        }
        return;
      case "conversation":
        this.conversations.set(event.conversation.id, event.conversation);
        this.showCurrent();
        return;
      case "forgotten":
        this.conversations.delete(event.conversation);
        if (event.conversation === this.current) this.select(randomId(CONVERSATION_ID_CHARS));
        else this.showCurrent();
        return;
      case "typing":
        if (event.conversation === this.current) this.showTyping();
        return;
      case "actionResult":
        toast(event.text, event.ok ? "ok" : "error");
        return;
      case "error":
        toast(event.text, "error");
        return;
    }
  }

  private onConnection(state: ConnectionState): void {
    const label = byId("connection");
    label.textContent = { connecting: "Connecting…", open: "Connected", closed: "Reconnecting…", unauthorized: "Not authorised" }[state];
    label.dataset.state = state;
    const banner = byId("banner");
    banner.hidden = state === "open" || state === "connecting";
    if (state === "closed") banner.textContent = "Connection to Baton lost. Reconnecting…";
    if (state === "unauthorized") banner.textContent = "This browser is not signed in. Open the link that `baton start` printed (it ends in ?token=…).";
  }

  /** Tells Baton the person types here, at most every TYPING_SIGNAL_MS per conversation. */
  private typing(): void {
    const now = Date.now();
    if (this.typingSignalled?.conversation === this.current && now - this.typingSignalled.at < TYPING_SIGNAL_MS) return;
    if (this.connection.send({ type: "typing", conversation: this.current })) this.typingSignalled = { conversation: this.current, at: now };
  }

  private sendText(text: string, files?: string[]): boolean {
    // The next message typed is news again.
    this.typingSignalled = undefined;
    if (!this.connection.send({ type: "send", conversation: this.current, text, ...(files?.length ? { files } : {}) })) {
      toast("Not connected to Baton; try again in a moment.", "error");
      return false;
    }
    return true;
  }

  private press(message: WireMessage, actionId: string, element: HTMLButtonElement): void {
    for (const button of element.parentElement?.querySelectorAll("button") ?? []) button.disabled = true;
    element.classList.add("pressed");
    if (!this.connection.send({ type: "action", conversation: this.current, messageId: message.id, actionId })) {
      toast("Not connected to Baton; try again in a moment.", "error");
      for (const button of element.parentElement?.querySelectorAll("button") ?? []) button.disabled = false;
    }
  }

  private select(id: string): void {
    if (id !== this.current) {
      this.current = id;
      history.replaceState(null, "", `#${id}`);
      this.hideTyping();
      this.messages.show([]);
      this.connection.send({ type: "open", conversation: id });
    }
    this.unread.delete(id);
    this.ensureListed(id);
    this.showCurrent();
    byId("app").classList.remove("sidebar-open");
    if (window.innerWidth > NARROW_LAYOUT_PX) this.composer.focus();
  }

  private forget(id: string): void {
    const summary = this.conversations.get(id);
    if (summary && summary.updatedAt === 0) {
      // Never sent: only this page knows it.
      this.conversations.delete(id);
      if (id === this.current) this.select(randomId(CONVERSATION_ID_CHARS));
      else this.showCurrent();
      return;
    }
    if (!confirm(`Remove "${summary?.title ?? "this conversation"}" from the list? Its history here is deleted; the agent session stays.`)) return;
    this.connection.send({ type: "forget", conversation: id });
  }

  /** A conversation this page opened but never sent to is listed too, until it is used or left. */
  private ensureListed(id: string): void {
    if (!this.conversations.has(id)) this.conversations.set(id, { id, title: "New chat", updatedAt: 0, running: false });
    for (const [other, summary] of this.conversations) if (other !== id && summary.updatedAt === 0) this.conversations.delete(other);
  }

  private showCurrent(): void {
    this.sidebar.render([...this.conversations.values()], this.current, this.unread);
    const summary = this.conversations.get(this.current);
    byId("chat-title").textContent = summary?.title ?? "New chat";
    const info = summary?.info;
    byId("chat-meta").textContent =
      summary && info ? `${describeHost(summary)}${info.session ? ` · session ${info.session.slice(0, 8)}` : ""} · ${info.workspace}` : "A new conversation starts a fresh agent session";
    const badge = byId("chat-state");
    const state = summary ? stateOf(summary) : "new";
    badge.hidden = state === "new";
    badge.textContent = state;
    badge.dataset.state = state;
    this.composer.setRunning(summary?.running ?? false);
    if (!summary?.running) this.hideTyping();
    document.title = summary?.updatedAt ? `${summary.title} · Baton` : "Baton";
  }

  private showTyping(): void {
    this.labelTyping();
    byId("typing").hidden = false;
    window.clearTimeout(this.typingTimer);
    this.typingTimer = window.setTimeout(() => this.hideTyping(), TYPING_VISIBLE_MS);
  }

  /** While an approval waits for an answer the agent is not working: it waits for you. */
  private labelTyping(): void {
    byId("typing-label").textContent = this.messages.awaitingApproval() ? "Waiting for your approval…" : "Agent is working…";
  }

  private hideTyping(): void {
    window.clearTimeout(this.typingTimer);
    byId("typing").hidden = true;
  }
}

/** The long placeholder where it fits, the short one on a phone (it follows rotation and resizing). */
function fitPlaceholder(input: HTMLTextAreaElement): void {
  const long = input.placeholder;
  const short = input.dataset.shortPlaceholder ?? long;
  const narrow = window.matchMedia(`(max-width: ${SHORT_PLACEHOLDER_PX}px)`);
  const apply = () => (input.placeholder = narrow.matches ? short : long);
  narrow.addEventListener("change", apply);
  apply();
}

function browserId(): string {
  let id = localStorage.getItem(BROWSER_ID_KEY);
  if (!id) {
    id = randomId(BROWSER_ID_CHARS);
    localStorage.setItem(BROWSER_ID_KEY, id);
  }
  return id;
}

new ChatPage().start();
