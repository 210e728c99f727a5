// Messages out: chat.postMessage / chat.update / chat.delete / chat.postEphemeral in the right
// channel and thread, in order per channel, with streaming edits collapsed to the newest text and
// a plain-text resend when Slack refuses the formatting.
import type { MessageRef, OutboundMessage, PlatformLogger } from "../contract.js";
import type { SlackApi, SlackApiResult } from "./api.js";
import { slackErrorCode, toPlatformError } from "./api.js";
import { renderOutbound, renderPlainFallback } from "./blocks.js";
import type { SlackRoute } from "./routes.js";
import { slackUserIdOf } from "./routes.js";

/** Slack errors that mean "your formatting", answered by resending the same text plain. */
const FORMATTING_ERRORS = new Set(["invalid_blocks", "invalid_blocks_format", "invalid_attachments", "msg_too_long"]);

interface PendingEdit {
  message: OutboundMessage;
  /** Bumped by every edit() that replaces `message`. */
  version: number;
  done: Promise<void>;
}

export class SlackOutbox {
  /** Edits not yet applied, by `channel:ts`: a newer edit replaces the text of a pending one. */
  private readonly pendingEdits = new Map<string, PendingEdit>();

  constructor(
    private readonly api: SlackApi,
    private readonly log: PlatformLogger,
    /** Told about every thread the bot posts in (later messages there are addressed to it). */
    private readonly onPostedInThread: (channel: string, threadTs: string) => void,
  ) {}

  send(target: SlackRoute, message: OutboundMessage): Promise<MessageRef> {
    const thread = target.threadTs ? { thread_ts: target.threadTs } : {};
    return this.api.inChannelOrder(target.channel, async () => {
      const result = await this.withPlainFallback("chat.postMessage", () => message, (body) =>
        this.api.call("chat.postMessage", () => ({ channel: target.channel, ...thread, ...body(), unfurl_links: false, unfurl_media: false })),
      );
      if (target.threadTs) this.onPostedInThread(target.channel, target.threadTs);
      return { id: String(result.ts ?? "") };
    });
  }

  edit(target: SlackRoute, ref: MessageRef, message: OutboundMessage): Promise<void> {
    const key = `${target.channel}:${ref.id}`;
    // Streaming sends many edits; while one waits its turn or a rate limit, only the newest text matters.
    const pending = this.pendingEdits.get(key);
    if (pending) {
      pending.message = message;
      pending.version += 1;
      return pending.done;
    }
    const entry: PendingEdit = { message, version: 1, done: Promise.resolve() };
    this.pendingEdits.set(key, entry);
    entry.done = this.api
      .inChannelOrder(target.channel, async () => {
        // Loop while newer text arrived during the request, so the last edit always lands.
        let sentVersion = 0;
        const newest = () => {
          sentVersion = entry.version;
          return entry.message;
        };
        while (sentVersion !== entry.version) {
          await this.withPlainFallback("chat.update", newest, (body) => this.api.call("chat.update", () => ({ channel: target.channel, ts: ref.id, ...body() })));
        }
      })
      .finally(() => this.pendingEdits.delete(key));
    return entry.done;
  }

  async delete(target: SlackRoute, ref: MessageRef): Promise<void> {
    await this.api.inChannelOrder(target.channel, () => this.api.call("chat.delete", { channel: target.channel, ts: ref.id }));
  }

  /** A message only `userId` sees, in the conversation of `target`. */
  async ephemeral(target: SlackRoute, userId: string, text: string): Promise<void> {
    const thread = target.threadTs ? { thread_ts: target.threadTs } : {};
    await this.api.call("chat.postEphemeral", { channel: target.channel, user: slackUserIdOf(userId), ...thread, ...renderOutbound({ text }) });
  }

  /** `call` gets a body factory that renders the newest message at each attempt. */
  private async withPlainFallback(
    method: string,
    message: () => OutboundMessage,
    call: (body: () => object) => Promise<SlackApiResult>,
  ): Promise<SlackApiResult> {
    try {
      return await call(() => renderOutbound(message()));
    } catch (error) {
      const code = slackErrorCode(error);
      if (!code || !FORMATTING_ERRORS.has(code)) throw toPlatformError(method, error);
      // Never lose the message: Slack refused the formatting, so send the words as they are.
      this.log.warn({ method, code }, "slack: formatted message refused, resending as plain text");
      return call(() => renderPlainFallback(message()));
    }
  }
}
