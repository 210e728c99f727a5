// The page's WebSocket to Baton: connects, says hello, reconnects with backoff when the daemon goes
// away (restart), and tells a lost connection from a refused one (401: the cookie is gone).
import type { ClientEvent, ServerEvent } from "../protocol.js";

const FIRST_RETRY_MS = 500;
const MAX_RETRY_MS = 5_000;

export type ConnectionState = "connecting" | "open" | "closed" | "unauthorized";

export class Connection {
  private socket?: WebSocket;
  private retryMs = FIRST_RETRY_MS;

  constructor(
    private readonly browserId: string,
    private readonly onEvent: (event: ServerEvent) => void,
    private readonly onState: (state: ConnectionState) => void,
  ) {}

  connect(): void {
    this.onState("connecting");
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const socket = new WebSocket(`${scheme}//${location.host}/ws`);
    this.socket = socket;
    socket.addEventListener("open", () => {
      this.retryMs = FIRST_RETRY_MS;
      this.send({ type: "hello", browser: this.browserId });
      this.onState("open");
    });
    socket.addEventListener("message", (message) => {
      try {
        this.onEvent(JSON.parse(String(message.data)) as ServerEvent);
      } catch (error) {
        console.error("baton: bad event", error);
      }
    });
    socket.addEventListener("close", () => {
      if (this.socket !== socket) return;
      this.socket = undefined;
      void this.afterClose();
    });
  }

  send(event: ClientEvent): boolean {
    if (this.socket?.readyState !== WebSocket.OPEN) return false;
    this.socket.send(JSON.stringify(event));
    return true;
  }

  private async afterClose(): Promise<void> {
    // A WebSocket cannot see the status of a refused upgrade; a plain request can.
    const status = await fetch("/api/ping", { cache: "no-store" }).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 401) {
      this.onState("unauthorized");
      return;
    }
    this.onState("closed");
    window.setTimeout(() => this.connect(), this.retryMs);
    this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
  }
}
