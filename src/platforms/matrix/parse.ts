// Facts about one Matrix message, read from its (decrypted) content: its thread, whether it quotes
// or replies to another event, which substrings of its text mention the bot, and its attachment.
// Pure functions over event content; inbound.ts adds what needs the room (members, the replied-to
// event's sender).
import { attachmentOf, type MatrixAttachment } from "./media.js";

export interface BotIdentity {
  userId: string;
  displayName?: string;
}

export interface MessageFacts {
  /** The text as the user wrote it (a reply's quoted fallback removed). */
  text: string;
  /** Root event of the `m.thread` thread it belongs to. */
  threadRoot?: string;
  /** The event it replies to (not the thread's fallback reply). */
  replyTo?: string;
  /** Substrings of `text` that mention the bot (a pill's text, display name, user id). */
  mentions: string[];
  attachment?: MatrixAttachment;
  /** An edit (`m.replace`) of an earlier message: not a new prompt. */
  isEdit: boolean;
}

const MESSAGE_MSGTYPES = new Set(["m.text", "m.notice", "m.emote", "m.file", "m.image", "m.audio", "m.video"]);

/** Facts of an `m.room.message` content, or undefined for a message kind Baton does not read. */
export function messageFacts(content: Record<string, any>, bot: BotIdentity): MessageFacts | undefined {
  if (!MESSAGE_MSGTYPES.has(content.msgtype) || typeof content.body !== "string") return undefined;
  const relation = content["m.relates_to"] ?? {};
  const isEdit = relation.rel_type === "m.replace";
  const threadRoot = relation.rel_type === "m.thread" && typeof relation.event_id === "string" ? relation.event_id : undefined;
  const inReplyTo = relation["m.in_reply_to"]?.event_id;
  const replyTo = typeof inReplyTo === "string" && !(threadRoot && relation.is_falling_back) ? inReplyTo : undefined;
  const attachment = attachmentOf(content);
  const text = attachment ? (typeof content.filename === "string" && content.filename !== content.body ? content.body : "") : stripReplyFallback(content.body, replyTo !== undefined);
  const pills = typeof content.formatted_body === "string" ? pillTexts(content.formatted_body, bot.userId) : [];
  return { text, threadRoot, replyTo, mentions: mentionSubstrings(text, bot, pills), attachment, isEdit };
}

/** Old clients quote the replied-to message as `> <@user> …` lines before the answer. */
function stripReplyFallback(body: string, isReply: boolean): string {
  if (!isReply || !body.startsWith("> ")) return body;
  const lines = body.split("\n");
  let i = 0;
  while (i < lines.length && lines[i].startsWith(">")) i++;
  if (lines[i] === "") i++;
  return lines.slice(i).join("\n");
}

/**
 * The texts of the pills (matrix.to links) to the bot in an HTML body: Element writes the pill's
 * text, usually the display name, into the plain body too, so they are mentions in the text.
 */
export function pillTexts(html: string, botUserId: string): string[] {
  const texts: string[] = [];
  for (const match of html.matchAll(/<a\s[^>]*href=["']https:\/\/matrix\.to\/#\/([^"'?]+)[^"']*["'][^>]*>([\s\S]*?)<\/a>/gi)) {
    let target: string;
    try {
      target = decodeURIComponent(match[1]);
    } catch {
      continue;
    }
    if (target === botUserId) texts.push(decodeEntities(match[2].replace(/<[^>]*>/g, "")).trim());
  }
  return texts.filter((t) => t.length > 0);
}

function decodeEntities(text: string): string {
  const named: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0" };
  return text.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (all, entity: string) => {
    if (entity[0] !== "#") return named[entity.toLowerCase()] ?? all;
    const code = entity[1] === "x" || entity[1] === "X" ? parseInt(entity.slice(2), 16) : parseInt(entity.slice(1), 10);
    return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : all;
  });
}

/** Every place `text` names the bot: its user id, its display name, its localpart with an @, a pill's text. */
export function mentionSubstrings(text: string, bot: BotIdentity, pills: string[] = []): string[] {
  const localpart = bot.userId.slice(1).split(":")[0];
  // Longest first, so "@baton:server" is taken whole before "@baton" could take part of it.
  const names = [bot.userId, bot.displayName, `@${localpart}`, ...pills].filter((n): n is string => !!n && n.length > 1).sort((a, b) => b.length - a.length);
  const taken: Array<[number, number]> = [];
  const lower = text.toLowerCase();
  const isWordChar = (c: string | undefined) => c !== undefined && /[\p{L}\p{N}_]/u.test(c);
  for (const name of names) {
    for (let at = lower.indexOf(name.toLowerCase()); at >= 0; at = lower.indexOf(name.toLowerCase(), at + 1)) {
      const end = at + name.length;
      // Whole words only: "Batonite" does not mention "Baton".
      if (isWordChar(text[at - 1]) || isWordChar(text[end])) continue;
      if (taken.some(([s, e]) => at < e && end > s)) continue;
      taken.push([at, end]);
    }
  }
  return taken.sort((a, b) => a[0] - b[0]).map(([s, e]) => text.slice(s, e));
}
