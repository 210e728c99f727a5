// One message on one route, as the core wants it shown: sent once, then edited to the newest text.
// The outbox makes the calls; the slot keeps what is wanted, what the platform shows and who waits.
import type { MessageRef, OutboundFile, OutboundMessage } from "../../platforms/contract.js";

/** Where a slot asks for its next edit (the outbox of its platform). */
export interface EditQueue {
  queueEdit(slot: MessageSlot): void;
  /** The slot's queued edit now carries its last text: it goes as soon as pacing allows, without the edit gap. */
  expedite(slot: MessageSlot): void;
}

export class MessageSlot {
  ref?: MessageRef;
  failed = false;
  /** The message the platform shows now (undefined before the send). */
  shown?: OutboundMessage;
  plain = false;
  lastCallAt = 0;
  editQueued = false;
  /**
   * The message has its last text (the end of an answer, a piece that can no longer grow): its next
   * edit does not wait for the edit gap, which spaces out the edits of a message while it grows.
   */
  final = false;
  /** Set for an upload: the file, with `desired.text` as its caption. */
  file?: OutboundFile;
  /** Why the slot failed for good, for a reply that can say so. */
  error?: unknown;
  private settleWaiters: Array<() => void> = [];
  private sentResolve!: (ref: MessageRef | undefined) => void;
  /** Resolves with the platform's handle once sent, or undefined when the send failed for good. */
  readonly sent: Promise<MessageRef | undefined>;

  constructor(
    private readonly edits: EditQueue,
    readonly route: string,
    public desired: OutboundMessage,
  ) {
    this.sent = new Promise((resolve) => (this.sentResolve = resolve));
  }

  /** Shows `message` instead; only the newest update is ever sent. `final`: this is the message's last text. */
  update(message: OutboundMessage, final = false): void {
    if (this.failed) return;
    this.desired = message;
    const expedite = final && !this.final;
    if (final) this.final = true;
    if (!this.ref || this.showsWanted()) return;
    if (!this.editQueued) this.edits.queueEdit(this);
    else if (expedite) this.edits.expedite(this);
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

  /** Whether the platform shows the message as it would go out now. */
  showsWanted(): boolean {
    return this.shown !== undefined && sameMessage(this.shown, this.outgoing());
  }

  isSettled(): boolean {
    return this.failed || (this.ref !== undefined && this.showsWanted());
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

/**
 * Whether two messages show the same. Compared field by field rather than as JSON: a streamed
 * answer is checked at every flush, and a serialised copy of a 4 KB message kept as `shown` lived
 * long enough to be promoted to V8's old generation (more full collections under load).
 */
function sameMessage(a: OutboundMessage, b: OutboundMessage): boolean {
  return a.text === b.text && (a.format ?? "markdown") === (b.format ?? "markdown") && a.kind === b.kind && sameButtons(a.buttons, b.buttons);
}

function sameButtons(a: OutboundMessage["buttons"], b: OutboundMessage["buttons"]): boolean {
  return a === b || JSON.stringify(a ?? []) === JSON.stringify(b ?? []);
}
