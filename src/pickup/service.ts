// The handover service inside the daemon: issues pickup codes for the MCP tools and redeems them
// for /pickup, with the rate limits and an audit event for every attempt.
import { basename } from "node:path";
import type { ChatContext, HandoverApi, ThreadsApi, WorkspacesApi } from "../commands/context.js";
import type { AuditBody } from "../threads/registry.js";
import { PickupError, userMessageOf } from "../kernel/errors.js";
import type { Logger } from "../kernel/log.js";
import { PickupCodes, type Clock, type HandoverPayload } from "./codes.js";
import { PickupLimits } from "./limits.js";
import { attachExternalSession } from "./attach.js";
import { LaunchRegistry, type LaunchRecord } from "../handoff/launch/registry.js";
import { requireAgentKind, requireDirectory, resolveSession, type HandoverAgents } from "./sessions.js";
import type { GetSessionIdArgs, HandoverTools, PrepareHandoverArgs, RegisterWorkspaceArgs } from "../mcp/tools.js";
import type { SubagentTools } from "../core/subagents/tools.js";
import type { McpCaller, ToolReply } from "../core/tool-calls.js";
import type { HandoverKv } from "./kv.js";
import { LOCAL_MACHINE } from "../agents/machines/refs.js";

/** The one answer for unknown, expired and used codes, so a guesser learns nothing. */
export const INVALID_CODE_TEXT = "Handover code is invalid or expired.";

/** What handover needs of the conversation core, and nothing more. */
export interface HandoverCore {
  threads: ThreadsApi;
  agents: HandoverAgents;
  workspaces: WorkspacesApi;
  audit(body: AuditBody, threadId?: string): Promise<void>;
  /** The subagent tools for the agents of chat threads. */
  subagents?: SubagentTools;
  /** A thread's agent asking for a workspace: named inside the roots, else a proposal a person confirms (or refused). */
  proposals: { request(threadId: string, dir: string, name: string): Promise<ToolReply> };
}

export interface HandoverServiceOptions {
  core: HandoverCore;
  dataDir: string;
  kv: HandoverKv;
  codeTtlMs: number;
  failedPerSenderPerMin: number;
  failedTotalPerMin: number;
  log: Logger;
  clock?: Clock;
}

export class HandoverService implements HandoverApi, HandoverTools {
  readonly codes: PickupCodes;
  readonly limits: PickupLimits;
  readonly launches: LaunchRegistry;
  private readonly core: HandoverCore;

  constructor(private readonly options: HandoverServiceOptions) {
    this.core = options.core;
    this.codes = new PickupCodes(options.kv.codes, options.codeTtlMs, options.clock);
    this.limits = new PickupLimits(options.kv, { failedPerSenderPerMin: options.failedPerSenderPerMin, failedTotalPerMin: options.failedTotalPerMin });
    this.launches = new LaunchRegistry(options.dataDir);
  }

  async pickup(ctx: ChatContext, code: string): Promise<void> {
    const { route, user } = ctx.message;
    const audit = (outcome: string, extra: { session?: string; detail?: string; thread?: string } = {}) =>
      this.core.audit({ action: "pickup", platform: route.slice(0, route.indexOf(":")), user: user.id, route, outcome, session: extra.session, detail: extra.detail }, extra.thread);

    const admission = await this.limits.admit(user.id);
    if (!admission.ok) {
      await audit("rate_limited", { detail: admission.scope });
      const seconds = Math.max(1, Math.ceil(admission.retryAfterMs / 1000));
      throw new PickupError(`Too many failed pickups. Try again in ${seconds} s.`);
    }
    const payload = await this.codes.consume(code);
    await admission.settle(payload !== undefined);
    if (!payload) {
      await audit("invalid");
      throw new PickupError(INVALID_CODE_TEXT);
    }
    let attached;
    try {
      attached = await attachExternalSession(this.core, payload, route);
    } catch (error) {
      await audit("failed", { session: payload.session, detail: userMessageOf(error) });
      throw error;
    }
    await audit("attached", { session: attached.session, thread: attached.thread.id, detail: attached.created ? "new thread" : "reused thread" });
    const lines = [`Picked up ${this.core.agents.displayName(payload.agent)} session \`${attached.session.slice(0, 8)}\` in \`${attached.thread.workspace}\`. Send a message to continue.`];
    const terminal = this.liveTerminal(payload);
    if (terminal) {
      lines.push(
        `⚠️ This session is still open in a terminal (\`baton launch ${terminal.agent}\`, pid ${terminal.pid}). If you write in both places at once, the conversation forks; close the terminal or leave it idle.`,
      );
    }
    const others = [...attached.thread.routes].filter((r) => r !== route);
    if (others.length > 0) lines.push(`Also attached: ${others.map((r) => `\`${r}\``).join(", ")} — they see this thread's output too.`);
    if (attached.left) lines.push(`This chat left thread \`${attached.left}\`; it stays open (\`/session --switch\` returns to it).`);
    await ctx.reply(lines.join("\n"));
  }

  /** `caller`: the machine whose token the request carried (`local` for this one). */
  async getSessionId(args: GetSessionIdArgs, caller: string = LOCAL_MACHINE): Promise<ToolReply> {
    const launch = args.launch_id && caller === LOCAL_MACHINE ? this.launches.get(args.launch_id) : undefined;
    const agent = requireAgentKind(this.core.agents, args.agent_kind ?? launch?.agent);
    const cwd = await requireDirectory(this.core.workspaces, caller, args.cwd ?? launch?.cwd);
    const found = await resolveSession(this.core.agents, { agent, cwd, sessionId: args.session_id, launch });
    const s = found.session;
    const there = this.core.workspaces.machineOf(s.cwd ?? cwd).path;
    return {
      text: `${this.core.agents.displayName(agent)} session ${s.id}${s.title ? ` (“${s.title}”)` : ""} in ${there} — ${describeSource(found.source)}.`,
      data: { agent_kind: agent, session_id: s.id, cwd: there, title: s.title, last_activity: s.lastActivity ?? null, source: found.source },
    };
  }

  async prepareHandover(args: PrepareHandoverArgs, caller: string = LOCAL_MACHINE): Promise<ToolReply> {
    const agent = requireAgentKind(this.core.agents, args.agent_kind);
    const cwd = await requireDirectory(this.core.workspaces, caller, args.cwd);
    if (!(await this.core.workspaces.isAllowed(cwd))) {
      throw new PickupError(
        `\`${args.cwd}\` is outside Baton's allowed workspaces (${this.core.workspaces.describeRoots(cwd)}), so chat cannot run the agent there. ` +
          `An agent cannot allow it: the user adds it to ${caller === LOCAL_MACHINE ? "workspaces.roots" : `machines.${caller}.roots`} in the Baton config and reloads Baton. Then call prepare_handover again.`,
      );
    }
    const profile = args.profile ? this.core.agents.resolveHost([agent, args.profile]).profile : undefined;
    const launch = args.launch_id && caller === LOCAL_MACHINE ? this.launches.get(args.launch_id) : undefined;
    const found = await resolveSession(this.core.agents, { agent, cwd, sessionId: args.session_id, launch });
    const payload: HandoverPayload = { agent, profile, session: found.session.id, cwd, launchId: launch?.launchId };
    const { code, expiresAt } = await this.codes.issue(payload);
    const minutes = Math.round(this.options.codeTtlMs / 60_000);
    const window = minutes >= 1 ? `${minutes} minute${minutes === 1 ? "" : "s"}` : `${Math.round(this.options.codeTtlMs / 1000)} seconds`;
    const line = `/pickup ${code}`;
    this.options.log.info({ agent, session: found.session.id, cwd }, "handover code issued");
    return {
      text:
        `Type this in any chat connected to Baton within ${window}:\n\n    ${line}\n\n` +
        `It continues ${this.core.agents.displayName(agent)} session ${found.session.id.slice(0, 8)} (${describeSource(found.source)}) in ${args.cwd}. ` +
        `The code works once and expires at ${new Date(expiresAt).toISOString()}.`,
      data: { code, line, expires_at: new Date(expiresAt).toISOString(), agent_kind: agent, session_id: found.session.id, cwd: this.core.workspaces.machineOf(cwd).path },
    };
  }

  /**
   * Names an allowed directory; never allows one the config does not. A thread's agent proposes
   * the others to its chat (when the config lets it); a terminal is told to use the config.
   */
  async registerWorkspace(args: RegisterWorkspaceArgs, caller: McpCaller = { machine: LOCAL_MACHINE }): Promise<ToolReply> {
    const cwd = await requireDirectory(this.core.workspaces, caller.machine, args.cwd);
    const name = args.name?.trim() || basename(this.core.workspaces.machineOf(cwd).path);
    if (caller.thread) return this.core.proposals.request(caller.thread, cwd, name);
    if (!(await this.core.workspaces.isAllowed(cwd))) {
      const key = caller.machine === LOCAL_MACHINE ? "workspaces.roots" : `machines.${caller.machine}.roots`;
      throw new PickupError(
        `\`${args.cwd}\` is outside Baton's allowed workspaces (${this.core.workspaces.describeRoots(cwd)}). An agent cannot allow it: the user adds it to ${key} in the Baton config.`,
      );
    }
    const path = await this.core.workspaces.register(cwd, name);
    this.options.log.info({ path, name }, "workspace named over MCP");
    return {
      text: `Named ${path} "${name}" (\`/workspace --switch ${name}\` in chat); Baton keeps the name across restarts.`,
      data: { cwd: path, name, status: "registered" },
    };
  }

  /** A `baton launch` terminal that still runs this agent on this session's directory. */
  private liveTerminal(payload: HandoverPayload): LaunchRecord | undefined {
    return this.launches.running().find((l) => l.launchId === payload.launchId || (l.agent === payload.agent && l.cwd === payload.cwd));
  }
}

function describeSource(source: "given" | "launch" | "newest"): string {
  return source === "given" ? "as given" : source === "launch" ? "the session of this `baton launch` run" : "the newest session of this agent here";
}
