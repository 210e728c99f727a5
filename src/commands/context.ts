// What a command handler sees: the message, a way to answer, and the small interfaces through
// which it reaches threads and agents. core/ and handover/ implement these; commands import neither.
import type { ContentBlock } from "@agentclientprotocol/sdk";
import type { Button, InboundFile, PlatformUser } from "../platforms/contract.js";
import type { ThreadRecord } from "../threads/registry.js";
import type { HostState } from "../agents/supervisor.js";
import type { Parsed } from "./parse.js";
import type { ChatFeatures } from "./features.js";

export interface BriefWritten {
  path: string;
  runtime: string;
  text?: string;
  /** Baton could not read the session: the brief names it and carries no history. */
  minimal?: boolean;
}

export interface HostChoice {
  agent: string;
  profile?: string;
}

export interface SessionSummary {
  id: string;
  title: string;
  cwd?: string;
  lastActivity?: string;
  /** Open thread bound to this session, if any. */
  thread?: string;
  source: "store" | "thread";
}

export interface ThreadsApi {
  forRoute(route: string): ThreadRecord | undefined;
  get(id: string): ThreadRecord | undefined;
  create(route: string, spec: { workspace: string; agent: string; profile?: string; session?: string; origin?: string; binding?: string }): Promise<ThreadRecord>;
  /** Closes the thread and stops its host. */
  close(threadId: string, reason: string): Promise<void>;
  attach(route: string, threadId: string): Promise<void>;
  /** Detaches this route from its thread; the thread and its other routes carry on. */
  detach(route: string): Promise<void>;
  findOpenBySession(agent: string, session: string): ThreadRecord | undefined;
  changeHost(threadId: string, host: HostChoice): Promise<void>;
  recordContextTransfer(threadId: string, fromRuntime: string, fromSession: string, briefPath: string): Promise<void>;
  all(): Iterable<ThreadRecord>;
}

/** A prompt handed to its thread's agent. */
export interface Submitted {
  /** Turns ahead of it. */
  ahead: number;
  /** Resolves once the prompt is kept for after a restart (at once for one that starts now); rejects when it could not be. */
  saved: Promise<void>;
}

export interface AgentsApi {
  /**
   * Queues a prompt (`author`: whose it is, when a person in the chat wrote it; `ticket`: its
   * admission under the author's limits, ended with the turn): how many turns are ahead, and
   * `saved`, which settles once a prompt that waits is durable (rejects when it could not be kept).
   */
  submit(thread: ThreadRecord, prompt: ContentBlock[], author?: PlatformUser, ticket?: TurnTicket): Submitted;
  /** Whose prompt started the running turn; undefined when none runs or no one in the chat started it. */
  runningAuthor(threadId: string): PlatformUser | undefined;
  /** True while Baton shuts down: no new turn starts; submitted prompts run after the restart. */
  restarting?(): boolean;
  /** Cancels the running turn and the thread's subagents; false when nothing ran. */
  cancel(threadId: string): Promise<boolean>;
  state(threadId: string): { host: HostState; queued: number; approvals: number };
  /** The thread's subagents (its current multi-agent turn, and unfinished earlier ones). */
  subagents(threadId: string): Array<{ name: string; agent: string; state: string; lastTool?: string }>;
  stopHost(threadId: string): Promise<void>;
  /** Parses `claude`, `claude+fast`, `fast` (a profile), `claude fast`. Throws CommandError when unknown. */
  resolveHost(words: string[]): HostChoice;
  isHostName(word: string): boolean;
  defaultHost(): HostChoice;
  displayName(agent: string): string;
  /** Sessions of this agent in this workspace, newest first: the agent's store plus Baton's threads. */
  listSessions(agent: string, workspace: string): Promise<SessionSummary[]>;
  /** Full id or unique prefix (≥ 6 chars). Throws CommandError listing candidates when ambiguous. */
  findSession(agent: string, workspace: string, idOrPrefix: string): Promise<SessionSummary>;
  /**
   * Writes a brief of a session for another agent, on the workspace's machine; returns its path
   * there, the runtime id, and its text when Baton rendered it here (not when Baton on another
   * machine wrote it).
   */
  writeBrief(agent: string, sessionId: string, workspace: string): Promise<BriefWritten>;
  /** The first prompt of a session continued from that brief: its text embedded when known, else its path. */
  handoffContent(brief: BriefWritten, sessionId: string): ContentBlock[];
  /** The exact terminal command to continue this session natively, or why there is none. */
  terminalCommand(thread: ThreadRecord): Promise<{ command?: string; cwd: string; note?: string }>;
  /**
   * A typed answer (`/allow`, `/deny`, a number) for the thread's oldest open request; undefined when
   * none is open or the text is no answer. `refused`: the person may not decide (tell them privately).
   */
  answerApproval(threadId: string, text: string, user: PlatformUser, route: string): { text: string; refused?: boolean } | undefined;
}

/** Workspaces are a path on this machine or `<machine>:<path>` on another (`build:/srv/api`). */
export interface WorkspacesApi {
  /** The workspace of new threads (canonical; on another machine this asks it). */
  default(): Promise<string>;
  /** Named workspaces, the default, registered ones and each machine's roots, as written. */
  list(): Array<{ name: string; path: string }>;
  /** A name from config, a path, or `machine:path` / `machine:name`; throws CommandError when it is not allowed or does not exist. */
  resolve(nameOrPath: string): Promise<string>;
  /** Names a directory, durably; `confirmedBy`: the person who confirmed it outside the roots. Returns its canonical form. */
  register(workspace: string, name?: string, confirmedBy?: string): Promise<string>;
  /** An existing directory under its machine's roots (or registered), canonical; throws CommandError when not. */
  requireAllowed(workspace: string): Promise<string>;
  /** The canonical form of an existing directory, or undefined when there is none. */
  directory(workspace: string): Promise<string | undefined>;
  isAllowed(workspace: string): Promise<boolean>;
  /** The roots of the workspace's machine (default: this one), for messages. */
  describeRoots(workspace?: string): string;
  /** Which machine a workspace is on, for the chat, and the path there. */
  machineOf(workspace: string): { name: string; label: string; login?: string; path: string };
}

/** A thread's own git worktree (workspaces.isolation: worktree); the core implements it (core/worktree-commands.ts). */
export interface WorktreesApi {
  /** Before a thread's first prompt: makes its worktree when isolation asks for one; a note for the chat when it cannot. */
  beforePrompt(thread: ThreadRecord, prompt: string): Promise<string | undefined>;
  /** Files changed against the branch point (uncommitted and new files included), and the patch. Throws CommandError without a worktree. */
  diff(thread: ThreadRecord): Promise<{ branch: string; baseBranch: string; files: Array<{ path: string; added?: number; removed?: number }>; patch: string }>;
  /** Commits leftovers, then merges the branch into the base branch in the main checkout; the answer, or a CommandError saying why not. */
  merge(thread: ThreadRecord): Promise<string>;
  /** The thread's worktree for /status (branch, ahead/behind, disk use), or undefined when it has none. */
  describe(thread: ThreadRecord): Promise<string | undefined>;
  /** Commits leftovers, pushes the branch and opens a pull/merge request on the remote's forge; its link. */
  pullRequest(thread: ThreadRecord, title?: string): Promise<string>;
  /** The thread (already closed) loses its worktree; its branch stays. A line for the chat, or undefined when it had none. */
  removeAfterClose(thread: ThreadRecord): Promise<string | undefined>;
  /** A confirmation for /close --discard: text and the buttons that close the thread and delete worktree and branch. */
  askDiscard(thread: ThreadRecord, route: string): { text: string; buttons: Button[][] };
}

/** A prompt admitted under its person's limits (limits.per_person), from admission to the end of its turn. */
export interface TurnTicket {
  /** The person the turn counts for (access.people joins accounts). */
  person: string;
  /** The turn ended (`ran`), or the prompt never became one (given back): its running place is freed. Once. */
  end(ran: boolean): void;
  /** Adds what the turn's agent reported to the person's day. */
  charge(spent: { tokens?: number; usd?: number }): void;
}

export interface LimitsApi {
  /**
   * Before a prompt goes to an agent: its ticket, or the answer naming the limit it is over and when
   * it resets (the prompt is not sent). `about: "maker"`: the answer speaks of the person (a schedule's maker).
   */
  admit(user: PlatformUser, route: string, about?: "maker"): Promise<{ ok: true; ticket: TurnTicket } | { ok: false; text: string }>;
  /** /usage: the person's use and limits; an admin's lists everyone with use today. */
  report(user: PlatformUser, route: string): Promise<string>;
}

export interface HandoverApi {
  pickup(ctx: ChatContext, code: string): Promise<void>;
}

/** A message as the commands see it: the bot's mention taken out, files not fetched yet. */
export interface ChatMessage {
  route: string;
  user: PlatformUser;
  text: string;
  messageId?: string;
  direct: boolean;
  files: InboundFile[];
}

/** A file fetched into the cache, ready for the agent. */
export interface LocalFile {
  name: string;
  path: string;
  mimeType?: string;
  size: number;
}

export interface ReplyOptions {
  format?: "markdown" | "plain";
  /** Only the sender sees it, where the platform can do that (Slack and Discord ephemerals). */
  onlyToSender?: boolean;
  /** Buttons, on platforms that have them (see ChatContext.buttons). */
  buttons?: Button[][];
  /** Receives a way to replace the reply later (a menu showing the choice made). */
  keep?: (replace: (text: string) => void) => void;
}

/** The sender's standing: admin, member, or a stranger (undefined; only /help reaches them). */
interface AccessApi {
  role: "admin" | "member" | undefined;
  /**
   * Before an admin-only part of a command (`what`, in words: "Adding a schedule"): throws a
   * CommandError naming the role needed and the sender's id unless their role suffices (access.commands may move it).
   */
  require(command: string, what: string): void;
  /** Records something the sender did or was refused (a limit) in the audit trail; who and where are filled in. */
  note(event: { action: string; outcome: string; detail?: string }): void;
}

export interface ChatContext {
  message: ChatMessage;
  parsed: Parsed;
  /** The core decided the message is for the bot (a DM, a mention, a reply to it, a command, a route that listens to all). */
  addressed: boolean;
  /** Queues an answer on the message's route (after what is already queued there). */
  reply(text: string, options?: ReplyOptions): Promise<void>;
  /** Fetches the message's files into the cache; notes say what could not be fetched. */
  fetchFiles(): Promise<{ files: LocalFile[]; notes: string[] }>;
  threads: ThreadsApi;
  agents: AgentsApi;
  workspaces: WorkspacesApi;
  worktrees: WorktreesApi;
  handover?: HandoverApi;
  features: ChatFeatures;
  limits: LimitsApi;
  /** The platform shows buttons. */
  buttons: boolean;
  commands: CommandSpec[];
  access: AccessApi;
}

export interface CommandSpec {
  name: string;
  aliases?: string[];
  usage: string;
  description: string;
  run(ctx: ChatContext, args: string[]): Promise<void>;
}
