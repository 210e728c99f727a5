// Streams one turn's blocks to every attached route. A block becomes one message per piece of the
// platform's size (split once, here), sent once and then updated as it grows; the outbox of each
// platform keeps the order, the edit gap, the pacing and the retries. Flushes are debounced.
// A long answer does not stay in memory: a piece that can no longer change is handed to its
// message and its source dropped, so a turn that streams 50 MB keeps only its last pieces.
import type { SessionUpdate } from "@agentclientprotocol/sdk";
import type { OutboundFile, OutboundMessage, PlatformLogger } from "../platforms/contract.js";
import { BlockBuilder, blockMarkdown, type Block, type BlockOptions } from "../render/blocks.js";
import { formatSize } from "../render/sizes.js";
import { splitMarkdownPieces, type OpenFence, type SplitPiece } from "../render/split.js";
import type { Outbox } from "./delivery/outbox.js";
import type { MessageSlot } from "./delivery/slot.js";

/** Past this many characters waiting to be sent on a route, new pieces of an answer are left out there. */
const MAX_ROUTE_BACKLOG_CHARS = 256 * 1024;
/**
 * A route that is leaving pieces out takes them again only once its backlog fell this low: else a
 * fast agent makes it alternate between one piece and one "left out" notice, over and over.
 */
const RESUME_ROUTE_BACKLOG_CHARS = 32 * 1024;
/**
 * A block that grew this much since its last flush is flushed at once instead of at the debounce:
 * a fast agent would otherwise pile megabytes into it between flushes, text that outlives V8's young
 * generation (freed only by a full collection) and that each flush copies whole. A 50 MB answer
 * grew Baton's memory by 200 MB that way.
 */
const EAGER_FLUSH_CHARS = 64 * 1024;

/** A streamed answer's first message and the edit that completes it. */
const SEND_AND_EDIT = 2;

export interface RouteTarget {
  route: string;
  outbox: Outbox;
}

export interface StreamSettings extends BlockOptions {
  flushDebounceMs: number;
  /** The turn's first text waits this long (a fast answer then goes out whole, in one call). */
  firstSendHoldMs?: number;
}

/** How one block reaches one route. */
interface BlockDelivery {
  /** Messages of the pieces not sealed yet, in order. */
  slots: MessageSlot[];
  /** Source offset up to which pieces are sealed (their messages hold their final text). */
  sealedAt: number;
  fence?: OpenFence;
  cache?: { version: number; sealedAt: number; limit: number; pieces: SplitPiece[] };
  /** A message whose edit the platform refused (deleted by someone) was replaced by a new one; once only. */
  replaced?: boolean;
}

export class TurnStream {
  readonly builder: BlockBuilder;
  private readonly deliveries = new Map<string, Map<Block, BlockDelivery>>();
  /** Messages handed to an outbox that may not have settled yet (finish waits for them). */
  private readonly unsettled = new Set<MessageSlot>();
  private debounceTimer?: NodeJS.Timeout;
  /** Characters left out per route while its platform was too far behind. */
  private readonly skipped = new Map<string, number>();
  private flushedOnce = false;
  /** Files being staged; streaming waits for them. */
  private holds = 0;
  /** The turn's closing line (its usage), set by finish: the last line of the answer's last message where it fits. */
  private closingLine?: string;
  /** Routes whose last message took the closing line. */
  private readonly closedOn = new Set<string>();
  /** A message or file was posted apart from the blocks after their last message: a closing line there would read above it. */
  private postedApart = false;

  constructor(
    private readonly targets: () => RouteTarget[],
    private readonly settings: StreamSettings,
    private readonly log: PlatformLogger,
  ) {
    this.builder = new BlockBuilder(settings);
  }

  update(update: SessionUpdate): void {
    if (!this.builder.apply(update)) return;
    const growing = this.builder.blocks.at(-1);
    if (growing?.sealable && growing.text.length > EAGER_FLUSH_CHARS) {
      clearTimeout(this.debounceTimer);
      this.debounceTimer = undefined;
      this.flushedOnce = true;
      this.flush();
    } else this.scheduleFlush();
  }

  /**
   * Ends the turn: marks every block done, delivers the final text and waits until it is shown.
   * `closingLine` (the usage) becomes the last line of the answer's last message, in the same call
   * that completes it; a message of its own only where that message is already at the platform's
   * length limit (or the platform shows such lines apart).
   */
  async finish(notice?: string, closingLine?: string): Promise<void> {
    if (notice) this.builder.appendNotice(notice);
    this.builder.finishAll();
    clearTimeout(this.debounceTimer);
    this.debounceTimer = undefined;
    this.closingLine = closingLine;
    this.flush();
    for (const target of this.targets()) {
      this.noteSkipped(target);
      if (closingLine && !this.closedOn.has(target.route)) this.track(target.outbox.post(target.route, { text: closingLine, kind: "usage" }));
    }
    await Promise.all([...this.unsettled].map((slot) => slot.settled()));
  }

  /** Posts a standalone message on every route, after everything already streamed there. */
  post(message: OutboundMessage | ((target: RouteTarget) => OutboundMessage)): Array<RouteTarget & { slot: MessageSlot }> {
    this.flush();
    this.postedApart = true;
    return this.targets().map((target) => {
      const slot = target.outbox.post(target.route, typeof message === "function" ? message(target) : message);
      this.track(slot);
      return { ...target, slot };
    });
  }

  /**
   * A file comes at this point of the answer: what streamed so far goes out now, and what streams
   * later waits (in a new message) until the returned release is called, once the file is posted.
   */
  hold(): () => void {
    this.builder.finishAll();
    this.flush();
    this.holds++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holds--;
      this.flush();
    };
  }

  /**
   * Posts a file on every route after what streamed there, or the message `instead` gives for a
   * route it cannot go to. Resolves once every route has it, or has given up, with the slots.
   */
  async postFile(file: OutboundFile, instead: (target: RouteTarget) => OutboundMessage | undefined): Promise<Array<RouteTarget & { slot: MessageSlot }>> {
    this.postedApart = true;
    const slots = this.targets().map((target) => {
      const message = instead(target);
      return { ...target, slot: this.track(message ? target.outbox.post(target.route, message) : target.outbox.postFile(target.route, file)) };
    });
    await Promise.all(slots.map(({ slot }) => slot.settled()));
    return slots;
  }

  private scheduleFlush(): void {
    if (this.debounceTimer) return;
    // Later growth is debounced (and each message's edits are spaced by the edit gap anyway).
    const delayMs = this.flushedOnce ? this.settings.flushDebounceMs : this.firstFlushDelayMs();
    this.flushedOnce = true;
    this.debounceTimer = setTimeout(() => {
      this.debounceTimer = undefined;
      this.flush();
    }, delayMs);
  }

  /**
   * The first text of a turn is what the user is waiting for: it goes at once where the chat's
   * rate limit has room for it and the edit that completes it. Where it has not, it waits a short
   * moment: an answer that ends meanwhile goes out whole in one call (the end of a turn flushes at
   * once) and leaves the chat's budget to the next answers.
   */
  private firstFlushDelayMs(): number {
    const hold = this.settings.firstSendHoldMs ?? 0;
    if (hold === 0) return 0;
    return this.targets().every((t) => t.outbox.hasRoomFor(t.route, SEND_AND_EDIT)) ? 0 : hold;
  }

  /** Sends what has been streamed so far now, without waiting for the debounce. */
  flush(): void {
    // A file is on its way: the text after it waits, so it shows below the file.
    if (this.holds > 0) return;
    const targets = this.targets();
    for (const target of targets) this.syncRoute(target);
    this.releaseSealed(targets);
  }

  private syncRoute(target: RouteTarget): void {
    const caps = target.outbox.adapter.capabilities;
    const behind = () => target.outbox.backlogChars(target.route);
    let byBlock = this.deliveries.get(target.route);
    if (!byBlock) this.deliveries.set(target.route, (byBlock = new Map()));
    for (const block of this.builder.blocks) {
      let delivery = byBlock.get(block);
      if (!delivery) byBlock.set(block, (delivery = { slots: [], sealedAt: block.offset }));
      const pieces = this.piecesOf(block, delivery, caps.maxMessageLength);
      // Without edits only pieces that can no longer change are sent.
      const sendable = caps.edits || block.done ? pieces.length : pieces.length - 1;
      let sealed = 0;
      const closes = block.done && block === this.builder.blocks.at(-1);
      for (let i = 0; i < sendable; i++) {
        const closing = closes && i === pieces.length - 1 ? this.closingOf(target, pieces[i].text) : undefined;
        const message: OutboundMessage = { text: closing ?? pieces[i].text, kind: block.kind };
        const slot = delivery.slots[i];
        // Any piece but the last one of a finished block (the end of the answer is always shown). The
        // last piece of a block still growing counts too: else each flush of a route that is behind
        // would send it, with a "left out" notice before it, every time.
        const skippable = block.sealable && (i < pieces.length - 1 || !block.done);
        const limit = this.skipped.has(target.route) ? RESUME_ROUTE_BACKLOG_CHARS : MAX_ROUTE_BACKLOG_CHARS;
        if (!slot && skippable && behind() > limit) {
          // The platform cannot show the answer as fast as the agent writes it: rather than keep
          // megabytes waiting (memory) and send them for hours, this piece is left out here.
          this.skipped.set(target.route, (this.skipped.get(target.route) ?? 0) + pieces[i].text.length);
        } else if (!slot) {
          this.noteSkipped(target);
          delivery.slots[i] = this.track(target.outbox.post(target.route, message));
          this.postedApart = false;
        } else if (slot.failed && slot.ref && !delivery.replaced) {
          // The platform refused an edit of a sent message: the rest goes on in a new one, once.
          delivery.replaced = true;
          delivery.slots[i] = this.track(target.outbox.post(target.route, message));
        } else if (caps.edits) {
          // A done block's pieces, and a text block's pieces before its last, never change again.
          slot.update(message, block.done || skippable);
          this.track(slot);
        }
        // A piece before the last never changes again: its message keeps the text, the source can go.
        if (block.sealable && (i < pieces.length - 1 || block.done) && sealed === i) sealed++;
      }
      if (sealed > 0) {
        const last = pieces[sealed - 1];
        delivery.sealedAt += last.end;
        delivery.fence = last.fenceAfter;
        delivery.slots.splice(0, sealed);
        delivery.cache = undefined;
      }
    }
  }

  /** The answer's last piece with the closing line below it, where it fits in one message there. */
  private closingOf(target: RouteTarget, text: string): string | undefined {
    const line = this.closingLine;
    const caps = target.outbox.adapter.capabilities;
    if (!line || this.postedApart || caps.usageApart) return undefined;
    const closed = `${text}\n\n${line}`;
    if (closed.length > caps.maxMessageLength) return undefined;
    this.closedOn.add(target.route);
    return closed;
  }

  /** Says in the chat, where the gap is, how much of the answer was left out there. */
  private noteSkipped(target: RouteTarget): void {
    const chars = this.skipped.get(target.route);
    if (!chars) return;
    this.skipped.delete(target.route);
    const text = `✂️ ${formatSize(chars)} of this answer were left out here: the chat could not show it as fast as the agent wrote it. The whole answer is in the agent's session.`;
    this.track(target.outbox.post(target.route, { text, kind: "notice" }));
  }

  /** A block's pieces past what this route has sealed, split again only when something changed. */
  private piecesOf(block: Block, delivery: BlockDelivery, limit: number): SplitPiece[] {
    const cached = delivery.cache;
    if (cached && cached.version === block.version && cached.sealedAt === delivery.sealedAt && cached.limit === limit) return cached.pieces;
    const markdown = blockMarkdown(block).slice(delivery.sealedAt - block.offset);
    const pieces = markdown.trim() ? splitMarkdownPieces(markdown, limit, delivery.fence) : [];
    delivery.cache = { version: block.version, sealedAt: delivery.sealedAt, limit, pieces };
    return pieces;
  }

  /** Drops the source every route has sealed. */
  private releaseSealed(targets: RouteTarget[]): void {
    for (const block of this.builder.blocks) {
      if (!block.sealable) continue;
      let upTo = Infinity;
      for (const target of targets) upTo = Math.min(upTo, this.deliveries.get(target.route)?.get(block)?.sealedAt ?? block.offset);
      if (upTo !== Infinity && upTo > block.offset) this.builder.release(block, upTo);
    }
  }

  private track(slot: MessageSlot): MessageSlot {
    if (this.unsettled.has(slot) || slot.isSettled()) return slot;
    this.unsettled.add(slot);
    void slot.settled().then(
      () => this.unsettled.delete(slot),
      (error: unknown) => this.log.error({ err: error }, "delivery failed"),
    );
    return slot;
  }
}
