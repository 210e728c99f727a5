// Per-conversation message history, so a reload or a daemon restart shows the recent messages
// again. One JSONL file per conversation (0600, in a 0700 dir); each line is the whole message as
// it stood, so the newest line of an id wins. Sends are appended at once; streaming edits are
// coalesced and written every EDIT_FLUSH_MS. A file that has grown well past the bound is
// rewritten with only the messages kept.
import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { appendFile, rename, unlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Button, PlatformLogger } from "../contract.js";
import { CONVERSATION_ID_PATTERN, type WebMessageKind } from "./protocol.js";

const DEFAULT_HISTORY_LIMIT = 500;
/**
 * Characters of text kept per conversation, whatever the count: a huge answer is 20,000-character
 * bubbles, and 500 of them would keep 10 MB in memory for a reload nobody scrolls through.
 */
const DEFAULT_HISTORY_CHARS = 2_000_000;
/** How long a streamed edit may sit in memory before it is written. */
const EDIT_FLUSH_MS = 1_000;
/** A file is compacted once it holds this many times more lines than messages kept (counting at least the minimum). */
const COMPACT_FACTOR = 3;
const COMPACT_MIN_MESSAGES = 5;
const FILE_MODE = 0o600;
const DIR_MODE = 0o700;

export interface StoredMessage {
  id: string;
  role: "user" | "agent";
  kind: WebMessageKind;
  text: string;
  format?: "markdown" | "plain";
  buttons?: Button[][];
  /** Files the message carries (an agent's are kept beside the history, see files.ts). */
  files?: Array<{ name: string; mimeType: string; size: number }>;
  /** Epoch milliseconds of the first send. */
  at: number;
  /** A user's message: the thread that took it (for the conversation's title). */
  thread?: string;
  /** Written by Baton 0.1 when a message was deleted; still honoured when reading old files. */
  deleted?: true;
}

interface Conversation {
  id: string;
  messages: Map<string, StoredMessage>;
  /** Characters of text in `messages`. */
  chars: number;
  /** Lines in the file now (compaction trigger). */
  lines: number;
  dirty: Set<string>;
  /** Writes of this conversation, in order. */
  chain: Promise<void>;
}

export class ConversationHistory {
  private readonly conversations = new Map<string, Conversation>();
  private flushTimer?: NodeJS.Timeout;

  constructor(
    private readonly dir: string,
    private readonly log: PlatformLogger,
    private readonly limit = DEFAULT_HISTORY_LIMIT,
    /** A message fell out of the bound (its file, if any, can go too). */
    private readonly onDropped?: (conversation: string, message: StoredMessage) => void,
    private readonly maxChars = DEFAULT_HISTORY_CHARS,
  ) {}

  /** Reads every conversation file; a torn or foreign line is skipped with a warning. */
  load(): void {
    mkdirSync(this.dir, { recursive: true, mode: DIR_MODE });
    for (const file of readdirSync(this.dir)) {
      const id = file.replace(/\.jsonl$/, "");
      if (!file.endsWith(".jsonl") || !CONVERSATION_ID_PATTERN.test(id)) continue;
      const conversation = this.conversation(id);
      const lines = readFileSync(join(this.dir, file), "utf8").split("\n");
      lines.forEach((line, index) => {
        if (!line.trim()) return;
        conversation.lines++;
        try {
          const message = JSON.parse(line) as StoredMessage;
          if (typeof message.id !== "string" || typeof message.text !== "string") throw new Error("not a message");
          this.put(conversation, message);
        } catch {
          this.log.warn({ file, line: index + 1 }, "web chat history: skipped an unreadable line");
        }
      });
    }
  }

  ids(): string[] {
    return [...this.conversations.keys()];
  }

  has(id: string): boolean {
    return this.conversations.has(id);
  }

  messages(id: string): StoredMessage[] {
    return [...(this.conversations.get(id)?.messages.values() ?? [])];
  }

  get(id: string, messageId: string): StoredMessage | undefined {
    return this.conversations.get(id)?.messages.get(messageId);
  }

  /** A new message: kept and written at once. */
  append(id: string, message: StoredMessage): void {
    const conversation = this.conversation(id);
    this.put(conversation, message);
    this.write(conversation, [message]);
  }

  /** A changed message (streaming edit, decision shown): written with the next flush. */
  update(id: string, message: StoredMessage): void {
    const conversation = this.conversation(id);
    this.put(conversation, message);
    conversation.dirty.add(message.id);
    this.flushTimer ??= setTimeout(() => {
      this.flushTimer = undefined;
      void this.flush();
    }, EDIT_FLUSH_MS);
  }

  /** Drops a conversation and its file. */
  async forget(id: string): Promise<void> {
    const conversation = this.conversations.get(id);
    if (!conversation) return;
    this.conversations.delete(id);
    await conversation.chain;
    await unlink(this.path(id)).catch(() => undefined);
  }

  /** Writes pending edits and waits for every write. */
  async flush(): Promise<void> {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    for (const conversation of this.conversations.values()) {
      const changed = [...conversation.dirty].map((m) => conversation.messages.get(m)).filter((m): m is StoredMessage => !!m);
      conversation.dirty.clear();
      if (changed.length) this.write(conversation, changed);
    }
    await Promise.all([...this.conversations.values()].map((c) => c.chain));
  }

  private conversation(id: string): Conversation {
    let conversation = this.conversations.get(id);
    if (!conversation) {
      conversation = { id, messages: new Map(), chars: 0, lines: 0, dirty: new Set(), chain: Promise.resolve() };
      this.conversations.set(id, conversation);
    }
    return conversation;
  }

  private put(conversation: Conversation, message: StoredMessage): void {
    const previous = conversation.messages.get(message.id);
    if (previous) conversation.chars -= previous.text.length;
    if (message.deleted) {
      conversation.messages.delete(message.id);
      return;
    }
    conversation.messages.set(message.id, message);
    conversation.chars += message.text.length;
    // Oldest first in a Map: drop from the front past either bound (the newest message always stays).
    while (conversation.messages.size > this.limit || (conversation.chars > this.maxChars && conversation.messages.size > 1)) {
      const oldest = conversation.messages.keys().next().value as string;
      const dropped = conversation.messages.get(oldest)!;
      conversation.messages.delete(oldest);
      conversation.chars -= dropped.text.length;
      if (dropped.files) this.onDropped?.(conversation.id, dropped);
      conversation.dirty.delete(oldest);
    }
  }

  private write(conversation: Conversation, messages: StoredMessage[]): void {
    const path = this.path(conversation.id);
    // The file holds a line per write: rewritten once it has many times more lines than messages kept.
    const compact = conversation.lines + messages.length > Math.max(conversation.messages.size, COMPACT_MIN_MESSAGES) * COMPACT_FACTOR;
    conversation.lines = compact ? conversation.messages.size : conversation.lines + messages.length;
    const data = compact ? [...conversation.messages.values()] : messages;
    const text = data.map((m) => JSON.stringify(m)).join("\n") + (data.length ? "\n" : "");
    conversation.chain = conversation.chain
      .then(async () => {
        if (!compact) return appendFile(path, text, { mode: FILE_MODE });
        const temporary = `${path}.tmp`;
        await writeFile(temporary, text, { mode: FILE_MODE });
        await rename(temporary, path);
      })
      .catch((error: unknown) => this.log.warn({ conversation: conversation.id, err: error }, "web chat history: could not write"));
  }

  private path(id: string): string {
    return join(this.dir, `${id}.jsonl`);
  }
}
