// Streams one turn's blocks to every attached route: a block is sent once, then edited as it grows
// (debounced, with a minimum gap between edits of one message), split at the platform's limit.
// Each route has its own ordered queue of platform calls, so output never arrives out of order.
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { MessageRef, OutboundMessage, PlatformAdapter, PlatformLogger } from "../platforms/contract.js";
import { BlockBuilder, blockMarkdown, type Block, type BlockOptions } from "../render/blocks.js";
import { splitMarkdown } from "../render/split.js";

export interface RouteTarget {
  route: string;
  adapter: PlatformAdapter;
}

export interface StreamSettings extends BlockOptions {
  flushDebounceMs: number;
  minEditGapMs: number;
}

interface SentChunk {
  ref?: MessageRef;
  /** The text the platform shows now. */
  text: string;
  lastEditAt: number;
  /** Failed calls in a row; past the limit the chunk is given up (`failed`). */
  attempts: number;
  failed?: boolean;
}

interface RouteState {
  chain: Promise<void>;
  sent: Map<Block, SentChunk[]>;
}

export class TurnStream {
  readonly builder: BlockBuilder;
  private readonly routes = new Map<string, RouteState>();
  private debounceTimer?: NodeJS.Timeout;
  private retryTimer?: NodeJS.Timeout;
  private readonly splits = new WeakMap<Block, { version: number; limit: number; chunks: string[] }>();

  constructor(
    private readonly targets: () => RouteTarget[],
    private readonly settings: StreamSettings,
    private readonly log: PlatformLogger,
  ) {
    this.builder = new BlockBuilder(settings);
  }

  update(update: SessionUpdate): void {
    if (this.builder.apply(update)) this.scheduleFlush();
  }

  /** Text of everything streamed so far (for logs and tests). */
  text(): string {
    return this.builder.blocks.map(blockMarkdown).join("\n\n");
  }

  /** Ends the turn: marks every block done and delivers the final text, waiting out edit gaps. */
  async finish(notice?: string): Promise<void> {
    if (notice) this.builder.appendNotice(notice);
    this.builder.finishAll();
    clearTimeout(this.debounceTimer);
    clearTimeout(this.retryTimer);
    await this.flush(true);
  }

  /** Sends a standalone message to every route after what is already queued there. */
  async post(message: OutboundMessage | ((target: RouteTarget) => OutboundMessage)): Promise<Array<RouteTarget & { ref: MessageRef }>> {
    await this.flush(false);
    const results = await Promise.all(
      this.targets().map((target) =>
        this.enqueue(target, async () => {
          const ref = await target.adapter.send(target.route, typeof message === "function" ? message(target) : message);
          return { ...target, ref };
        }).catch((error: unknown) => {
          this.log.warn({ route: target.route, err: error }, "could not post message");
          return undefined;
        }),
      ),
    );
    return results.filter((r): r is RouteTarget & { ref: MessageRef } => r !== undefined);
  }

  private scheduleFlush(): void {
    if (this.debounceTimer) return;
    this.debounceTimer = setTimeout(() => {
      this.debounceTimer = undefined;
      void this.flush(false);
    }, this.settings.flushDebounceMs);
  }

  private async flush(final: boolean): Promise<void> {
    await Promise.all(this.targets().map((target) => this.enqueue(target, () => this.syncRoute(target, final))));
  }

  private state(route: string): RouteState {
    let s = this.routes.get(route);
    if (!s) this.routes.set(route, (s = { chain: Promise.resolve(), sent: new Map() }));
    return s;
  }

  private enqueue<T>(target: RouteTarget, op: () => Promise<T>): Promise<T> {
    const s = this.state(target.route);
    const run = s.chain.then(op);
    s.chain = run.then(() => undefined, () => undefined);
    return run;
  }

  private async syncRoute(target: RouteTarget, final: boolean): Promise<void> {
    const { adapter, route } = target;
    const caps = adapter.capabilities;
    const gap = caps.minEditGapMs ?? this.settings.minEditGapMs;
    const s = this.state(route);
    let retryIn: number | undefined;
    const later = (ms: number) => (retryIn = Math.min(retryIn ?? ms, ms));
    for (const block of this.builder.blocks) {
      const chunks = this.chunksOf(block, caps.maxMessageLength);
      if (chunks.length === 0) continue;
      const sent = s.sent.get(block) ?? [];
      s.sent.set(block, sent);
      // Without edits, only chunks that can no longer change are sent.
      const sendable = caps.edits || block.done ? chunks.length : chunks.length - 1;
      for (let i = 0; i < sendable; i++) {
        const message: OutboundMessage = { text: chunks[i], kind: block.kind };
        const entry = (sent[i] ??= { text: "", lastEditAt: 0, attempts: 0 });
        if (!entry.ref && !entry.failed) {
          // Not delivered yet: nothing after it may go out first, or the answer would be reordered.
          // The edit gap counts from when the send went out.
          entry.lastEditAt = Date.now();
          if (!(await this.attempt(entry, route, final, () => adapter.send(route, message).then((ref) => (entry.ref = ref)), "send"))) {
            if (!entry.failed) return void this.scheduleRetry(backoffMs(entry.attempts));
            continue;
          }
          entry.text = message.text;
          continue;
        }
        if (entry.text === message.text || entry.failed || !entry.ref || !caps.edits) continue;
        const wait = entry.lastEditAt + gap - Date.now();
        if (wait > 0 && !final) {
          later(wait);
          continue;
        }
        if (wait > 0) await sleep(wait);
        entry.lastEditAt = Date.now();
        // An edit is idempotent: a failed one is simply tried again with the newest text.
        if (await this.attempt(entry, route, final, () => adapter.edit(route, entry.ref!, message), "edit")) entry.text = message.text;
        else if (!entry.failed) later(backoffMs(entry.attempts));
      }
    }
    if (retryIn !== undefined) this.scheduleRetry(retryIn);
  }

  /**
   * One platform call with bounded retries: a failure is retried on a later flush (or at once,
   * after a backoff, when the turn is ending), and given up after MAX_DELIVERY_ATTEMPTS — never
   * retried into a loop.
   */
  private async attempt(entry: SentChunk, route: string, final: boolean, call: () => Promise<unknown>, what: string): Promise<boolean> {
    for (;;) {
      try {
        await call();
        entry.attempts = 0;
        return true;
      } catch (error) {
        entry.attempts++;
        if (entry.attempts >= MAX_DELIVERY_ATTEMPTS) {
          entry.failed = true;
          this.log.error({ route, err: error, attempts: entry.attempts }, `could not ${what} a message; giving up on it`);
          return false;
        }
        this.log.warn({ route, err: error, attempt: entry.attempts }, `could not ${what} a message; will retry`);
        if (!final) return false;
        await sleep(backoffMs(entry.attempts));
      }
    }
  }

  /** A block's pieces at a limit, split again only when the block changed (every flush visits every block). */
  private chunksOf(block: Block, limit: number): string[] {
    const cached = this.splits.get(block);
    if (cached && cached.version === block.version && cached.limit === limit) return cached.chunks;
    const markdown = blockMarkdown(block);
    const chunks = markdown.trim() ? splitMarkdown(markdown, limit) : [];
    this.splits.set(block, { version: block.version, limit, chunks });
    return chunks;
  }

  private scheduleRetry(ms: number): void {
    if (this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.flush(false);
    }, ms);
  }
}

const MAX_DELIVERY_ATTEMPTS = 4;
const FIRST_RETRY_MS = 500;

function backoffMs(attempts: number): number {
  return FIRST_RETRY_MS * 2 ** Math.max(0, attempts - 1);
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
