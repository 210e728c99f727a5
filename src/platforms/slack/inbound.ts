// Slack events → facts for the core, which decides whether the bot is addressed:
//  - a message in a channel belongs to the Slack thread under it (a mention there opens a
//    conversation in that thread), and the channel is its scope for `listen_all_in`;
//  - a message in a thread the bot is in (it was mentioned there or posted there) is a reply to it;
//  - a DM is direct; a thread inside a DM is a route of its own;
//  - the bot's mention is shown as `@<its name>` and reported, for the core to take out.
import type { InboundMessage, PlatformUser } from "../contract.js";
import type { SlackFileObject } from "./files.js";
import { channelRouteOf, formatSlackRoute, qualifiedUserId } from "./routes.js";
import type { ThreadMembership } from "./threads.js";

/** Message subtypes that are a person writing; every other subtype (edits, joins, bots…) is ignored. */
const HUMAN_SUBTYPES = new Set([undefined, "file_share", "thread_broadcast", "me_message"]);

/** The fields of a Slack `message` / `app_mention` event Baton reads. */
export interface SlackMessageEvent {
  type: string;
  subtype?: string;
  channel?: string;
  channel_type?: "channel" | "group" | "im" | "mpim" | "app_home";
  user?: string;
  bot_id?: string;
  text?: string;
  ts?: string;
  thread_ts?: string;
  parent_user_id?: string;
  team?: string;
  files?: SlackFileObject[];
}

export interface MessageTranslatorOptions {
  instance: string;
  botUserId: string;
  /** The bot's user name, as its mention is shown in the text. */
  botName: string;
  /** Workspace of the bot (auth.test), the team part of every route. */
  teamId: string;
}

/** A message for the core, before its files become descriptors. */
export interface TranslatedMessage {
  message: Omit<InboundMessage, "files">;
  files: SlackFileObject[];
  /** Set when the message is in a thread the bot does not remember: a reply to it only if the thread is the bot's. */
  uncertainThread?: { channel: string; threadTs: string };
}

export class MessageTranslator {
  constructor(
    private readonly options: MessageTranslatorOptions,
    private readonly threads: ThreadMembership,
  ) {}

  /** Returns the message to hand to the core, or undefined when it is not a person writing. */
  translate(event: SlackMessageEvent): TranslatedMessage | undefined {
    const { channel, ts, user } = event;
    if (!channel || !ts || !user) return undefined;
    if (event.bot_id || user === this.options.botUserId) return undefined;
    if (!HUMAN_SUBTYPES.has(event.subtype)) return undefined;
    // Routes name the bot's own workspace: in a Slack Connect channel `event.team` is the writer's
    // organisation, and one thread must stay one route whoever writes in it.
    const team = this.options.teamId;
    const rawText = event.text ?? "";
    const mentioned = rawText.includes(`<@${this.options.botUserId}>`) || rawText.includes(`<@${this.options.botUserId}|`) || event.type === "app_mention";
    const direct = event.channel_type === "im" || (event.channel_type === undefined && channel.startsWith("D"));
    const botMention = `@${this.options.botName}`;
    const text = slackTextToPlain(rawText, this.options.botUserId, botMention);
    const base = { user: userOf(user), text, messageId: ts, mentions: mentioned ? [botMention] : undefined };

    if (direct) {
      const route = formatSlackRoute({ instance: this.options.instance, team, channel, threadTs: event.thread_ts });
      return { message: { ...base, route, direct: true }, files: event.files ?? [] };
    }

    // In a channel the conversation lives in the thread: under the mention, or the thread it is in.
    const threadTs = event.thread_ts ?? ts;
    const route = formatSlackRoute({ instance: this.options.instance, team, channel, threadTs });
    const scopes = [channelRouteOf({ instance: this.options.instance, team, channel })];
    const inThread = event.thread_ts !== undefined;
    const replyToBot = inThread && event.parent_user_id === this.options.botUserId;
    if (mentioned || replyToBot) this.threads.remember(channel, threadTs);
    const message = { ...base, route, direct: false, scopes, replyToBot: replyToBot || (inThread && this.threads.status(channel, threadTs) === "ours") };
    const uncertain = inThread && !mentioned && !replyToBot && this.threads.status(channel, threadTs) === "unknown";
    return { message, files: event.files ?? [], uncertainThread: uncertain ? { channel, threadTs } : undefined };
  }
}

export function userOf(slackUserId: string, name?: string): PlatformUser {
  return name ? { id: qualifiedUserId(slackUserId), name } : { id: qualifiedUserId(slackUserId) };
}

/**
 * Slack's message markup → the plain text a person meant: the bot's own mention as `botMention`, other
 * mentions and channels by name, links as `label (url)`, and `&amp; &lt; &gt;` unescaped.
 */
export function slackTextToPlain(text: string, botUserId?: string, botMention = "@baton"): string {
  let out = text;
  // The bot's own mention becomes one fixed text the core recognises and takes out.
  if (botUserId) out = out.replace(new RegExp(`<@${botUserId}(?:\\|[^>]*)?>`, "g"), botMention);
  out = out.replace(/<([^<>]*)>/g, (_match, inner: string) => {
    const [target, label] = splitOnce(inner, "|");
    if (target.startsWith("@")) return `@${label ?? target.slice(1)}`;
    if (target.startsWith("#")) return `#${label ?? target.slice(1)}`;
    if (target.startsWith("!")) return `@${label ?? target.slice(1).split("^")[0]}`;
    const url = target.startsWith("mailto:") ? target.slice("mailto:".length) : target;
    return label && label !== url ? `${label} (${url})` : url;
  });
  return out
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&")
    .replace(/^[ \t]+|[ \t]+$/g, "")
    .trim();
}

function splitOnce(text: string, separator: string): [string, string | undefined] {
  const index = text.indexOf(separator);
  return index < 0 ? [text, undefined] : [text.slice(0, index), text.slice(index + 1)];
}

/** `/baton <cmd> …` → `/<cmd> …` as if typed; a bare `/baton` asks for help. */
export function slashCommandText(text: string | undefined): string {
  const trimmed = (text ?? "").trim();
  if (trimmed === "") return "/help";
  return trimmed.startsWith("/") ? trimmed : `/${trimmed}`;
}
