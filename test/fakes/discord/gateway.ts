// Gateway half of the Discord fake: the WebSocket that `GET /gateway/bot` points at, speaking
// API v10 JSON text frames (no zlib: discord.js asks for none without zlib-sync).
//
// Covers: op 10 HELLO on connect; op 1 HEARTBEAT → op 11 ACK; op 2 IDENTIFY (token checked → close
// 4004; privileged intents the application has not switched on → close 4014; unknown intent bits
// → 4013) → READY (session_id, resume_gateway_url, guilds as unavailable) then one GUILD_CREATE per
// guild; op 6 RESUME → the events the session missed after `seq` replayed in order, then RESUMED;
// an unknown or ended session → op 9 INVALID SESSION (d: false). Sessions survive an abnormal drop
// (and close code 4200, which discord.js uses to resume) and end on a 1000/1001 close, as Discord's
// do. Events are filtered by the identify's intents (Guilds, GuildMessages, DirectMessages), and
// without MessageContent a guild message's content, attachments and components arrive empty unless
// it mentions the bot. Several sessions on one token each get every event (that is what a second
// process on the same token sees).
// Heartbeats (`expectHeartbeats`): a connection that sends no op 1 within the interval plus a grace
// is closed with 4000 and counted in `heartbeatTimeouts`, the session left resumable.
// Not covered: zlib/etf, sharding, op 3/4/8 effects (recorded only), reconnect requests (op 7)
// unless a test sends one with `sendOp`.
import { randomBytes } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import { AppFlag, Intent, type FakeWorld } from "./model.js";

const KNOWN_INTENT_BITS = (1 << 26) - 1;
const PRIVILEGED: Array<{ intent: number; flags: number }> = [
  { intent: Intent.MessageContent, flags: AppFlag.GatewayMessageContent | AppFlag.GatewayMessageContentLimited },
  { intent: Intent.GuildMembers, flags: AppFlag.GatewayGuildMembers | AppFlag.GatewayGuildMembersLimited },
  { intent: Intent.GuildPresences, flags: AppFlag.GatewayPresence | AppFlag.GatewayPresenceLimited },
];

export interface GatewayPayload {
  op: number;
  d: any;
  s?: number | null;
  t?: string | null;
}

export interface GatewaySession {
  id: string;
  intents: number;
  seq: number;
  /** Every dispatch of this session, kept for replay on RESUME. */
  events: GatewayPayload[];
  socket?: WebSocket;
  /** The session's connection was dropped or closed: it waits for a RESUME. */
  detached: boolean;
}

/** What one event looks like to one session (undefined: the session does not get it). */
export type EventFor = (session: GatewaySession) => unknown;

export class FakeGateway {
  private readonly wss = new WebSocketServer({ noServer: true });
  private readonly sockets = new Set<WebSocket>();
  readonly sessions = new Map<string, GatewaySession>();
  /** Every frame each way, in order. */
  readonly frames: Array<{ from: "bot" | "discord"; payload: GatewayPayload }> = [];
  /** Close codes the fake sent. */
  readonly closes: number[] = [];
  connections = 0;
  identifies = 0;
  resumes = 0;
  private framesToLose = 0;
  /** Heartbeats received (op 1), and connections closed because one did not come in time. */
  heartbeats = 0;
  heartbeatTimeouts = 0;
  private heartbeatGraceMs?: number;
  private readonly readyWaiters: Array<() => void> = [];

  constructor(
    private readonly world: FakeWorld,
    private readonly token: () => string,
    private readonly url: () => string,
    private readonly heartbeatIntervalMs = 41_250,
  ) {}

  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.wss.handleUpgrade(request, socket, head, (ws) => this.onConnection(ws));
  }

  /** Sessions with an open connection. */
  get live(): GatewaySession[] {
    return [...this.sessions.values()].filter((s) => s.socket && !s.detached);
  }

  /** Resolves once `count` sessions are live (READY and GUILD_CREATEs sent, or RESUMED). */
  async waitForLive(count = 1): Promise<void> {
    while (this.live.length < count) await new Promise<void>((resolve) => this.readyWaiters.push(resolve));
  }

  /** Sends an event to every session that gets it, connected or waiting to resume. */
  dispatch(type: string, eventFor: EventFor): void {
    for (const session of this.sessions.values()) {
      const d = eventFor(session);
      if (d === undefined) continue;
      session.seq += 1;
      const payload = { op: 0, t: type, s: session.seq, d };
      session.events.push(payload);
      if (session.socket && !session.detached) {
        if (this.framesToLose > 0) this.framesToLose -= 1;
        else this.send(session.socket, payload);
      }
    }
  }

  /** The next `count` dispatches get a sequence number but never reach the bot (lost in a dying connection). */
  loseNextFrames(count: number): void {
    this.framesToLose += count;
  }

  /** Kills every connection with no close frame (code 1006 on the bot's side), as a network failure would. */
  drop(): void {
    for (const session of this.sessions.values()) session.detached = true;
    for (const socket of this.sockets) socket.terminate();
  }

  /** Closes every connection with a close code (4000: "unknown error, reconnect"; 4014 …). */
  closeAll(code: number, reason = ""): void {
    for (const socket of this.sockets) this.closeSocket(socket, code, reason);
  }

  /** Closes (4000) a connection whose next heartbeat is later than the interval plus `graceMs`, as Discord does. */
  expectHeartbeats(graceMs: number): void {
    this.heartbeatGraceMs = graceMs;
  }

  sendOp(payload: GatewayPayload): void {
    for (const session of this.live) this.send(session.socket!, payload);
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.terminate();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
  }

  // ── connection ──────────────────────────────────────────────────────────────────────────

  private onConnection(ws: WebSocket): void {
    this.connections += 1;
    this.sockets.add(ws);
    let session: GatewaySession | undefined;
    let heartbeatDue: NodeJS.Timeout | undefined;
    const awaitHeartbeat = () => {
      clearTimeout(heartbeatDue);
      if (this.heartbeatGraceMs === undefined) return;
      heartbeatDue = setTimeout(() => {
        this.heartbeatTimeouts += 1;
        this.closeSocket(ws, 4000, "Heartbeat timed out");
      }, this.heartbeatIntervalMs + this.heartbeatGraceMs);
    };
    awaitHeartbeat();
    ws.on("message", (data, isBinary) => {
      if (isBinary) return this.closeSocket(ws, 4002, "Decode error");
      let payload: GatewayPayload;
      try {
        payload = JSON.parse(String(data));
      } catch {
        return this.closeSocket(ws, 4002, "Decode error");
      }
      this.frames.push({ from: "bot", payload });
      if (payload.op === 1) (this.heartbeats += 1), awaitHeartbeat();
      session = this.onPayload(ws, payload, session);
    });
    ws.on("close", (code) => {
      clearTimeout(heartbeatDue);
      this.sockets.delete(ws);
      if (!session || session.socket !== ws) return;
      session.socket = undefined;
      session.detached = true;
      // A clean close ends the session; anything else leaves it resumable.
      if (code === 1000 || code === 1001) this.sessions.delete(session.id);
    });
    this.send(ws, { op: 10, d: { heartbeat_interval: this.heartbeatIntervalMs }, s: null, t: null });
  }

  private onPayload(ws: WebSocket, payload: GatewayPayload, session: GatewaySession | undefined): GatewaySession | undefined {
    switch (payload.op) {
      case 1:
        this.send(ws, { op: 11, d: null, s: null, t: null });
        return session;
      case 2:
        if (session) return (this.closeSocket(ws, 4005, "Already authenticated"), session);
        return this.identify(ws, payload.d);
      case 6:
        if (session) return (this.closeSocket(ws, 4005, "Already authenticated"), session);
        return this.resume(ws, payload.d);
      case 3:
      case 4:
      case 8:
        if (!session) this.closeSocket(ws, 4003, "Not authenticated");
        return session;
      default:
        this.closeSocket(ws, 4001, "Unknown opcode");
        return session;
    }
  }

  private identify(ws: WebSocket, d: { token?: string; intents?: number }): GatewaySession | undefined {
    this.identifies += 1;
    if (d?.token !== this.token()) return void this.closeSocket(ws, 4004, "Authentication failed.");
    const intents = Number(d.intents);
    if (!Number.isInteger(intents) || intents < 0 || (intents & ~KNOWN_INTENT_BITS) !== 0) return void this.closeSocket(ws, 4013, "Invalid intent(s).");
    if (PRIVILEGED.some((p) => (intents & p.intent) !== 0 && (this.world.applicationFlags & p.flags) === 0)) return void this.closeSocket(ws, 4014, "Disallowed intent(s).");

    const session: GatewaySession = { id: randomBytes(16).toString("hex"), intents, seq: 0, events: [], socket: ws, detached: false };
    this.sessions.set(session.id, session);
    const guildIds = [...this.world.guilds.keys()];
    const ready = {
      v: 10,
      user: this.world.apiUser(this.world.bot),
      guilds: guildIds.map((id) => ({ id, unavailable: true })),
      session_id: session.id,
      session_type: "normal",
      resume_gateway_url: this.url(),
      shard: [0, 1],
      application: { id: this.world.applicationId, flags: this.world.applicationFlags },
      private_channels: [],
      relationships: [],
      presences: [],
      guild_join_requests: [],
      geo_ordered_rtc_regions: [],
      user_settings: {},
      _trace: ["fake-discord"],
    };
    this.dispatchTo(session, "READY", ready);
    if ((intents & Intent.Guilds) !== 0) for (const id of guildIds) this.dispatchTo(session, "GUILD_CREATE", this.world.apiGuildCreate(id));
    this.wakeReadyWaiters();
    return session;
  }

  private resume(ws: WebSocket, d: { token?: string; session_id?: string; seq?: number }): GatewaySession | undefined {
    this.resumes += 1;
    if (d?.token !== this.token()) return void this.closeSocket(ws, 4004, "Authentication failed.");
    const session = d.session_id ? this.sessions.get(d.session_id) : undefined;
    if (!session || typeof d.seq !== "number" || d.seq > session.seq) {
      this.send(ws, { op: 9, d: false, s: null, t: null });
      return undefined;
    }
    if (session.socket && session.socket !== ws) session.socket.terminate();
    session.socket = ws;
    session.detached = false;
    for (const event of session.events) if ((event.s ?? 0) > d.seq) this.send(ws, event);
    this.dispatchTo(session, "RESUMED", { _trace: ["fake-discord"] });
    this.wakeReadyWaiters();
    return session;
  }

  private dispatchTo(session: GatewaySession, type: string, d: unknown): void {
    session.seq += 1;
    const payload = { op: 0, t: type, s: session.seq, d };
    session.events.push(payload);
    this.send(session.socket!, payload);
  }

  private send(ws: WebSocket, payload: GatewayPayload): void {
    if (ws.readyState !== ws.OPEN) return;
    this.frames.push({ from: "discord", payload });
    ws.send(JSON.stringify(payload));
  }

  private closeSocket(ws: WebSocket, code: number, reason: string): void {
    this.closes.push(code);
    if (ws.readyState === ws.OPEN) ws.close(code, reason);
  }

  private wakeReadyWaiters(): void {
    for (const wake of this.readyWaiters.splice(0)) wake();
  }
}
