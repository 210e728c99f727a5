// Messages out, one Web API call each: chat.postMessage / chat.update in the right channel and
// thread, chat.postEphemeral for what only one user should see. Ordering, edit coalescing,
// pacing, retries and the plain-text resend after a FormattingError are the core's.
import type { MessageRef, OutboundMessage } from "../contract.js";
import type { SlackApi } from "./api.js";
import { renderOutbound } from "./blocks.js";
import type { SlackRoute } from "./routes.js";
import { slackUserIdOf } from "./routes.js";

export class SlackOutbox {
  constructor(
    private readonly api: SlackApi,
    /** Told about every thread the bot posts in (later messages there are addressed to it). */
    private readonly onPostedInThread: (channel: string, threadTs: string) => void,
  ) {}

  async send(target: SlackRoute, message: OutboundMessage): Promise<MessageRef> {
    const thread = target.threadTs ? { thread_ts: target.threadTs } : {};
    const result = await this.api.call("chat.postMessage", { channel: target.channel, ...thread, ...renderOutbound(message), unfurl_links: false, unfurl_media: false });
    if (target.threadTs) this.onPostedInThread(target.channel, target.threadTs);
    return { id: String(result.ts ?? "") };
  }

  async edit(target: SlackRoute, ref: MessageRef, message: OutboundMessage): Promise<void> {
    await this.api.call("chat.update", { channel: target.channel, ts: ref.id, ...renderOutbound(message) });
  }

  /** A message only `userId` sees, in the conversation of `target`. */
  async ephemeral(target: SlackRoute, userId: string, text: string): Promise<void> {
    const thread = target.threadTs ? { thread_ts: target.threadTs } : {};
    await this.api.call("chat.postEphemeral", { channel: target.channel, user: slackUserIdOf(userId), ...thread, ...renderOutbound({ text }) });
  }
}
