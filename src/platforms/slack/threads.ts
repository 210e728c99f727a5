// Which channel threads is the bot in? A thread where the bot posted or was mentioned is addressed
// to it: later messages there need no mention. Kept in memory only; after a restart (or once the
// memory forgot a thread) one look at the thread (`conversations.replies`) tells again, and the
// answer is remembered either way so a busy thread is looked at once.
import type { PlatformLogger } from "../contract.js";
import type { SlackApi } from "./api.js";
import { BoundedSet } from "../../kernel/collections.js";

/** Threads remembered either way. */
const THREAD_MEMORY_CAPACITY = 20_000;
/** Messages read in one lookup (the parent comes first): enough for any thread a person continues. */
const THREAD_LOOKUP_LIMIT = 200;

export type ThreadStatus = "ours" | "not-ours" | "unknown";

/** Looks at a thread and says whether the bot posted or was mentioned in it. */
export type ThreadLookup = (channel: string, threadTs: string) => Promise<boolean>;

export class ThreadMembership {
  private readonly ours = new BoundedSet(THREAD_MEMORY_CAPACITY);
  private readonly notOurs = new BoundedSet(THREAD_MEMORY_CAPACITY);
  private readonly lookups = new Map<string, Promise<boolean>>();

  constructor(
    private readonly lookup: ThreadLookup,
    private readonly log: PlatformLogger,
  ) {}

  remember(channel: string, threadTs: string): void {
    const key = `${channel}:${threadTs}`;
    this.notOurs.delete(key);
    this.ours.add(key);
  }

  status(channel: string, threadTs: string): ThreadStatus {
    const key = `${channel}:${threadTs}`;
    if (this.ours.has(key)) return "ours";
    return this.notOurs.has(key) ? "not-ours" : "unknown";
  }

  /** Settles an unknown thread by looking at it (once, however many messages arrive meanwhile). */
  resolve(channel: string, threadTs: string): Promise<boolean> {
    const status = this.status(channel, threadTs);
    if (status !== "unknown") return Promise.resolve(status === "ours");
    const key = `${channel}:${threadTs}`;
    let pending = this.lookups.get(key);
    if (!pending) {
      pending = this.lookup(channel, threadTs)
        .catch((error: unknown) => {
          this.log.warn({ channel, threadTs, err: String(error) }, "slack: could not look at a thread; a mention is needed there");
          return false;
        })
        .then((isOurs) => {
          // A mention that arrived during the lookup wins over a "no".
          if (isOurs) this.remember(channel, threadTs);
          else if (this.status(channel, threadTs) === "unknown") this.notOurs.add(key);
          return this.status(channel, threadTs) === "ours";
        })
        .finally(() => this.lookups.delete(key));
      this.lookups.set(key, pending);
    }
    return pending;
  }
}

/** The lookup Baton uses: did the bot post in the thread, or was it mentioned there? */
export async function botTookPartInThread(api: SlackApi, bot: { user_id: string; bot_id?: string }, channel: string, threadTs: string): Promise<boolean> {
  const result = await api.call("conversations.replies", { channel, ts: threadTs, limit: THREAD_LOOKUP_LIMIT });
  const messages = (result.messages ?? []) as Array<{ user?: string; bot_id?: string; text?: string }>;
  return messages.some(
    (m) => m.user === bot.user_id || (bot.bot_id !== undefined && m.bot_id === bot.bot_id) || (m.text ?? "").includes(`<@${bot.user_id}>`) || (m.text ?? "").includes(`<@${bot.user_id}|`),
  );
}
