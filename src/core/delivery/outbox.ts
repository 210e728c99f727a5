// Delivery to one platform instance. Every message the core shows goes through here as a slot:
// sent once, then edited to whatever it should show now. Per route, sends go out in the order
// they were posted; edits of one message collapse into the newest text (latest wins) and keep the
// minimum gap between two edits while it grows (its last text goes without it); calls are paced by the adapter's limits and held back after a
// 429. A failed call is retried only when retrying can help (network, 429, 5xx) and a bounded
// number of times; a refusal is never retried; a refused formatting is resent as plain text.
import { FormattingError, PlatformError } from "../../kernel/errors.js";
import type { MessageRef, OutboundFile, OutboundMessage, PlatformAdapter, PlatformLogger } from "../../platforms/contract.js";
import { loadMarkdown } from "../../render/markdown.js";
import { formatSize } from "../../render/sizes.js";
import { Pacer } from "./pacer.js";
import { RouteScheduler, type ScheduledJob } from "./scheduler.js";
import { MessageSlot } from "./slot.js";
import { TypingIndicators } from "./typing.js";

/** Attempts of one call that failed on the network or a 5xx, the first included. */
export const MAX_NETWORK_ATTEMPTS = 4;
/** 429 answers one call may get before it is given up. */
const MAX_RATE_LIMITED_ATTEMPTS = 6;
const FIRST_BACKOFF_MS = 500;
/** A 429 without a retry-after still waits this long. */
const DEFAULT_RETRY_AFTER_MS = 1_000;

interface Job extends ScheduledJob {
  slot: MessageSlot;
  failures: number;
  rateLimited: number;
}

export class Outbox {
  private readonly backlog = new Map<string, number>();
  private readonly pacer: Pacer;
  private readonly scheduler: RouteScheduler<Job>;
  private readonly typing: TypingIndicators;
  /** Each slot's queued edit, so the edit that completes a message can be brought forward. */
  private readonly queuedEdits = new WeakMap<MessageSlot, Job>();

  constructor(
    readonly adapter: PlatformAdapter,
    private readonly log: PlatformLogger,
    private readonly minEditGapMs: number,
  ) {
    this.pacer = new Pacer(adapter);
    // Adapters render markdown synchronously; the parser loads after start-up.
    this.scheduler = new RouteScheduler(
      this.pacer,
      (job) => this.run(job),
      loadMarkdown,
      (error) => this.log.error({ err: error }, "delivery failed"),
    );
    this.typing = new TypingIndicators(adapter);
  }

  /** Queues a new message on a route, after everything posted there before. */
  post(route: string, message: OutboundMessage): MessageSlot {
    const slot = new MessageSlot(this, route, message);
    const bytes = message.text.length;
    this.backlog.set(route, (this.backlog.get(route) ?? 0) + bytes);
    const settle = () => {
      const left = (this.backlog.get(route) ?? bytes) - bytes;
      if (left > 0) this.backlog.set(route, left);
      else this.backlog.delete(route);
    };
    void slot.sent.then(settle, settle);
    this.scheduler.push(route, { slot, kind: "send", notBefore: 0, failures: 0, rateLimited: 0 });
    return slot;
  }

  /** Whether `calls` calls could go on the route now without waiting for its chat's rate limit. */
  hasRoomFor(route: string, calls: number): boolean {
    return this.pacer.hasRoomFor(route, calls);
  }

  /** Characters of messages posted on a route and not sent yet (a platform slower than the agent). */
  backlogChars(route: string): number {
    return this.backlog.get(route) ?? 0;
  }

  /** Queues a file on a route, in line with the messages: paced, retried and ordered like a send. */
  postFile(route: string, file: OutboundFile): MessageSlot {
    const slot = new MessageSlot(this, route, { text: file.caption ?? "", kind: "text" });
    slot.file = file;
    this.scheduler.push(route, { slot, kind: "send", notBefore: 0, failures: 0, rateLimited: 0 });
    return slot;
  }

  queueEdit(slot: MessageSlot): void {
    slot.editQueued = true;
    const job: Job = { slot, kind: "edit", notBefore: slot.final ? 0 : slot.lastCallAt + this.editGapMs, failures: 0, rateLimited: 0 };
    this.queuedEdits.set(slot, job);
    this.scheduler.push(slot.route, job);
  }

  expedite(slot: MessageSlot): void {
    const job = this.queuedEdits.get(slot);
    // A retry keeps its backoff: only an edit waiting for the gap is brought forward.
    if (!job || job.failures > 0 || job.rateLimited > 0 || job.notBefore <= Date.now()) return;
    job.notBefore = 0;
    this.scheduler.wake(slot.route);
  }

  /** Least time between two edits of one growing message: the platform's own floor, else the configured gap. */
  private get editGapMs(): number {
    return this.adapter.capabilities.minEditGapMs ?? this.minEditGapMs;
  }

  /** Shows "typing…" on a route until the returned release is called (by every holder). */
  keepTyping(route: string): () => void {
    return this.typing.hold(route);
  }

  /** Makes one job's call; true when it should be tried again (its `notBefore` says when). */
  private async run(job: Job): Promise<boolean> {
    const { slot } = job;
    if (slot.failed) return false;
    const message = slot.outgoing();
    if (job.kind === "edit") {
      slot.editQueued = false;
      this.queuedEdits.delete(slot);
      if (slot.showsWanted()) {
        slot.notifySettled();
        return false;
      }
    }
    const ended = this.pacer.begin(slot.route, job.kind);
    try {
      if (job.kind === "send") {
        slot.markSent(await (slot.file ? this.upload(slot.route, slot.file, message) : this.adapter.send(slot.route, message)));
        this.typing.messageSent(slot.route);
      } else await this.adapter.edit(slot.route, slot.ref!, message);
      slot.shown = message;
    } catch (error) {
      const retry = this.retryOf(job, error);
      if (retry === undefined) {
        slot.error = error;
        slot.markFailed();
        this.log.error({ route: slot.route, err: error, call: job.kind }, `could not ${job.kind} a message; giving up on it`);
        return false;
      }
      this.log.warn({ route: slot.route, err: error, call: job.kind, retryInMs: retry }, `could not ${job.kind} a message; will retry`);
      job.notBefore = Date.now() + retry;
      if (job.kind === "edit") slot.editQueued = true;
      // Back where it was: a send that must be retried still goes before the sends posted after it.
      return true;
    } finally {
      ended();
      slot.lastCallAt = Date.now();
    }
    // Newer text arrived while the call was on its way.
    if (!slot.editQueued && !slot.showsWanted()) this.queueEdit(slot);
    slot.notifySettled();
    return false;
  }

  private upload(route: string, file: OutboundFile, caption: OutboundMessage): Promise<MessageRef> {
    const withCaption = { ...file, caption: caption.text || undefined, format: caption.format };
    if (this.adapter.upload) return this.adapter.upload(route, withCaption);
    return this.adapter.send(route, {
      text: `${caption.text ? `${caption.text}\n` : ""}📎 ${file.name} (${formatSize(file.size)}): this chat cannot receive files from Baton.`,
      format: caption.format,
      kind: "notice",
    });
  }

  /** Milliseconds until the job may be tried again, or undefined to give it up. */
  private retryOf(job: Job, error: unknown): number | undefined {
    if (error instanceof FormattingError && !job.slot.plain) {
      job.slot.plain = true;
      return 0;
    }
    if (!(error instanceof PlatformError)) return undefined;
    if (error.reason === "rate_limited") {
      if (++job.rateLimited >= MAX_RATE_LIMITED_ATTEMPTS) return undefined;
      const wait = error.retryAfterMs ?? DEFAULT_RETRY_AFTER_MS;
      this.pacer.hold(job.slot.route, error.retryScope, wait);
      return wait;
    }
    if (error.reason === "network" || error.reason === "unavailable") {
      if (++job.failures >= MAX_NETWORK_ATTEMPTS) return undefined;
      return FIRST_BACKOFF_MS * 2 ** (job.failures - 1);
    }
    return undefined;
  }
}
