// A conversation's title in the sidebar: the first prompt of the thread the conversation is on now.
// `/new`, `/close` then a prompt, and `/pickup` move a conversation to another thread, so each
// prompt is stored with the thread that took it, and the title follows the current thread rather
// than the conversation's very first prompt.
import type { RouteInfo } from "../contract.js";
import type { StoredMessage } from "./history.js";

const UNTITLED = "New chat";
const TITLE_MAX_CHARS = 80;

function oneLine(text: string): string {
  const line = text.trim().split("\n")[0].replace(/\s+/g, " ");
  return line.length > TITLE_MAX_CHARS ? `${line.slice(0, TITLE_MAX_CHARS - 1)}…` : line;
}

const isCommand = (m: StoredMessage) => m.text.trimStart().startsWith("/");

/** The title of the prompts of one thread: its first prompt, else how it was reached. */
function titleOf(prompts: StoredMessage[]): string {
  const first = prompts.find((m) => !isCommand(m));
  if (first) return oneLine(first.text);
  const pickup = prompts.find((m) => /^\/pickup\b/.test(m.text.trim()));
  return pickup ? `Picked up: ${oneLine(pickup.text.trim().slice("/pickup".length)) || "a terminal session"}` : UNTITLED;
}

export function conversationTitle(messages: StoredMessage[], info: RouteInfo | undefined): string {
  const prompts = messages.filter((m) => m.role === "user");
  // Messages from before prompts were stored with their thread: the conversation's first prompt.
  if (!prompts.some((m) => m.thread)) {
    const first = prompts.find((m) => !isCommand(m)) ?? prompts[0];
    return first ? oneLine(first.text) : UNTITLED;
  }
  if (info?.open) return titleOf(prompts.filter((m) => m.thread === info.thread));
  // No open thread: after /new, a fresh start; after /close, the closed thread keeps its title.
  const last = prompts.at(-1);
  if (!last || /^\/new\b/.test(last.text.trim())) return UNTITLED;
  const closed = prompts.findLast((m) => m.thread)?.thread;
  return titleOf(prompts.filter((m) => m.thread === closed));
}
