// The browsers connected over WebSocket: parses and validates what they send, hands it to the
// adapter, and pushes events to all of them (one operator, so every browser sees every
// conversation). A browser that reads slower than messages come gets no growing buffer: past a
// soft limit its messages are held, only the newest version of each, and sent when it has read
// what it had (past a count of held messages, its conversation is sent whole from the history
// instead). One that stops answering pings, or lets its buffer reach the hard limit, is dropped;
// the page reconnects and reloads what it shows.
import type { WebSocket } from "ws";
import type { PlatformLogger } from "../contract.js";
import { clientEventSchema, type ClientEvent, type ServerEvent } from "./protocol.js";

/** Ping interval; a client that missed one pong by the next ping is gone. */
const HEARTBEAT_INTERVAL_MS = 30_000;
/** A browser that cannot keep up (asleep laptop, huge backlog) is dropped past this buffered amount. */
const MAX_BUFFERED_BYTES = 8 * 1024 * 1024;
/** Past this buffered amount a browser's message events are held (newest version of each) until it reads. */
const SOFT_BUFFERED_BYTES = 1024 * 1024;
/** Messages held per browser; past it, a conversation is sent whole from the history when it catches up. */
const MAX_HELD_MESSAGES = 200;
/** How often a browser with held messages is checked for room in its buffer. */
const CATCH_UP_CHECK_MS = 200;
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
  /** Message events held while the browser is behind: by conversation and message id, in first-seen order. */
  held: Map<string, { conversation: string; data: string }>;
  /** Conversations to send whole (their held messages were too many) once the browser catches up. */
  reload: Set<string>;
  catchUp?: NodeJS.Timeout;
}

export class SocketHub {
  private readonly connections = new Set<Connection>();
  private heartbeat?: NodeJS.Timeout;

  constructor(
    private readonly onEvent: ClientEventHandler,
    private readonly log: PlatformLogger,
    /** A conversation's recent messages as one event (the history), for a browser that fell behind. */
    private readonly snapshot: (conversation: string) => ServerEvent = (conversation) => ({ type: "history", conversation, messages: [] }),
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
      held: new Map(),
      reload: new Set(),
      send: (event) => this.deliver(connection, JSON.stringify(event), event),
    };
    this.connections.add(connection);
    socket.on("pong", () => (connection.alive = true));
    socket.on("close", () => {
      clearInterval(connection.catchUp);
      this.connections.delete(connection);
    });
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
    for (const connection of this.connections) if (connection.user) this.deliver(connection, data, event);
  }

  /** Closes every socket now (daemon stop): the pages start reconnecting. */
  closeAll(): void {
    clearInterval(this.heartbeat);
    for (const { socket, catchUp } of this.connections) {
      clearInterval(catchUp);
      socket.terminate();
    }
    this.connections.clear();
  }

  private deliver(connection: Connection, data: string, event: ServerEvent): void {
    const { socket } = connection;
    if (socket.readyState !== socket.OPEN) return;
    if (socket.bufferedAmount > MAX_BUFFERED_BYTES) {
      this.log.warn("web chat: a browser fell too far behind; dropping its connection");
      socket.terminate();
      return;
    }
    const behind = socket.bufferedAmount > SOFT_BUFFERED_BYTES || connection.held.size > 0 || connection.reload.size > 0;
    if (behind && event.type === "message") {
      this.hold(connection, event.conversation, event.message.id, data);
      return;
    }
    // "Working…" means nothing to a browser that is behind.
    if (behind && event.type === "typing") return;
    socket.send(data);
  }

  private hold(connection: Connection, conversation: string, messageId: string, data: string): void {
    if (connection.reload.has(conversation)) return;
    // An update keeps the message's place: the page shows messages in the order they first came.
    connection.held.set(`${conversation}\u0000${messageId}`, { conversation, data });
    if (connection.held.size > MAX_HELD_MESSAGES) {
      for (const [key, held] of connection.held) if (held.conversation === conversation) connection.held.delete(key);
      connection.reload.add(conversation);
    }
    connection.catchUp ??= setInterval(() => this.catchUp(connection), CATCH_UP_CHECK_MS);
  }

  /** Sends what was held once the browser has read most of its buffer; stops again when it fills. */
  private catchUp(connection: Connection): void {
    const { socket } = connection;
    if (socket.readyState !== socket.OPEN || socket.bufferedAmount > SOFT_BUFFERED_BYTES / 2) return;
    for (const conversation of connection.reload) {
      connection.reload.delete(conversation);
      socket.send(JSON.stringify(this.snapshot(conversation)));
      if (socket.bufferedAmount > SOFT_BUFFERED_BYTES) return;
    }
    for (const [key, held] of connection.held) {
      connection.held.delete(key);
      socket.send(held.data);
      if (socket.bufferedAmount > SOFT_BUFFERED_BYTES) return;
    }
    clearInterval(connection.catchUp);
    connection.catchUp = undefined;
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
