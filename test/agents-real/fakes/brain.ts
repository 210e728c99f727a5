// The scripted "model" behind every fake model server. Each wire fake turns a request into a
// neutral conversation (which user prompt is being answered, how many model turns have followed
// it), asks the brain for the next reply, and writes that reply in its own wire format.
//
// A script entry matches a keyword in the latest user prompt and lists the replies of that turn in
// order: a tool call, then (once the tool result comes back) the final text, and so on. Requests
// that are not the agent's main loop (titles, routing, summaries: they carry no tools) get a short
// text, so side calls never consume a scripted step.

export interface ToolCallReply {
  /** The tool's name as the agent declared it (Bash, exec_command, run_shell_command, …). */
  tool: string;
  input: Record<string, unknown>;
}

export type Reply = ({ text: string } | ToolCallReply) & {
  /** Think this long before answering (as a real model does; some agents need the time). */
  delayMs?: number;
};

/** A reply, or a function that builds it from the request (to name a tool the agent declared). */
export type ScriptedReply = Reply | ((c: Conversation) => Reply);

export interface ScriptEntry {
  /** Matched against the latest user prompt: a prefix of it, or a regular expression. */
  match: string | RegExp;
  replies: ScriptedReply[];
}

/** What a wire fake knows about one request, in neutral terms. */
export interface Conversation {
  /** Text of the latest user message that is a prompt (not a tool result): its last text piece. */
  lastPrompt: string;
  /** Every text piece of that message (an agent may put embedded files or context around the typed text). */
  promptTexts: string[];
  /** Model turns since that prompt (each answered tool round is one). */
  turnsSincePrompt: number;
  /** The agent offered tools: this is its main loop, not a side call. */
  hasTools: boolean;
  /** Names of the tools offered. */
  tools: string[];
  /** Tool results sent back since the prompt, newest last (text only). */
  toolResults: string[];
}

export interface RecordedRequest {
  path: string;
  /** The raw JSON body. */
  body: unknown;
  /** The whole body as text, for "does the model see X" assertions. */
  text: string;
  conversation?: Conversation;
  reply?: Reply;
  /** Why the script could not answer (the fake answered 500). */
  error?: string;
  at: number;
}

/** The final answer after a script runs out, and the answer to side calls. */
const DEFAULT_FINAL_TEXT = "Done.";
export const SIDE_CALL_TEXT = "Fake title";

export class Brain {
  readonly requests: RecordedRequest[] = [];
  /** Pause between streamed chunks, so a chat sees the answer grow (edits) rather than arrive whole. */
  chunkDelayMs = 0;
  private readonly entries: ScriptEntry[] = [];

  /** Adds a scripted turn; later entries win over earlier ones with the same match. */
  on(match: string | RegExp, ...replies: ScriptedReply[]): this {
    this.entries.unshift({ match, replies });
    return this;
  }

  /** The reply to a main-loop request. */
  decide(c: Conversation): Reply {
    if (!c.hasTools) return { text: SIDE_CALL_TEXT };
    // The start of a line of the prompt, not any substring: side calls quote the prompt inside
    // their own instructions, and agents may join the prompt's text blocks into one.
    const lines = promptLines(c);
    const entry = this.entries.find((e) => lines.some((line) => (typeof e.match === "string" ? line.startsWith(e.match) : e.match.test(line))));
    if (!entry) return { text: `${DEFAULT_FINAL_TEXT} (no script for this prompt)` };
    const reply = entry.replies[c.turnsSincePrompt] ?? { text: DEFAULT_FINAL_TEXT };
    return typeof reply === "function" ? reply(c) : reply;
  }

  /** Records a main-loop request and decides its reply (a failing script is recorded too). */
  answer(path: string, body: unknown, conversation: Conversation): Reply {
    const recorded: RecordedRequest = { path, body, text: JSON.stringify(body), conversation, at: Date.now() };
    this.requests.push(recorded);
    try {
      recorded.reply = this.decide(conversation);
    } catch (error) {
      recorded.error = (error as Error).message;
      throw error;
    }
    return recorded.reply;
  }

  /** Records a side request (no scripted reply). */
  record(path: string, body: unknown): void {
    this.requests.push({ path, body, text: JSON.stringify(body), at: Date.now() });
  }

  /** Main-loop requests (those that offered tools), oldest first. */
  mainRequests(): RecordedRequest[] {
    return this.requests.filter((r) => r.conversation?.hasTools);
  }

  /** The first main-loop request answering the prompt with a line that starts with `text`. */
  requestFor(text: string): RecordedRequest | undefined {
    return this.mainRequests().find((r) => r.conversation && promptLines(r.conversation).some((line) => line.startsWith(text)));
  }

  /** Forgets recorded requests (the script stays). */
  clear(): void {
    this.requests.length = 0;
  }
}

function promptLines(c: Conversation): string[] {
  return c.promptTexts.flatMap((t) => t.split("\n")).map((line) => line.trimStart());
}

export function isToolCall(reply: Reply): reply is ToolCallReply {
  return "tool" in reply;
}

export function pause(ms: number): Promise<void> {
  return ms > 0 ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve();
}

/** Text pieces of a reply, cut so a streamed answer arrives in several chunks. */
export function chunks(text: string, size = 12): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out.length ? out : [""];
}
