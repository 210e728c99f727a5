// Socket Mode half of the Slack fake: the WebSocket Slack opens to an app.
//
// Covers: `hello` on connect; envelopes `{envelope_id, type, payload, retry_attempt}` of type
// events_api / slash_commands / interactive; ack checking (`{envelope_id}` must name an envelope
// that was sent and not yet acked); redelivery of unacked envelopes on the next connection with
// retry_attempt + 1, as Slack does; acks lost in transit (`loseAcks`); dropping the connection
// abruptly; a `disconnect` message; Slack's liveness (`pingEvery`): a server ping every few seconds,
// and a connection closed that has not ponged the previous one; client pings are answered (ws
// answers them) and counted.
// Not covered: `accepts_response_payload` responses, several connections at once.
import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import { monotonicMs } from "../../../src/kernel/clock.js";

export type EnvelopeType = "events_api" | "slash_commands" | "interactive";

export interface Envelope {
  envelope_id: string;
  type: EnvelopeType;
  payload: Record<string, unknown>;
  retry_attempt: number;
  retry_reason: string;
  accepts_response_payload: boolean;
}

interface PendingEnvelope {
  envelope: Envelope;
  acked: (ack: Record<string, unknown>) => void;
}

export class FakeSocketMode {
  private readonly wss = new WebSocketServer({ noServer: true });
  private current?: WebSocket;
  private readonly pending = new Map<string, PendingEnvelope>();
  private readonly waitingForConnection: Array<() => void> = [];
  /** Every envelope sent, redeliveries included, in order. */
  readonly sent: Envelope[] = [];
  /** Every ack received. */
  readonly acks: Array<Record<string, unknown>> = [];
  /** Acks that named no outstanding envelope (unknown or acked twice). Should stay empty. */
  readonly protocolErrors: string[] = [];
  /** Acks thrown away on purpose (see loseAcks). */
  readonly lostAcks: Array<Record<string, unknown>> = [];
  /** Number of connections opened so far. */
  connections = 0;
  /** When each connection opened (monotonicMs, comparable across processes). */
  readonly connectedAt: number[] = [];
  private acksToLose = 0;
  /** Server pings sent, pongs received, client pings received, connections closed for a missing pong. */
  readonly liveness = { pings: 0, pongs: 0, clientPings: 0, closedForNoPong: 0 };
  private pinger?: NodeJS.Timeout;

  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.wss.handleUpgrade(request, socket, head, (ws) => this.onConnection(ws));
  }

  get connected(): boolean {
    return this.current !== undefined && this.current.readyState === this.current.OPEN;
  }

  /** Sends an envelope (waiting for a connection if there is none); `acked` resolves with the app's ack. */
  deliver(type: EnvelopeType, payload: Record<string, unknown>): { envelopeId: string; acked: Promise<Record<string, unknown>> } {
    const envelope: Envelope = {
      envelope_id: randomUUID(),
      type,
      payload,
      retry_attempt: 0,
      retry_reason: "",
      accepts_response_payload: type !== "events_api",
    };
    const acked = new Promise<Record<string, unknown>>((resolve) => {
      this.pending.set(envelope.envelope_id, { envelope, acked: resolve });
    });
    void this.whenConnected().then(() => this.transmit(envelope));
    return { envelopeId: envelope.envelope_id, acked };
  }

  /** The next `count` acks are lost in transit: their envelopes stay unacked and come again after a reconnect. */
  loseAcks(count: number): void {
    this.acksToLose += count;
  }

  /** Kills the TCP connection with no close frame, as a network failure would. */
  drop(): void {
    this.current?.terminate();
    this.current = undefined;
  }

  /** Slack's polite way to recycle a connection. */
  askToReconnect(): void {
    this.current?.send(JSON.stringify({ type: "disconnect", reason: "refresh_requested" }));
  }

  /**
   * Pings the open connection every `intervalMs`, as Slack's server does, and closes it (1006-like,
   * no close frame) when the previous ping got no pong by then.
   */
  pingEvery(intervalMs: number): void {
    clearInterval(this.pinger);
    let awaiting: WebSocket | undefined;
    this.pinger = setInterval(() => {
      const ws = this.current;
      if (!ws || ws.readyState !== ws.OPEN) return;
      if (awaiting === ws) {
        this.liveness.closedForNoPong += 1;
        this.drop();
        return;
      }
      awaiting = ws;
      ws.once("pong", () => {
        this.liveness.pongs += 1;
        if (awaiting === ws) awaiting = undefined;
      });
      this.liveness.pings += 1;
      ws.ping(Buffer.from(`server ping ${this.liveness.pings}`));
    }, intervalMs);
  }

  unacked(): Envelope[] {
    return [...this.pending.values()].map((p) => p.envelope);
  }

  async close(): Promise<void> {
    clearInterval(this.pinger);
    for (const client of this.wss.clients) client.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  private whenConnected(): Promise<void> {
    if (this.connected) return Promise.resolve();
    return new Promise((resolve) => this.waitingForConnection.push(resolve));
  }

  private transmit(envelope: Envelope): void {
    if (!this.connected) {
      // Redelivered on the next connection.
      return;
    }
    this.sent.push({ ...envelope });
    this.current?.send(JSON.stringify(envelope));
  }

  private onConnection(ws: WebSocket): void {
    this.connections += 1;
    this.connectedAt.push(monotonicMs());
    this.current = ws;
    ws.on("message", (data) => this.onAck(String(data)));
    ws.on("ping", () => (this.liveness.clientPings += 1));
    ws.on("close", () => {
      if (this.current === ws) this.current = undefined;
    });
    ws.send(JSON.stringify({ type: "hello", num_connections: 1, debug_info: { host: "fake-slack" }, connection_info: { app_id: "A0FAKE" } }));
    // Unacked envelopes from a lost connection come again, marked as retries.
    for (const { envelope } of this.pending.values()) {
      if (this.sent.some((sent) => sent.envelope_id === envelope.envelope_id)) {
        envelope.retry_attempt += 1;
        envelope.retry_reason = "timeout";
        this.transmit(envelope);
      }
    }
    for (const resolve of this.waitingForConnection.splice(0)) resolve();
  }

  private onAck(text: string): void {
    let ack: Record<string, unknown>;
    try {
      ack = JSON.parse(text) as Record<string, unknown>;
    } catch {
      this.protocolErrors.push(`not JSON: ${text.slice(0, 80)}`);
      return;
    }
    if (this.acksToLose > 0) {
      this.acksToLose -= 1;
      this.lostAcks.push(ack);
      return;
    }
    this.acks.push(ack);
    const id = String(ack.envelope_id ?? "");
    const pending = this.pending.get(id);
    if (!pending) {
      this.protocolErrors.push(`ack for unknown or already acked envelope ${id}`);
      return;
    }
    this.pending.delete(id);
    pending.acked(ack);
  }
}
