// The gateway session across instances (store.url). The leader keeps its session's id, sequence
// and resume URL in the shared cursors as it hands each dispatch over; Discord keeps a session
// whose connection dropped (a kill -9, a step-down closing with a resumable code) and queues its
// events. The instance that takes over connects a session of its own (discord.js builds its user,
// guild and thread caches only from a READY), then RESUMEs the stored one once through
// @discordjs/ws: Discord replays what arrived while no instance was connected, and that session
// is then ended. The two overlap for a moment: the adapter drops an event it has already handled.
import { setImmediate as afterPendingWork } from "node:timers/promises";
import { CloseCodes, WebSocketManager, WebSocketShardEvents, type SessionInfo } from "@discordjs/ws";
import type { GatewayDispatchPayload, REST } from "discord.js";
import type { PlatformCursors } from "../contract.js";

/** Longest wait for the stored session's replay; Discord answers a RESUME within a second or two. */
const REPLAY_TIMEOUT_MS = 15_000;

/** A gateway session as stored, with the bot it belongs to (another token's session is never resumed). */
export interface StoredSession extends SessionInfo {
  botUserId: string;
}

/** A dispatch as the raw gateway event carries it. */
interface RawDispatch {
  t?: string | null;
  s?: number | null;
  d?: { session_id?: string; resume_gateway_url?: string; user?: { id?: string } };
}

/** Follows the live session through the client's raw dispatches and saves it once saving is on. */
export class GatewaySessionCursor {
  private current?: StoredSession;
  private saving = false;

  constructor(
    private readonly cursors: PlatformCursors,
    private readonly key: string,
  ) {}

  /** The session the last leader stored, if any and readable. */
  async load(): Promise<StoredSession | undefined> {
    const raw = await this.cursors.get(this.key);
    if (!raw) return undefined;
    try {
      const stored = JSON.parse(raw) as Partial<StoredSession>;
      const complete = typeof stored.sessionId === "string" && typeof stored.sequence === "number" && typeof stored.resumeURL === "string" && typeof stored.botUserId === "string";
      return complete ? ({ shardId: 0, shardCount: 1, ...stored } as StoredSession) : undefined;
    } catch {
      return undefined;
    }
  }

  /** The session this instance is connected on (after its READY). */
  get session(): StoredSession | undefined {
    return this.current;
  }

  /** For discord.js's raw event: READY starts a session, every dispatch advances its sequence. */
  observe(packet: RawDispatch, shardId: number, shardCount: number): void {
    if (typeof packet.s !== "number") return;
    if (packet.t === "READY" && packet.d?.session_id && packet.d.resume_gateway_url) {
      this.current = {
        sessionId: packet.d.session_id,
        resumeURL: packet.d.resume_gateway_url,
        sequence: packet.s,
        shardId,
        shardCount,
        botUserId: packet.d.user?.id ?? "",
      };
    } else if (this.current && packet.s > this.current.sequence) {
      this.current.sequence = packet.s;
    } else return;
    // The raw event comes before discord.js hands the dispatch on: saved once it is handed over.
    if (this.saving) void afterPendingWork().then(() => this.save());
  }

  /** Saves the live session from now on (after the last leader's has been replayed). */
  startSaving(): void {
    this.saving = true;
    this.save();
  }

  private save(): void {
    if (this.current?.botUserId) this.cursors.set(this.key, JSON.stringify(this.current));
  }
}

export interface ReplayOptions {
  token: string;
  intents: number;
  rest: REST;
  debug(message: string): void;
}

export interface Replay {
  /** False when the session was gone (ended, or expired: Discord keeps one a few minutes) or did not answer. */
  resumed: boolean;
  /** The dispatches Discord replayed, in order. */
  events: GatewayDispatchPayload[];
}

/** RESUMEs `stored` once, collects what Discord replays, then ends the session. It never IDENTIFYs. */
export async function replayStoredSession(stored: StoredSession, options: ReplayOptions): Promise<Replay> {
  const events: GatewayDispatchPayload[] = [];
  let session: SessionInfo | null = stored;
  let settle: (outcome: boolean) => void = () => undefined;
  const outcome = new Promise<boolean>((resolve) => (settle = resolve));
  const manager = new WebSocketManager({
    token: options.token,
    intents: options.intents,
    rest: options.rest,
    shardCount: stored.shardCount,
    shardIds: [stored.shardId],
    retrieveSessionInfo: () => session,
    updateSessionInfo: (_shardId, info) => {
      session = info;
    },
    // Asked only when the session cannot be resumed: give up instead of starting another.
    buildIdentifyThrottler: () => ({
      waitForIdentify: (_shardId, signal) => {
        settle(false);
        return new Promise((_resolve, reject) => signal.addEventListener("abort", () => reject(new Error("replay ended"))));
      },
    }),
  });
  manager.on(WebSocketShardEvents.Debug, ({ message }) => options.debug(`[replay] ${message}`));
  manager.on(WebSocketShardEvents.Dispatch, ({ data }) => {
    // RESUMED comes after the replayed events, each through the same steps: the replay is complete.
    if (data.t === "RESUMED") settle(true);
    else events.push(data);
  });
  manager.connect().catch((error: Error) => {
    options.debug(`[replay] could not connect: ${error.message}`);
    settle(false);
  });
  const timer = setTimeout(() => settle(false), REPLAY_TIMEOUT_MS);
  const resumed = await outcome;
  clearTimeout(timer);
  // A normal close ends the session at Discord: nothing more is queued for it.
  await Promise.resolve(manager.destroy({ code: CloseCodes.Normal, reason: "replayed after a takeover" })).catch(() => undefined);
  return { resumed, events };
}
