// Long polling with our own loop instead of grammy's `bot.start()`: grammy's loop throws on 409
// Conflict (another process polls the same token) and on 401, which would end polling for good.
// Here a conflict is reported once, clearly, and polling keeps retrying with backoff until the
// other poller goes away; `stop()` aborts the pending getUpdates and returns promptly.
import { setImmediate as afterPendingWork } from "node:timers/promises";
import type { Api } from "grammy/web";
import type { Update } from "grammy/types";
import type { PlatformLogger } from "../contract.js";
import { describeError, telegramErrorCode } from "./errors.js";

export interface PollerOptions {
  /** Seconds Telegram holds a getUpdates call open when there is nothing to deliver. */
  pollTimeoutSeconds: number;
  initialBackoffMs: number;
  maxBackoffMs: number;
}

export const DEFAULT_POLLER_OPTIONS: PollerOptions = { pollTimeoutSeconds: 30, initialBackoffMs: 1000, maxBackoffMs: 60_000 };

/** The offset kept outside this process (store.url), so an instance taking over reads on from it. */
export interface OffsetCursor {
  load(): Promise<number | undefined>;
  save(offset: number): void;
}

/** An empty answer sooner than this means the server did not hold the poll; wait out the rest. */
const MIN_EMPTY_POLL_MS = 1000;
/** The final getUpdates that confirms handled updates must not hold up `stop()`. */
const CONFIRM_TIMEOUT_MS = 2000;
/** grammy types its signal with the abort-controller polyfill; node-fetch accepts the native one. */
type GrammySignal = Parameters<Api["getUpdates"]>[1];

const ALLOWED_UPDATES = ["message", "callback_query"] as const;

export class UpdatePoller {
  private running = false;
  private loopDone: Promise<void> = Promise.resolve();
  private abort?: AbortController;
  private wakeBackoff?: () => void;
  private nextOffset = 0;
  private conflictReported = false;

  constructor(
    private readonly api: Api,
    private readonly instance: string,
    private readonly token: string,
    private readonly log: PlatformLogger,
    private readonly onUpdate: (update: Update) => void,
    private readonly options: PollerOptions = DEFAULT_POLLER_OPTIONS,
    private readonly cursor?: OffsetCursor,
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loopDone = this.loop();
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.abort?.abort();
    this.wakeBackoff?.();
    await this.loopDone;
    await this.confirmHandledUpdates();
  }

  private async loop(): Promise<void> {
    let backoffMs = this.options.initialBackoffMs;
    await this.loadCursor();
    while (this.running) {
      this.abort = new AbortController();
      const pollStartedAt = Date.now();
      try {
        const updates = await this.api.getUpdates(
          { offset: this.nextOffset, timeout: this.options.pollTimeoutSeconds, allowed_updates: [...ALLOWED_UPDATES] },
          this.abort.signal as unknown as GrammySignal,
        );
        // Stopped while the answer was on its way: leave the batch unconfirmed for the next start.
        if (!this.running) break;
        if (this.conflictReported) {
          this.log.info(`${this.instance}: polling resumed, the other poller is gone`);
          this.conflictReported = false;
        }
        backoffMs = this.options.initialBackoffMs;
        for (const update of updates) {
          this.nextOffset = update.update_id + 1;
          this.onUpdate(update);
        }
        // The batch's messages go first, as far as they get without waiting on I/O (a prompt gets
        // to its agent's stdin): building the next long poll's request in between took about
        // 0.25 ms of the 1.2 ms an idle Baton needed from the wire to the agent.
        if (updates.length > 0) {
          await afterPendingWork();
          // Saved once the batch is handed over: an instance taking over neither misses nor repeats it.
          this.cursor?.save(this.nextOffset);
        }
        // A server that ignores `timeout` and answers "nothing" at once must not make this spin.
        const elapsedMs = Date.now() - pollStartedAt;
        if (updates.length === 0 && elapsedMs < MIN_EMPTY_POLL_MS) await this.backoff(MIN_EMPTY_POLL_MS - elapsedMs);
      } catch (error) {
        if (!this.running) break;
        this.reportFailure(error, backoffMs);
        await this.backoff(backoffMs);
        backoffMs = Math.min(backoffMs * 2, this.options.maxBackoffMs);
      }
    }
  }

  private async loadCursor(): Promise<void> {
    if (!this.cursor) return;
    try {
      this.nextOffset = Math.max(this.nextOffset, (await this.cursor.load()) ?? 0);
    } catch (error) {
      this.log.warn({ detail: (error as Error).message }, `${this.instance}: could not read the stored update offset; Telegram's own confirmation decides`);
    }
  }

  private reportFailure(error: unknown, backoffMs: number): void {
    const code = telegramErrorCode(error);
    const detail = describeError(error, this.token);
    if (code === 409) {
      // Logged once per conflict episode: the loop retries quietly until it clears.
      if (!this.conflictReported) {
        this.conflictReported = true;
        this.log.error(
          { hint: "Stop the other process that uses this bot token (another Baton, or a webhook set elsewhere), or give this Baton its own bot from @BotFather.", detail },
          `${this.instance}: another process is receiving updates for this bot (409 Conflict); retrying with backoff`,
        );
      }
      return;
    }
    if (code === 401) {
      this.log.error({ detail }, `${this.instance}: Telegram rejected the bot token (401); check platforms.${this.instance}.token`);
      return;
    }
    this.log.warn({ detail }, `${this.instance}: getUpdates failed; retrying in ${Math.round(backoffMs / 1000)} s`);
  }

  private backoff(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wakeBackoff = done;
    });
  }

  /** Tells Telegram the last batch was handled, so a restart does not receive it again. */
  private async confirmHandledUpdates(): Promise<void> {
    if (this.nextOffset === 0) return;
    try {
      await this.api.getUpdates({ offset: this.nextOffset, limit: 1, timeout: 0 }, AbortSignal.timeout(CONFIRM_TIMEOUT_MS) as unknown as GrammySignal);
    } catch (error) {
      this.log.debug({ detail: describeError(error, this.token) }, `${this.instance}: could not confirm the last updates on stop`);
    }
  }
}
