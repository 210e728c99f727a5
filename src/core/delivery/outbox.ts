// Delivery to one platform instance. Every message the core shows goes through here as a slot:
// sent once, then edited to whatever it should show now. Per route, sends go out in the order
// they were posted; edits of one message collapse into the newest text (latest wins) and keep the
// minimum gap between two edits; calls are paced by the adapter's limits and held back after a
// 429. A failed call is retried only when retrying can help (network, 429, 5xx) and a bounded
// number of times; a refusal is never retried; a refused formatting is resent as plain text.
import { FormattingError, PlatformError } from "../../kernel/errors.js";
import type { MessageRef, OutboundFile, OutboundMessage, PlatformAdapter, PlatformLogger } from "../../platforms/contract.js";
import { loadMarkdown } from "../../render/markdown.js";
import { formatSize } from "../../render/sizes.js";
import { Pacer } from "./pacer.js";

/** Attempts of one call that failed on the network or a 5xx, the first included. */
export const MAX_NETWORK_ATTEMPTS = 4;
/** 429 answers one call may get before it is given up. */
export const MAX_RATE_LIMITED_ATTEMPTS = 6;
const FIRST_BACKOFF_MS = 500;
/** A 429 without a retry-after still waits this long. */
const DEFAULT_RETRY_AFTER_MS = 1_000;

type JobKind = "send" | "edit";

interface Job {
  slot: MessageSlot;
  kind: JobKind;
  notBefore: number;
  failures: number;
  rateLimited: number;
}

interface RouteLine {
  jobs: Job[];
  running: boolean;
  wake?: () => void;
}

/** One message on one route, as the core wants it shown. */
export class MessageSlot {
  ref?: MessageRef;
  failed = false;
  /** The message the platform shows now (undefined before the send). */
  shown?: string;
  plain = false;
  lastCallAt = 0;
  editQueued = false;
  /** Set for an upload: the file, with `desired.text` as its caption. */
  file?: OutboundFile;
  /** Why the slot failed for good, for a reply that can say so. */
  error?: unknown;
  private settleWaiters: Array<() => void> = [];
  private sentResolve!: (ref: MessageRef | undefined) => void;
  /** Resolves with the platform's handle once sent, or undefined when the send failed for good. */
  readonly sent: Promise<MessageRef | undefined>;

  constructor(
    private readonly outbox: Outbox,
    readonly route: string,
    public desired: OutboundMessage,
  ) {
    this.sent = new Promise((resolve) => (this.sentResolve = resolve));
  }

  /** Shows `message` instead; only the newest update is ever sent. */
  update(message: OutboundMessage): void {
    if (this.failed) return;
    this.desired = message;
    if (this.ref && !this.editQueued && this.shown !== this.wanted()) this.outbox.queueEdit(this);
  }

  /** Resolves once the platform shows the newest update, or the slot has failed. */
  settled(): Promise<void> {
    if (this.isSettled()) return Promise.resolve();
    return new Promise((resolve) => this.settleWaiters.push(resolve));
  }

  /** The message as it would go out now (plain after a refused formatting). */
  outgoing(): OutboundMessage {
    return this.plain ? { ...this.desired, format: "plain" } : this.desired;
  }

  wanted(): string {
    return JSON.stringify(this.outgoing());
  }

  isSettled(): boolean {
    return this.failed || (this.ref !== undefined && this.shown === this.wanted());
  }

  markSent(ref: MessageRef): void {
    this.ref = ref;
    this.sentResolve(ref);
  }

  markFailed(): void {
    this.failed = true;
    this.sentResolve(this.ref);
    this.notifySettled();
  }

  notifySettled(): void {
    if (!this.isSettled()) return;
    for (const resolve of this.settleWaiters.splice(0)) resolve();
  }
}

export class Outbox {
  private readonly lines = new Map<string, RouteLine>();
  private readonly backlog = new Map<string, number>();
  private readonly pacer: Pacer;

  constructor(
    readonly adapter: PlatformAdapter,
    private readonly log: PlatformLogger,
    private readonly minEditGapMs: number,
  ) {
    this.pacer = new Pacer(adapter);
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
    this.push(route, { slot, kind: "send", notBefore: 0, failures: 0, rateLimited: 0 });
    return slot;
  }

  /** Characters of messages posted on a route and not sent yet (a platform slower than the agent). */
  backlogChars(route: string): number {
    return this.backlog.get(route) ?? 0;
  }

  /** Queues a file on a route, in line with the messages: paced, retried and ordered like a send. */
  postFile(route: string, file: OutboundFile): MessageSlot {
    const slot = new MessageSlot(this, route, { text: file.caption ?? "", kind: "text" });
    slot.file = file;
    this.push(route, { slot, kind: "send", notBefore: 0, failures: 0, rateLimited: 0 });
    return slot;
  }

  queueEdit(slot: MessageSlot): void {
    slot.editQueued = true;
    const gap = this.adapter.capabilities.minEditGapMs ?? this.minEditGapMs;
    this.push(slot.route, { slot, kind: "edit", notBefore: slot.lastCallAt + gap, failures: 0, rateLimited: 0 });
  }

  private push(route: string, job: Job): void {
    let line = this.lines.get(route);
    if (!line) this.lines.set(route, (line = { jobs: [], running: false }));
    line.jobs.push(job);
    if (line.running) line.wake?.();
    else void this.drain(route, line);
  }

  private async drain(route: string, line: RouteLine): Promise<void> {
    line.running = true;
    try {
      // Adapters render markdown synchronously; the parser loads after start-up (resolved once loaded).
      await loadMarkdown();
      while (line.jobs.length > 0) {
        const now = Date.now();
        const index = nextRunnable(line.jobs, now);
        const pace = index === -1 ? 0 : this.pacer.delayMs(route, now);
        if (index === -1 || pace > 0) {
          const wait = index === -1 ? Math.min(...line.jobs.map((j) => j.notBefore)) - now : pace;
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, Math.max(1, wait));
            line.wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          line.wake = undefined;
          continue;
        }
        const job = line.jobs[index];
        line.jobs.splice(index, 1);
        await this.run(line, job, index);
      }
    } finally {
      line.running = false;
      if (this.lines.get(route) === line && line.jobs.length === 0) this.lines.delete(route);
    }
  }

  private async run(line: RouteLine, job: Job, index: number): Promise<void> {
    const { slot } = job;
    if (slot.failed) return;
    if (job.kind === "edit") {
      slot.editQueued = false;
      if (slot.shown === slot.wanted()) return slot.notifySettled();
    }
    const message = slot.outgoing();
    const wanted = JSON.stringify(message);
    const ended = this.pacer.begin(slot.route);
    try {
      if (job.kind === "send") slot.markSent(await (slot.file ? this.upload(slot.route, slot.file, message) : this.adapter.send(slot.route, message)));
      else await this.adapter.edit(slot.route, slot.ref!, message);
      slot.shown = wanted;
    } catch (error) {
      const retry = this.retryOf(job, error);
      if (retry === undefined) {
        slot.error = error;
        slot.markFailed();
        this.log.error({ route: slot.route, err: error, call: job.kind }, `could not ${job.kind} a message; giving up on it`);
        return;
      }
      this.log.warn({ route: slot.route, err: error, call: job.kind, retryInMs: retry }, `could not ${job.kind} a message; will retry`);
      job.notBefore = Date.now() + retry;
      if (job.kind === "edit") slot.editQueued = true;
      // Back where it was: a send that must be retried still goes before the sends posted after it.
      line.jobs.splice(index, 0, job);
      return;
    } finally {
      ended();
      slot.lastCallAt = Date.now();
    }
    // Newer text arrived while the call was on its way.
    if (!slot.editQueued && slot.shown !== slot.wanted()) this.queueEdit(slot);
    slot.notifySettled();
  }

  private upload(route: string, file: OutboundFile, caption: OutboundMessage): Promise<MessageRef> {
    const withCaption = { ...file, caption: caption.text || undefined, format: caption.format };
    if (this.adapter.upload) return this.adapter.upload(route, withCaption);
    return this.adapter.send(route, { text: `${caption.text ? `${caption.text}\n` : ""}📎 ${file.name} (${formatSize(file.size)}): this chat cannot receive files from Baton.`, format: caption.format, kind: "notice" });
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

/** The first job that may run now: due, and no send overtakes an earlier send. */
function nextRunnable(jobs: Job[], now: number): number {
  let sendWaiting = false;
  for (let i = 0; i < jobs.length; i++) {
    const job = jobs[i];
    if (job.kind === "send") {
      if (sendWaiting) continue;
      if (job.notBefore <= now) return i;
      sendWaiting = true;
    } else if (job.notBefore <= now) return i;
  }
  return -1;
}
