// The browsers connected over WebSocket: parses and validates what they send, hands it to the
// adapter, and pushes events to all of them (one operator, so every browser sees every
// conversation). A client that stops answering pings, or lets its send buffer pile up, is dropped;
// the page reconnects and reloads what it shows.
import type { WebSocket } from "ws";
import type { PlatformLogger } from "../contract.js";
import { clientEventSchema, type ClientEvent, type ServerEvent } from "./protocol.js";

/** Ping interval; a client that missed one pong by the next ping is gone. */
const HEARTBEAT_INTERVAL_MS = 30_000;
/** A browser that cannot keep up (asleep laptop, huge backlog) is dropped past this buffered amount. */
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;
/** Inbound frames above this are refused by ws itself. */
export const MAX_INBOUND_FRAME_BYTES = 512 * 1024;

export interface BrowserClient {
  /** `web:<browser id>` once the page said hello. */
  user?: string;
  send(event: ServerEvent): void;
}

export type ClientEventHandler = (client: BrowserClient, event: ClientEvent) => Promise<void>;

interface Connection extends BrowserClient {
  socket: WebSocket;
  alive: boolean;
}

export class SocketHub {
  private readonly connections = new Set<Connection>();
  private heartbeat?: NodeJS.Timeout;

  constructor(
    private readonly onEvent: ClientEventHandler,
    private readonly log: PlatformLogger,
  ) {}

  start(): void {
    this.heartbeat = setInterval(() => this.checkAlive(), HEARTBEAT_INTERVAL_MS);
    this.heartbeat.unref();
  }

  get size(): number {
    return this.connections.size;
  }

  accept(socket: WebSocket): void {
    // One browser's requests are handled in the order it sent them: a hello still being handled
    // must not make the message right behind it look like one from a stranger.
    let chain: Promise<void> = Promise.resolve();
    const connection: Connection = {
      socket,
      alive: true,
      send: (event) => this.deliver(connection, JSON.stringify(event)),
    };
    this.connections.add(connection);
    socket.on("pong", () => (connection.alive = true));
    socket.on("close", () => this.connections.delete(connection));
    socket.on("error", (error) => this.log.debug({ err: error }, "web chat socket error"));
    socket.on("message", (data, isBinary) => {
      if (isBinary) return;
      let event: ClientEvent;
      try {
        event = clientEventSchema.parse(JSON.parse(String(data)));
      } catch {
        connection.send({ type: "error", text: "The server did not understand that request." });
        return;
      }
      chain = chain.then(async () => {
        if (event.type !== "hello" && !connection.user) {
          connection.send({ type: "error", text: "Say hello first." });
          return;
        }
        await this.onEvent(connection, event).catch((error: unknown) => {
          this.log.error({ err: error, event: event.type }, "web chat request failed");
          connection.send({ type: "error", conversation: "conversation" in event ? event.conversation : undefined, text: "Baton could not handle that; the log has the details." });
        });
      });
    });
  }

  broadcast(event: ServerEvent): void {
    if (this.connections.size === 0) return;
    const data = JSON.stringify(event);
    for (const connection of this.connections) if (connection.user) this.deliver(connection, data);
  }

  /** Closes every socket now (daemon stop): the pages start reconnecting. */
  closeAll(): void {
    clearInterval(this.heartbeat);
    for (const { socket } of this.connections) socket.terminate();
    this.connections.clear();
  }

  private deliver(connection: Connection, data: string): void {
    const { socket } = connection;
    if (socket.readyState !== socket.OPEN) return;
    if (socket.bufferedAmount > MAX_BUFFERED_BYTES) {
      this.log.warn("web chat: a browser fell too far behind; dropping its connection");
      socket.terminate();
      return;
    }
    socket.send(data);
  }

  private checkAlive(): void {
    for (const connection of this.connections) {
      if (!connection.alive) {
        connection.socket.terminate();
        continue;
      }
      connection.alive = false;
      connection.socket.ping();
    }
  }
}
