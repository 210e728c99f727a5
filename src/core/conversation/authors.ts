// Who said what: once a second person has written in a thread, each prompt reaches the agent with
// its author's display name in front (`[ana] fix the flaky test`), so the agent knows who asks.
// A thread one person talks in stays unmarked. Remembered in memory, a bounded number of threads.
import type { ContentBlock } from "@agentclientprotocol/sdk";
import type { PlatformUser } from "../../platforms/contract.js";

/** Threads whose writers are remembered; the least recently prompted are forgotten first. */
const REMEMBERED_THREADS = 10_000;
/** A display name longer than this is cut (it is a label, not a message). */
const MAX_NAME_CHARS = 40;

export class ThreadAuthors {
  /** Per thread, the ids of the people who wrote there (Map order: least recently prompted first). */
  private readonly writers = new Map<string, Set<string>>();

  /** The prompt as the agent gets it: marked with its author's name when more than one person wrote here. */
  label(threadId: string, author: PlatformUser, prompt: ContentBlock[]): ContentBlock[] {
    const writers = this.writers.get(threadId) ?? new Set<string>();
    writers.add(author.id);
    this.writers.delete(threadId);
    this.writers.set(threadId, writers);
    if (this.writers.size > REMEMBERED_THREADS) this.writers.delete(this.writers.keys().next().value as string);
    if (writers.size < 2) return prompt;
    const tag = `[${displayName(author)}]`;
    const text = prompt.findIndex((block) => block.type === "text");
    if (text === -1) return [{ type: "text", text: tag }, ...prompt];
    return prompt.map((block, i) => (i === text && block.type === "text" ? { ...block, text: `${tag} ${block.text}` } : block));
  }
}

/** The name people see (`@ana` as `ana`), on one line, without brackets that could fake another author's tag. */
function displayName(user: PlatformUser): string {
  const name = (user.name ?? user.id)
    .replace(/^@/, "")
    .replace(/[[\]\r\n]+/g, " ")
    .trim()
    .slice(0, MAX_NAME_CHARS);
  return name || user.id;
}
