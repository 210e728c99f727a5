// A send budget per chat, so a busy group never hits Telegram's flood limits (about one message a
// second per chat, 20 a minute in a group, 30 a second for the whole bot; edits count). Calls for
// one chat run one at a time in order, spaced out. (Edits that pile up for one message collapse
// before they get here: latest-wins.ts.) A 429 that slips through is still honoured by auto-retry
// inside the call.
import { PlatformError } from "../../kernel/errors.js";

export interface SendBudgetLimits {
  /** Minimum gap between two calls in one chat (ms). */
  chatGapMs: number;
  /** Calls allowed in one group chat per minute. */
  groupCallsPerMinute: number;
  /** Calls allowed for the whole bot per second. */
  globalCallsPerSecond: number;
}

export const TELEGRAM_SEND_LIMITS: SendBudgetLimits = { chatGapMs: 1000, groupCallsPerMinute: 20, globalCallsPerSecond: 30 };

const ONE_MINUTE_MS = 60_000;
const ONE_SECOND_MS = 1000;
const IDLE_SWEEP_THRESHOLD = 1000;

interface Job {
  task: () => Promise<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

interface ChatQueue {
  jobs: Job[];
  running: boolean;
  lastCallAt: number;
  recentCalls: number[];
}

export class ChatSendBudget {
  private readonly chats = new Map<string, ChatQueue>();
  private readonly globalCalls: number[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;

  constructor(private readonly limits: SendBudgetLimits = TELEGRAM_SEND_LIMITS) {}

  /** Runs `task` when the chat's budget allows, after the calls queued before it. */
  schedule<T>(chatKey: string, isGroup: boolean, task: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(stoppedError());
    const queue = this.queueOf(chatKey);
    return new Promise<T>((resolve, reject) => {
      queue.jobs.push({ task, resolve: resolve as (value: unknown) => void, reject });
      if (!queue.running) void this.drain(queue, isGroup);
    });
  }

  isClosed(): boolean {
    return this.closed;
  }

  /** Drops every waiting call (they reject) and stops scheduling. */
  close(): void {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const queue of this.chats.values()) {
      for (const job of queue.jobs.splice(0)) job.reject(stoppedError());
    }
    this.chats.clear();
  }

  private queueOf(chatKey: string): ChatQueue {
    let queue = this.chats.get(chatKey);
    if (!queue) {
      if (this.chats.size >= IDLE_SWEEP_THRESHOLD) this.forgetIdleChats();
      queue = { jobs: [], running: false, lastCallAt: -Infinity, recentCalls: [] };
      this.chats.set(chatKey, queue);
    }
    return queue;
  }

  /** A chat idle for a minute has no budget left to remember. */
  private forgetIdleChats(): void {
    const before = Date.now() - ONE_MINUTE_MS;
    for (const [key, queue] of this.chats) if (!queue.running && queue.jobs.length === 0 && queue.lastCallAt < before) this.chats.delete(key);
  }

  private async drain(queue: ChatQueue, isGroup: boolean): Promise<void> {
    queue.running = true;
    try {
      while (queue.jobs.length > 0 && !this.closed) {
        const waitMs = this.waitBeforeNextCall(queue, isGroup);
        if (waitMs > 0) {
          await this.sleep(waitMs);
          continue; // re-check: the global window may have been taken meanwhile
        }
        const job = queue.jobs.shift()!;
        const now = Date.now();
        queue.recentCalls.push(now);
        this.globalCalls.push(now);
        try {
          job.resolve(await job.task());
        } catch (error) {
          job.reject(error);
        } finally {
          // The gap runs from the end of a call: then the next one reaches Telegram at least a gap
          // after this one did, whatever the network delays.
          queue.lastCallAt = Date.now();
        }
      }
    } finally {
      queue.running = false;
    }
  }

  private waitBeforeNextCall(queue: ChatQueue, isGroup: boolean): number {
    const now = Date.now();
    prune(queue.recentCalls, now - ONE_MINUTE_MS);
    prune(this.globalCalls, now - ONE_SECOND_MS);
    let wait = queue.lastCallAt + this.limits.chatGapMs - now;
    if (isGroup && queue.recentCalls.length >= this.limits.groupCallsPerMinute) {
      wait = Math.max(wait, queue.recentCalls[0] + ONE_MINUTE_MS - now);
    }
    if (this.globalCalls.length >= this.limits.globalCallsPerSecond) {
      wait = Math.max(wait, this.globalCalls[0] + ONE_SECOND_MS - now);
    }
    return wait;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        resolve();
      }, ms);
      this.timers.add(timer);
    });
  }
}

function prune(timestamps: number[], before: number): void {
  while (timestamps.length > 0 && timestamps[0] <= before) timestamps.shift();
}

function stoppedError(): PlatformError {
  return new PlatformError("The Telegram adapter is stopping; the message was not sent.", { reason: "network", detail: "send budget closed" });
}
