// Streams one turn's blocks to every attached route: a block is sent once, then edited as it grows
// (debounced, with a minimum gap between edits of one message), split at the platform's limit.
// Each route has its own ordered queue of platform calls, so output never arrives out of order.
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { MessageRef, OutboundMessage, PlatformAdapter, PlatformLogger } from "../platforms/contract.js";
import { BlockBuilder, blockMarkdown, type Block, type BlockOptions } from "./blocks.js";
import { splitMarkdown } from "./split.js";

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
  text: string;
  lastEditAt: number;
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
    let waitMore = false;
    for (const block of this.builder.blocks) {
      const markdown = blockMarkdown(block);
      if (!markdown.trim()) continue;
      const chunks = splitMarkdown(markdown, caps.maxMessageLength);
      const sent = s.sent.get(block) ?? [];
      s.sent.set(block, sent);
      // Without edits, only chunks that can no longer change are sent.
      const sendable = caps.edits || block.done ? chunks.length : chunks.length - 1;
      for (let i = 0; i < sendable; i++) {
        const chunk = chunks[i];
        const message: OutboundMessage = { text: chunk, kind: block.kind };
        const prior = sent[i];
        if (!prior) {
          const entry: SentChunk = { text: chunk, lastEditAt: Date.now() };
          sent[i] = entry;
          try {
            entry.ref = await adapter.send(route, message);
          } catch (error) {
            entry.failed = true;
            this.log.warn({ route, err: error }, "could not send a message");
          }
          continue;
        }
        if (prior.text === chunk || prior.failed || !prior.ref || !caps.edits) continue;
        const wait = prior.lastEditAt + gap - Date.now();
        if (wait > 0 && !final) {
          waitMore = true;
          continue;
        }
        if (wait > 0) await sleep(wait);
        prior.text = chunk;
        prior.lastEditAt = Date.now();
        try {
          await adapter.edit(route, prior.ref, message);
        } catch (error) {
          this.log.warn({ route, err: error }, "could not edit a message");
        }
      }
    }
    if (waitMore && !this.retryTimer) {
      this.retryTimer = setTimeout(() => {
        this.retryTimer = undefined;
        void this.flush(false);
      }, gap);
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
