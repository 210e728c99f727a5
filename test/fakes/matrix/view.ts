// What a person in Element sees of a room in the Matrix fake: each message at its latest edit, as
// text (the HTML body with its markup rendered away, else the plain body), and the reactions on it.
// For tests of unencrypted rooms; encrypted ones are read through a real SDK client instead.
import type { ClientEvent, Room } from "./state.js";

export interface SeenMessage {
  eventId: string;
  sender: string;
  /** The content shown now: the newest edit's `m.new_content`, else the original. */
  content: Record<string, any>;
  text: string;
  threadRoot?: string;
  /** Reaction keys by who put them. */
  reactions: Array<{ sender: string; key: string }>;
}

const BLOCK_END = /<\/(p|li|h[1-6]|pre|tr|blockquote|div|table|ul|ol)>|<br\s*\/?>|<hr\s*\/?>/gi;

/** HTML → the text a reader sees (tags gone, block ends as line breaks, entities decoded). */
function visibleText(html: string): string {
  const text = html.replace(BLOCK_END, "\n").replace(/<[^>]*>/g, "");
  return decodeEntities(text)
    .replace(/\n{2,}/g, "\n")
    .trim();
}

function decodeEntities(text: string): string {
  const named: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };
  return text.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (all, e: string) => {
    if (e[0] !== "#") return named[e.toLowerCase()] ?? all;
    return String.fromCodePoint(e[1].toLowerCase() === "x" ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10));
  });
}

export function contentText(content: Record<string, any>): string {
  if (content.format === "org.matrix.custom.html" && typeof content.formatted_body === "string") return visibleText(content.formatted_body);
  return String(content.body ?? "");
}

/** The room's messages (not edits) from `sender`, or from anyone, as they look now. */
export function seenMessages(room: Room, sender?: string): SeenMessage[] {
  const events = room.timeline.map((s) => s.event);
  const relation = (e: ClientEvent) => e.content["m.relates_to"] as { rel_type?: string; event_id?: string; key?: string } | undefined;
  return events
    .filter((e) => e.type === "m.room.message" && relation(e)?.rel_type !== "m.replace" && (!sender || e.sender === sender))
    .map((e) => {
      const edits = events.filter((x) => x.type === "m.room.message" && x.sender === e.sender && relation(x)?.rel_type === "m.replace" && relation(x)?.event_id === e.event_id);
      const content = edits.at(-1)?.content["m.new_content"] ?? e.content;
      const reactions = events.filter((x) => x.type === "m.reaction" && relation(x)?.event_id === e.event_id).map((x) => ({ sender: x.sender, key: String(relation(x)?.key) }));
      const threadRoot = relation(e)?.rel_type === "m.thread" ? relation(e)?.event_id : undefined;
      return { eventId: e.event_id, sender: e.sender, content, text: contentText(content), threadRoot, reactions };
    });
}

/** The label of each reaction choice on a request, read from its legend line (`👍 Allow once · ✅ Always allow`). */
export function reactionChoices(message: SeenMessage): Map<string, string> {
  const choices = new Map<string, string>();
  const keys = new Set(message.reactions.map((r) => r.key));
  for (const line of message.text.split("\n")) {
    for (const item of line.split(" · ")) {
      const key = [...keys].find((k) => item.startsWith(`${k} `));
      if (key) choices.set(item.slice(key.length + 1).trim(), key);
    }
  }
  return choices;
}
