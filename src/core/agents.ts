// AgentsApi for the commands: hosts and profiles from config, the supervisor, session stores and
// briefs. The one place that knows how a thread's agent + profile becomes a process to launch.
import { readFile } from "node:fs/promises";
import { setTimeout as delay } from "node:timers/promises";
import { join } from "node:path";
import type { ContentBlock } from "@agentclientprotocol/sdk";
import type { AgentsApi, BriefWritten, HostChoice, SessionSummary, Submitted, TurnTicket } from "../commands/context.js";
import type { ApprovalBroker, TypedAnswer } from "./approvals.js";
import { firstInstalledKind, getAgentKind, type AgentKind } from "../agents/products/index.js";
import { kindsOf } from "./agent-kinds.js";
import type { LaunchSpec, Supervisor } from "../agents/supervisor.js";
import type { OpenedSession } from "../agents/host.js";
import type { StoredSession } from "../agents/stores/index.js";
import { loadStores } from "../agents/load-stores.js";
import { displayCommand, handoffContent, handoffPrompt, nativeResumeCommand } from "../agents/runtimes/index.js";
import { LOCAL_MACHINE, MachineError, type Machines } from "../agents/machines/index.js";
import { THREAD_ENV } from "../agents/spare.js";
import { describeBadId, isValidSessionId, sessionIdShape } from "../agents/runtimes/session-ids.js";
import type { ThreadRecord, ThreadRegistry } from "../threads/registry.js";
import type { BatonConfig } from "../config/schema.js";
import { AgentError, BatonError, CommandError } from "../kernel/errors.js";
import type { PlatformLogger, PlatformUser } from "../platforms/contract.js";
import { ThreadAuthors } from "./conversation/authors.js";
import { AgentSessions } from "./agent-sessions.js";

/** How long a brief waits for a session to appear in its agent's store, and how often it looks. */
const STORE_CATCH_UP_MS = 3_000;
const STORE_RETRY_MS = 250;

export class BatonAgents implements AgentsApi {
  private readonly autoKind: AgentKind;
  /** Built-in kinds plus the config's `agents.custom` ACP agents. */
  private kinds: AgentKind[];
  /** Set by the core once it made them: /stop cancels them, /status lists them. */
  subagentControl?: { cancelAll(threadId: string, note: string): Promise<number>; list(threadId: string): Array<{ name: string; agent: string; state: string; lastTool?: string }> };
  /** Briefs kept before a resume that could lose the session, by thread. */
  private readonly keptBriefs = new Map<string, BriefWritten>();
  private readonly authors = new ThreadAuthors();
  private readonly sessions: AgentSessions;

  constructor(
    private config: BatonConfig["agents"],
    private readonly dataDir: string,
    private readonly supervisor: Supervisor,
    /** Where prompts go with how their turns start (turns.ts). */
    private readonly turns: {
      submit(threadId: string, prompt: ContentBlock[], id?: string, author?: PlatformUser, ticket?: TurnTicket): number;
      runningAuthor(threadId: string): PlatformUser | undefined;
    },
    private readonly registry: ThreadRegistry,
    private readonly approvals: ApprovalBroker,
    private readonly machines: Machines,
    env: NodeJS.ProcessEnv = process.env,
    private readonly log?: PlatformLogger,
  ) {
    this.autoKind = firstInstalledKind(env);
    this.kinds = kindsOf(config);
    this.sessions = new AgentSessions(machines, registry, {
      runtimeOf: (agent) => this.kind(agent)?.runtime ?? agent,
      displayName: (agent) => this.displayName(agent),
    });
  }

  /** A config reload: profiles, custom agents, the default and the limits apply to the next turn. */
  reconfigure(config: BatonConfig["agents"]): void {
    this.config = config;
    this.kinds = kindsOf(config);
    this.supervisor.setLimits({ maxLiveHosts: config.max_live_hosts, idleShutdownMs: config.idle_shutdown });
  }

  kind(id: string): AgentKind | undefined {
    return this.kinds.find((k) => k.id === id) ?? getAgentKind(id);
  }

  /** True when no agent CLI was found and the demo agent stands in (its first reply says so). */
  get demoIsFallback(): boolean {
    return this.config.default === "auto" && this.autoKind.id === "demo";
  }

  defaultHost(): HostChoice {
    const configured = this.config.default;
    if (configured === "auto") return { agent: this.autoKind.id };
    return this.resolveHost([configured]);
  }

  isHostName(word: string): boolean {
    return !!this.kind(word) || word in this.config.profiles;
  }

  displayName(agent: string): string {
    return this.kind(agent)?.displayName ?? agent;
  }

  resolveHost(words: string[]): HostChoice {
    const [first, second] = words.length === 1 && words[0].includes("+") ? words[0].split("+", 2) : words;
    const known = () => `Agents: ${this.kinds.map((k) => k.id).join(", ")}${Object.keys(this.config.profiles).length ? `; profiles: ${Object.keys(this.config.profiles).join(", ")}` : ""}.`;
    if (!first) throw new CommandError(`Name an agent. ${known()}`);
    const profileOnly = this.config.profiles[first];
    if (!this.kind(first) && profileOnly && !second) return { agent: profileOnly.agent, profile: first };
    if (!this.kind(first)) throw new CommandError(`Unknown agent "${first}". ${known()}`);
    if (!second) return { agent: first };
    const profile = this.config.profiles[second];
    if (!profile) throw new CommandError(`Unknown profile "${second}". ${known()}`);
    if (profile.agent !== first) throw new CommandError(`Profile "${second}" belongs to ${profile.agent}, not ${first}.`);
    return { agent: first, profile: second };
  }

  /**
   * The process that serves a thread, on its workspace's machine, working in `workdir` (its own
   * worktree, when it has one). Throws a fatal AgentError when it cannot run.
   */
  launchSpec(thread: ThreadRecord, workdir = thread.workspace): Promise<LaunchSpec> {
    return this.launchFor({ agent: thread.agent, profile: thread.profile, workspace: workdir, threadId: thread.id, host: true });
  }

  /** An agent process for a thread: its host, or (`host: false`) one of its subagents, maybe in a worktree. */
  async launchFor(target: { agent: string; profile?: string; workspace: string; threadId: string; host: boolean }): Promise<LaunchSpec> {
    const kind = this.kind(target.agent);
    if (!kind) throw new AgentError(`Unknown agent "${target.agent}" on this thread.`, { fatal: true });
    const { machine, path } = this.machines.locate(target.workspace);
    const profile = target.profile ? this.config.profiles[target.profile] : undefined;
    const launch = kind.acpCommand();
    const model = profile?.model ? kind.modelArgs?.(profile.model) : undefined;
    const env: Record<string, string> = { ...kind.askEnv, ...model?.env, ...profile?.env, [THREAD_ENV]: target.threadId };
    if (kind.id === "demo" && this.demoIsFallback && target.host) env.BATON_DEMO_NOTICE = "1";
    const spawn = await machine.launch({
      kind,
      command: profile?.command ?? launch.command,
      args: launch.args,
      extraArgs: [...(model?.args ?? []), ...(profile?.args ?? [])],
      env,
      unsetEnv: kind.unsafeEnv ?? [],
      cwd: path,
    });
    return { kind, ...spawn, niceness: spawn.transport ? 0 : this.config.nice };
  }

  /** What a spare agent process is started with: a new thread's host in `workspace`, when the config wants one and it is on this machine. */
  async spareLaunch(workspace: string): Promise<LaunchSpec | undefined> {
    if (!this.config.spare_host || this.machines.locate(workspace).machine.name !== LOCAL_MACHINE) return undefined;
    const spec = await this.launchFor({ ...this.defaultHost(), workspace, threadId: "", host: true });
    delete spec.env[THREAD_ENV];
    return spec;
  }

  submit(thread: ThreadRecord, blocks: ContentBlock[], author?: PlatformUser, ticket?: TurnTicket): Submitted {
    const prompt = author ? this.authors.label(thread.id, author, blocks) : blocks;
    if (!this.supervisor.wouldWait(thread.id)) return { ahead: this.turns.submit(thread.id, prompt, undefined, author, ticket), saved: Promise.resolve() };
    // A prompt that waits is kept in the registry, so a restart runs it instead of losing it.
    const { id, written } = this.registry.queuePrompt(thread.id, prompt);
    written.catch((error: unknown) => this.log?.error({ thread: thread.id, err: error }, "could not keep a queued prompt; it runs, but not after a restart"));
    return { ahead: this.turns.submit(thread.id, prompt, id, author, ticket), saved: written };
  }

  runningAuthor(threadId: string): PlatformUser | undefined {
    return this.turns.runningAuthor(threadId);
  }

  restarting(): boolean {
    return this.supervisor.paused;
  }

  async cancel(threadId: string): Promise<boolean> {
    const [host, subagents] = await Promise.all([this.supervisor.cancel(threadId), this.subagentControl?.cancelAll(threadId, "stopped with /stop") ?? 0]);
    return host || subagents > 0;
  }

  subagents(threadId: string): Array<{ name: string; agent: string; state: string; lastTool?: string }> {
    return this.subagentControl?.list(threadId) ?? [];
  }

  state(threadId: string) {
    return this.supervisor.state(threadId);
  }

  stopHost(threadId: string): Promise<void> {
    return this.supervisor.stopHost(threadId);
  }

  answerApproval(threadId: string, text: string, user: PlatformUser, route: string): TypedAnswer | undefined {
    return this.approvals.answerText(threadId, text, user, route);
  }

  listSessions(agent: string, workspace: string): Promise<SessionSummary[]> {
    return this.sessions.list(agent, workspace);
  }

  findSession(agent: string, workspace: string, idOrPrefix: string): Promise<SessionSummary> {
    return this.sessions.find(agent, workspace, idOrPrefix);
  }

  /**
   * A brief of the session, written on the workspace's machine where the next agent can read it.
   * Its text comes back too, so the first prompt can carry it whole.
   */
  async writeBrief(agent: string, sessionId: string, workspace: string): Promise<BriefWritten> {
    const runtime = this.kind(agent)?.runtime ?? agent;
    const { machine } = this.machines.locate(workspace);
    const [{ getReader, SessionLookupError }, { writeBrief, writePrivateFile }] = await Promise.all([loadStores(), import("../handoff/brief/index.js")]);
    // An agent may write its transcript a moment after the turn ends (Claude Code queues its
    // writes): a session not found yet is looked for again for a short while.
    for (const deadline = Date.now() + STORE_CATCH_UP_MS; getReader(runtime); ) {
      try {
        const placed = await machine.writeBrief(runtime, sessionId, async (store, outputDir) => {
          const { path } = await writeBrief({ ...store, runtime, sessionId, outputDir });
          return { path, text: await readFile(path, "utf8") };
        });
        return { ...placed, runtime };
      } catch (error) {
        if (!(error instanceof BatonError) || error instanceof MachineError) throw error;
        if (!(error instanceof SessionLookupError && error.reason === "not_found") || Date.now() >= deadline) break;
        await delay(STORE_RETRY_MS);
      }
    }
    // The minimal brief: the session is not in the store, or the store could not be read.
    const text = [
      `# Handoff brief`,
      ``,
      `## Source session`,
      `- Runtime: ${runtime}`,
      `- Session id: ${sessionId}`,
      ``,
      `Baton cannot read this runtime's transcript, so this brief carries no history.`,
      ``,
      `## Before continuing`,
      `Check the working tree (git status, git log) and confirm the task with the user before changing anything.`,
    ].join("\n");
    const local = await writePrivateFile(join(this.dataDir, "handoffs"), `${runtime}-${sessionId.replace(/[^\w.-]/g, "_")}-minimal.md`, text);
    return { path: await machine.placeBrief(local), runtime, text, minimal: true };
  }

  /** For agents whose failed resume can lose the session: a brief of it, kept until the resume is done. */
  async keepBriefBeforeResume(thread: ThreadRecord): Promise<void> {
    this.keptBriefs.delete(thread.id);
    if (!thread.session || !this.kind(thread.agent)?.resumeMayLoseHistory) return;
    try {
      const brief = await this.writeBrief(thread.agent, thread.session, thread.workspace);
      if (!brief.minimal) this.keptBriefs.set(thread.id, brief);
    } catch {
      // No brief: resuming goes ahead, as it would for any other agent.
    }
  }

  /**
   * After a host opened its session: when resuming failed and a new session started, the new one
   * gets a brief of the old one ahead of the first prompt, so the conversation still carries.
   */
  async afterSessionOpened(thread: ThreadRecord, previous: string | undefined, opened: OpenedSession): Promise<{ carry?: ContentBlock[]; note?: string } | undefined> {
    const kept = this.keptBriefs.get(thread.id);
    this.keptBriefs.delete(thread.id);
    if (opened.how !== "new-after-failed-resume" || !previous) return undefined;
    let brief = kept;
    if (!brief && (await loadStores()).getReader(this.kind(thread.agent)?.runtime ?? thread.agent)) {
      brief = await this.writeBrief(thread.agent, previous, thread.workspace).catch(() => undefined);
    }
    if (!brief || brief.minimal) return undefined;
    return { carry: this.handoffContent(brief, previous), note: `${opened.note ?? ""} It starts from a brief of session ${previous.slice(0, 8)}.`.trim() };
  }

  handoffContent(brief: BriefWritten, sessionId: string): ContentBlock[] {
    if (brief.text !== undefined) return handoffContent(brief.path, brief.text, brief.runtime, sessionId);
    return [{ type: "text", text: handoffPrompt(brief.path, brief.runtime, sessionId) }];
  }

  async terminalCommand(thread: ThreadRecord): Promise<{ command?: string; cwd: string; note?: string }> {
    const kind = this.kind(thread.agent);
    const runtime = kind?.runtime ?? thread.agent;
    const { machine, path } = this.machines.locate(thread.workspace);
    if (!thread.session) return { cwd: path, note: "No session yet." };
    if (!isValidSessionId(runtime, thread.session)) {
      return {
        cwd: path,
        note: `This thread's session id ${describeBadId(thread.session)} is not a valid ${this.displayName(thread.agent)} session id (${sessionIdShape(runtime)}), so there is no command to show. Start over with /new.`,
      };
    }
    if (runtime === "demo") {
      return { cwd: path, note: `The demo agent has no terminal CLI. \`baton handoff export ${thread.session}\` writes a brief another agent can continue from.` };
    }
    let stored: StoredSession | undefined;
    try {
      const { getReader } = await loadStores();
      stored = getReader(runtime) ? (await machine.listSessions(runtime)).find((s) => s.id === thread.session) : undefined;
    } catch {
      stored = undefined; // the command is still right without the store's details
    }
    stored ??= { id: thread.session, runtime, title: "", cwd: path, lastActivity: new Date().toISOString(), file: "", counts: { prompts: 0, replies: 0, tools: 0 } };
    try {
      const cmd = nativeResumeCommand(stored, path);
      return { command: displayCommand(cmd), cwd: cmd.dir, note: `Or: \`baton handoff resume ${thread.session}\`` };
    } catch (error) {
      return { cwd: path, note: `${(error as BatonError).userMessage ?? String(error)} Try \`baton handoff resume ${thread.session}\`.` };
    }
  }
}
