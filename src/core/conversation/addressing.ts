// Whether a message is for the bot, from the facts the adapter reported: in a direct chat every
// message is; in a group only a mention, a reply to the bot (or a message in its thread), a
// command, or anything on a route configured to listen to all. The bot's mention is taken out of
// the text, so the agent reads "fix the test", not "@baton fix the test".
import { parseMessage, type Parsed } from "../../commands/parse.js";
import type { InboundMessage } from "../../platforms/contract.js";

export interface Addressing {
  addressed: boolean;
  /** The text without the bot's mentions. */
  text: string;
  /** That text read once: a command or a prompt (the later steps use this reading). */
  parsed: Parsed;
}

export function decideAddressing(message: InboundMessage, listenAllIn: ReadonlySet<string>): Addressing {
  const text = removeMentions(message.text, message.mentions ?? []);
  const parsed = parseMessage(text);
  // `/cmd@otherbot` in a group is for another bot; `/cmd@us` had its mention taken out above.
  const command = parsed.kind === "command" && parsed.target === undefined;
  const listens = listenAllIn.has(message.route) || (message.scopes ?? []).some((scope) => listenAllIn.has(scope));
  const addressed = message.direct || (message.mentions?.length ?? 0) > 0 || message.replyToBot === true || command || listens;
  return { addressed, text, parsed };
}

/** Removes each mention and one space beside it; "@baton: do x" and "@baton, do x" mean "do x". */
export function removeMentions(text: string, mentions: readonly string[]): string {
  let out = text;
  for (const mention of [...new Set(mentions)].filter(Boolean).sort((a, b) => b.length - a.length)) {
    const escaped = mention.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    out = out.replace(new RegExp(`^\\s*${escaped}[:,]?\\s*`), "");
    out = out.replace(new RegExp(` ?${escaped}`, "g"), "");
  }
  return out.trim();
}
