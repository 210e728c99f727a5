// A web chat client for the soak test: trades the token for the cookie, speaks the WebSocket
// protocol as the page does, and keeps what each conversation shows (messages and route info).
import WebSocket from "ws";
import type { ConversationSummary, ServerEvent } from "../../src/platforms/web/protocol.js";

export interface Shown {
  /** Latest text of each message, tags stripped, by message id. */
  messages: Map<string, string>;
  /** Messages that carry buttons (approvals), by message id: the buttons' action ids. */
  buttons: Map<string, string[]>;
  info?: ConversationSummary["info"];
}

function plain(html: string): string {
  return html
    .replace(/<[^>]*>/g, "")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}

export class SoakWebClient {
  readonly conversations = new Map<string, Shown>();
  private socket?: WebSocket;
  welcome?: Extract<ServerEvent, { type: "welcome" }>;
  private readonly actionResults = new Map<string, { ok: boolean; text: string }>();

  static async connect(url: string, browser: string): Promise<SoakWebClient> {
    const client = new SoakWebClient();
    const response = await fetch(url, { redirect: "manual" });
    const cookie = (response.headers.get("set-cookie") ?? "").split(";")[0];
    if (!cookie) throw new Error(`no cookie from ${new URL(url).origin} (status ${response.status})`);
    const socket = new WebSocket(`ws://${new URL(url).host}/ws`, { headers: { cookie } });
    client.socket = socket;
    socket.on("message", (data) => client.receive(JSON.parse(data.toString()) as ServerEvent));
    await new Promise<void>((resolve, reject) => {
      socket.once("open", () => resolve());
      socket.once("error", reject);
    });
    socket.on("error", () => undefined); // a killed daemon drops the socket; the test reconnects
    socket.send(JSON.stringify({ type: "hello", browser }));
    await client.until(() => client.welcome !== undefined, 30_000, "the welcome");
    return client;
  }

  private shown(conversation: string): Shown {
    let s = this.conversations.get(conversation);
    if (!s) this.conversations.set(conversation, (s = { messages: new Map(), buttons: new Map() }));
    return s;
  }

  private receive(event: ServerEvent): void {
    if (event.type === "welcome") {
      this.welcome = event;
      for (const c of event.conversations) this.shown(c.id).info = c.info;
    } else if (event.type === "message") {
      if (event.message.role !== "agent") return;
      const shown = this.shown(event.conversation);
      shown.messages.set(event.message.id, plain(event.message.html));
      const ids = (event.message.buttons ?? []).flat().map((b) => b.id);
      if (ids.length > 0) shown.buttons.set(event.message.id, ids);
      else shown.buttons.delete(event.message.id);
    } else if (event.type === "actionResult") {
      this.actionResults.set(event.messageId, { ok: event.ok, text: event.text });
    } else if (event.type === "conversation") {
      this.shown(event.conversation.id).info = event.conversation.info;
    }
  }

  send(conversation: string, text: string): void {
    this.socket!.send(JSON.stringify({ type: "open", conversation }));
    this.socket!.send(JSON.stringify({ type: "send", conversation, text }));
  }

  /** Presses a button as the page does; resolves with the daemon's answer. */
  async press(conversation: string, messageId: string, actionId: string, timeoutMs: number): Promise<{ ok: boolean; text: string }> {
    this.actionResults.delete(messageId);
    this.socket!.send(JSON.stringify({ type: "action", conversation, messageId, actionId }));
    await this.until(() => this.actionResults.has(messageId), timeoutMs, `the answer to a press in ${conversation}`);
    return this.actionResults.get(messageId)!;
  }

  /** A message with buttons that shows up after the ones in `known`. */
  async waitForButtons(conversation: string, known: Set<string>, timeoutMs: number): Promise<{ messageId: string; actions: string[] }> {
    let found: { messageId: string; actions: string[] } | undefined;
    await this.until(
      () => {
        for (const [messageId, actions] of this.shown(conversation).buttons) if (!known.has(messageId)) return !!(found = { messageId, actions });
        return false;
      },
      timeoutMs,
      `an approval in ${conversation}`,
    );
    return found!;
  }

  /** The first agent message of the conversation that matches, once it shows. */
  async waitFor(conversation: string, pattern: RegExp, timeoutMs: number): Promise<string> {
    let found: string | undefined;
    await this.until(
      () => {
        for (const text of this.shown(conversation).messages.values()) if (pattern.test(text)) return !!(found = text);
        return false;
      },
      timeoutMs,
      `${pattern} in ${conversation}`,
    );
    return found!;
  }

  async until(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`soak: timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  close(): void {
    this.socket?.terminate();
  }
}
