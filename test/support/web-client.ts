// A small client of the web chat's WebSocket, for tests that run Baton as a separate process
// (`baton start`): says hello, opens a conversation, sends messages and keeps each message's
// newest text (the HTML the server renders, as plain text).
import WebSocket from "ws";
import type { ServerEvent } from "../../src/platforms/web/protocol.js";

const ENTITIES: Record<string, string> = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#39;": "'", "&#x27;": "'" };

function htmlToText(html: string): string {
  return html
    .replace(/<br\s*\/?>/g, "\n")
    .replace(/<\/(p|li|h\d|pre|div)>/g, "\n")
    .replace(/<[^>]+>/g, "")
    .replace(/&(amp|lt|gt|quot|#39|#x27);/g, (e) => ENTITIES[e])
    .trim();
}

export class WebChatClient {
  /** Messages of the open conversation by id, newest text, in the order first seen (live or from its history). */
  readonly messages = new Map<string, string>();
  /** Baton's heartbeat pings this connection received (ws answers each with a pong). */
  pings = 0;
  /** The connection ended without this client closing it. */
  closedByServer = false;
  private closing = false;

  private constructor(
    private readonly socket: WebSocket,
    readonly conversation: string,
  ) {
    socket.on("message", (data) => {
      const event = JSON.parse(String(data)) as ServerEvent;
      if (event.type === "message" && event.conversation === conversation) this.messages.set(event.message.id, htmlToText(event.message.html));
      if (event.type === "history" && event.conversation === conversation) for (const message of event.messages) this.messages.set(message.id, htmlToText(message.html));
    });
    socket.on("ping", () => (this.pings += 1));
    socket.on("close", () => (this.closedByServer = !this.closing));
  }

  /** Connects with the URL `baton start` printed (it carries the token) and opens `conversation`. */
  static async open(pageUrl: string, conversation: string): Promise<WebChatClient> {
    const url = new URL(pageUrl);
    const socket = new WebSocket(`ws://${url.host}/ws?token=${url.searchParams.get("token")}`);
    await new Promise<void>((resolve, reject) => {
      socket.once("open", () => resolve());
      socket.once("error", reject);
    });
    const client = new WebChatClient(socket, conversation);
    socket.send(JSON.stringify({ type: "hello", browser: "test-browser-1" }));
    socket.send(JSON.stringify({ type: "open", conversation }));
    return client;
  }

  send(text: string): void {
    this.socket.send(JSON.stringify({ type: "send", conversation: this.conversation, text }));
  }

  transcript(): string {
    return [...this.messages.values()].join("\n");
  }

  async waitFor(match: RegExp, timeoutMs: number): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = [...this.messages.values()].find((t) => match.test(t));
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${String(match)}; transcript:\n${this.transcript()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  close(): void {
    this.closing = true;
    this.socket.terminate();
  }
}
