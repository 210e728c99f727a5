// One leader among the instances that share a database. The leader holds a session-level advisory
// lock on a connection of its own and renews a lease row (`lease_until`, in the database's clock);
// each takeover increments the epoch that fences every write (see migrations.ts).
//
// How leadership ends:
// - the leader's process dies: its connection closes, PostgreSQL frees the lock at once, and a
//   standby's next try takes it;
// - the leader is cut from the database: it cannot renew, and stops itself once `leaseMs` has passed
//   since the start of its last successful renewal and one last renewal gets no answer within half
//   a lease (a busy machine delays timers and answers; that is no reason to hand over); the server
//   may keep the dead session (and the lock) for much longer, so a standby that sees the lease
//   expired by more than a grace period (a lease) ends that session (pg_terminate_backend) and takes the lock;
// - a newer epoch exists (another instance took over): the renewal matches no row.
import pg from "pg";

/** pg_advisory_lock key of the leadership ("baton-le" as a 64-bit number). */
const LEADER_LOCK = "7089066341296202853";

export interface LeaseTiming {
  /** How often the leader renews and a standby tries to take over. */
  renewMs: number;
  /** How long a lease lasts without renewal; a cut-off leader stops itself within this. */
  leaseMs: number;
}

const DEFAULT_LEASE_TIMING: LeaseTiming = { renewMs: 1_000, leaseMs: 5_000 };

export interface Leadership {
  epoch: number;
  leader: string | null;
  leaseUntil: Date | null;
  instances: Array<{ id: string; role: string; version: string }>;
}

export class LeaderLease {
  private client?: pg.Client;
  private held?: number;
  private timer?: NodeJS.Timeout;
  private renewing?: Promise<void>;
  private deadline?: NodeJS.Timeout;
  private lostHandlers: Array<(reason: string) => void> = [];
  private stopped = false;

  constructor(
    private readonly connectionString: string,
    private readonly instanceId: string,
    private readonly timing: LeaseTiming = DEFAULT_LEASE_TIMING,
    /** Written with each try and renewal, so `status` can list the instances that are up. */
    private readonly version = "unknown",
  ) {}

  /** The epoch this instance leads with; throws when it does not lead (a write must not go out). */
  get epoch(): number {
    if (this.held === undefined) throw new Error("this instance does not lead");
    return this.held;
  }

  get leading(): boolean {
    return this.held !== undefined;
  }

  onLost(handler: (reason: string) => void): void {
    this.lostHandlers.push(handler);
  }

  /** Resolves with the new epoch once this instance leads; tries every renewMs until then. */
  async campaign(signal?: AbortSignal): Promise<number> {
    for (;;) {
      if (signal?.aborted || this.stopped) throw new Error("campaign stopped");
      try {
        const epoch = await this.tryTakeOver();
        if (epoch !== undefined) return epoch;
      } catch {
        // The database is unreachable or the connection dropped: a fresh one next time.
        await this.dropClient();
      }
      await new Promise((resolve) => setTimeout(resolve, this.timing.renewMs));
    }
  }

  /**
   * Hands leadership over at once: the lease ends now and the lock is released. After a lost lead,
   * its session (which may still hold the lock, see `lose`) ends now.
   */
  async stepDown(): Promise<void> {
    const epoch = this.held;
    this.clearTimers();
    this.held = undefined;
    if (epoch === undefined) return this.dropClient();
    if (this.client) {
      await this.client.query("UPDATE baton_leadership SET lease_until = now() WHERE epoch = $1", [epoch]).catch(() => undefined);
      await this.client.query("SELECT pg_advisory_unlock($1)", [LEADER_LOCK]).catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    this.stopped = true;
    await this.stepDown();
    await this.dropClient();
  }

  private async connect(): Promise<pg.Client> {
    if (this.client) return this.client;
    const client = new pg.Client({ connectionString: this.connectionString, application_name: `baton-lease:${this.instanceId}`.slice(0, 63), keepAlive: true });
    client.on("error", (error) => this.lose(`the lease connection failed: ${error.message}`));
    client.on("end", () => this.lose("the lease connection closed"));
    await client.connect();
    this.client = client;
    return client;
  }

  private async tryTakeOver(): Promise<number | undefined> {
    const client = await this.connect();
    await this.seen(client, "standby");
    const { rows } = await client.query<{ locked: boolean }>("SELECT pg_try_advisory_lock($1) AS locked", [LEADER_LOCK]);
    if (!rows[0].locked) {
      await this.endExpiredHolder(client);
      return undefined;
    }
    const taken = await client.query<{ epoch: string }>(
      "UPDATE baton_leadership SET epoch = epoch + 1, leader = $1, leader_pid = pg_backend_pid(), lease_until = now() + make_interval(secs => $2), changed_at = now() RETURNING epoch",
      [this.instanceId, this.timing.leaseMs / 1000],
    );
    this.held = Number(taken.rows[0].epoch);
    this.renewing = undefined;
    await this.seen(client, "leader");
    this.armDeadline(Date.now());
    this.timer = setInterval(() => void this.renew(), this.timing.renewMs);
    return this.held;
  }

  /** A holder whose lease ran out long ago is a dead session the server has not noticed yet. */
  private async endExpiredHolder(client: pg.Client): Promise<void> {
    const graceSeconds = this.timing.leaseMs / 1000;
    await client.query(
      "SELECT pg_terminate_backend(leader_pid) FROM baton_leadership WHERE lease_until < now() - make_interval(secs => $1) AND leader_pid IS NOT NULL AND leader_pid <> pg_backend_pid()",
      [graceSeconds],
    );
  }

  private async renew(): Promise<void> {
    try {
      await this.renewal();
    } catch (error) {
      this.lose(`the lease could not be renewed: ${(error as Error).message}`);
    }
  }

  /** The renewal on its way, else a new one: one at a time, so a slow database gets no pile of them. */
  private renewal(): Promise<void> | undefined {
    const epoch = this.held;
    const client = this.client;
    if (epoch === undefined || !client) return undefined;
    this.renewing ??= this.renewOn(client, epoch, Date.now()).finally(() => (this.renewing = undefined));
    return this.renewing;
  }

  /** One renewal: the deadline moves to `leaseMs` after `startedAt`; a newer epoch ends the lead. */
  private async renewOn(client: pg.Client, epoch: number, startedAt: number): Promise<void> {
    const { rowCount } = await client.query("UPDATE baton_leadership SET lease_until = now() + make_interval(secs => $2) WHERE epoch = $1", [epoch, this.timing.leaseMs / 1000]);
    if (this.held !== epoch) return;
    if (rowCount === 0) return this.lose(`epoch ${epoch} was replaced by a newer leader`);
    this.armDeadline(startedAt);
    await this.seen(client, "leader");
  }

  private async seen(client: pg.Client, role: "leader" | "standby"): Promise<void> {
    await client.query(
      "INSERT INTO baton_instances (id, role, version, seen_at) VALUES ($1, $2, $3, now()) ON CONFLICT (id) DO UPDATE SET role = EXCLUDED.role, version = EXCLUDED.version, seen_at = now()",
      [this.instanceId, role, this.version],
    );
  }

  /** The lease runs out `leaseMs` after the renewal that began at `renewedAt`: then one last try decides. */
  private armDeadline(renewedAt: number): void {
    clearTimeout(this.deadline);
    this.deadline = setTimeout(() => void this.lastTry(), Math.max(0, renewedAt + this.timing.leaseMs - Date.now()));
  }

  /**
   * No renewal came back within a lease. On a busy machine that is mostly this process or the
   * database running late (the timers fire late, the answer waits behind them), not a cut: one more
   * renewal on the session that holds the lock decides. Its matching the epoch proves nobody took
   * over (a standby needs the lock, and ends this session only a further lease after the expiry).
   * Without an answer within half a lease, this instance stops, before a standby would end it.
   */
  private async lastTry(): Promise<void> {
    const renewal = this.renewal();
    if (!renewal) return;
    let late: NodeJS.Timeout | undefined;
    const ranOut = new Promise<"ran out">((resolve) => (late = setTimeout(() => resolve("ran out"), this.timing.leaseMs / 2)));
    try {
      const outcome = await Promise.race([renewal, ranOut]);
      if (outcome === "ran out") this.lose("the lease ran out (no renewal reached the database)", true);
    } catch (error) {
      this.lose(`the lease could not be renewed: ${(error as Error).message}`);
    } finally {
      clearTimeout(late);
    }
  }

  /**
   * The lead is lost: the handlers stop serving. A session that failed, or whose epoch was replaced,
   * ends now. One that only ran out of time (`keepSession`) may still hold the lock, and keeps it
   * until `stepDown`: while the daemon drains, no standby takes over (unless it ends the session a
   * lease after the expiry), so what the drain writes with its epoch, such as the prompts kept for
   * the next leader, still counts, as in a hand-over.
   */
  private lose(reason: string, keepSession = false): void {
    if (this.held === undefined) return;
    this.held = undefined;
    this.clearTimers();
    if (!keepSession) void this.dropClient();
    for (const handler of this.lostHandlers) handler(reason);
  }

  private clearTimers(): void {
    clearInterval(this.timer);
    clearTimeout(this.deadline);
    this.timer = undefined;
    this.deadline = undefined;
  }

  private async dropClient(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    if (!client) return;
    client.removeAllListeners("end");
    client.on("error", () => undefined);
    await client.end().catch(() => undefined);
  }
}

/** Who leads now, as the database says, and the instances seen within `recentMs`. */
export async function readLeadership(pool: Pick<pg.Pool, "query">, recentMs = 3 * DEFAULT_LEASE_TIMING.leaseMs): Promise<Leadership> {
  const [lead, seen] = await Promise.all([
    pool.query<{ epoch: string; leader: string | null; lease_until: Date | null }>("SELECT epoch, leader, lease_until FROM baton_leadership"),
    pool.query<{ id: string; role: string; version: string }>("SELECT id, role, version FROM baton_instances WHERE seen_at > now() - make_interval(secs => $1) ORDER BY id", [recentMs / 1000]),
  ]);
  const row = lead.rows[0];
  return { epoch: Number(row.epoch), leader: row.leader, leaseUntil: row.lease_until, instances: seen.rows };
}
