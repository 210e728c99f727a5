// Which agent session a handover means: the id given (full or a unique prefix), else the session
// of the `baton launch` run that asked (the newest one active since the launch started), else the
// newest session of that agent in that directory — from the agent's own store and Baton's threads.
import { realpathSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import type { AgentsApi, SessionSummary, WorkspacesApi } from "../commands/context.js";
import { formatWorkspaceRef, LOCAL_MACHINE } from "../agents/machines/refs.js";
import { agentKinds, type AgentKind } from "../agents/products/index.js";
import { describeBadId, isValidSessionId, sessionIdShape } from "../agents/runtimes/session-ids.js";
import { CommandError, PickupError } from "../kernel/errors.js";
import type { LaunchRecord } from "../handoff/launch/registry.js";
import { loadStores } from "../agents/load-stores.js";

export interface ResolvedSession {
  agent: string;
  cwd: string;
  session: SessionSummary;
  /** How it was found, for the agent to tell the user. */
  source: "given" | "launch" | "newest";
}

/** The agents API plus the kind lookup that knows the config's custom agents too. */
export type HandoverAgents = AgentsApi & { kind(id: string): AgentKind | undefined };

export function requireAgentKind(agents: HandoverAgents, agent: string | undefined): string {
  const known = `${agentKinds()
    .map((k) => k.id)
    .join(", ")}, or an agent from agents.custom in the Baton config`;
  if (!agent) throw new PickupError(`Say which agent this is (agent_kind): ${known}.`);
  if (!agents.kind(agent)) throw new PickupError(`Unknown agent kind "${agent}". Known: ${known}.`);
  return agent;
}

/**
 * The session with this id or unique prefix, from the agent's store and Baton's threads. For an
 * agent whose store Baton cannot read, a full id it has never seen is taken as given: the agent
 * itself is the judge when it resumes.
 */
export async function lookupSession(agents: HandoverAgents, agent: string, cwd: string, id: string): Promise<SessionSummary> {
  try {
    return await agents.findSession(agent, cwd, id);
  } catch (error) {
    const runtime = agents.kind(agent)?.runtime ?? agent;
    // The store readers load only here, on a failed lookup: start-up does not pay for them.
    const { getReader, MIN_PREFIX_CHARS } = await loadStores();
    if (error instanceof CommandError && !getReader(runtime) && id.length >= MIN_PREFIX_CHARS) {
      if (!isValidSessionId(runtime, id)) throw new PickupError(`${describeBadId(id)} is not a valid session id for ${agents.displayName(agent)} (${sessionIdShape(runtime)}).`);
      return { id, title: "", cwd, source: "thread" };
    }
    throw error;
  }
}

/**
 * An absolute, existing directory on the caller's machine, as a canonical workspace (its real
 * path here, so /tmp and /private/tmp compare equal; `build:/real/path` on another machine).
 */
export async function requireDirectory(workspaces: WorkspacesApi, machine: string, cwd: string | undefined): Promise<string> {
  if (!cwd) throw new PickupError("Give the session's working directory (cwd) as an absolute path.");
  if (!isAbsolute(cwd)) throw new PickupError(`The working directory must be an absolute path, not "${cwd}".`);
  const dir = await workspaces.directory(formatWorkspaceRef(machine, cwd));
  if (!dir) throw new PickupError(`\`${cwd}\` is not an existing directory${machine === LOCAL_MACHINE ? "" : ` on ${machine}`}.`);
  return dir;
}

export async function resolveSession(agents: HandoverAgents, request: { agent: string; cwd: string; sessionId?: string; launch?: LaunchRecord }): Promise<ResolvedSession> {
  const { agent, cwd, sessionId, launch } = request;
  if (sessionId) {
    const session = await lookupSession(agents, agent, cwd, sessionId.trim());
    return { agent, cwd, session, source: "given" };
  }
  const sessions = await agents.listSessions(agent, cwd);
  // Sessions that ran exactly here come before those of subdirectories.
  const ordered = [...sessions.filter((s) => sameDir(s.cwd, cwd)), ...sessions.filter((s) => !sameDir(s.cwd, cwd))];
  if (launch) {
    const sinceLaunch = ordered.find((s) => s.lastActivity !== undefined && s.lastActivity >= launch.startedAt);
    if (sinceLaunch) return { agent, cwd, session: sinceLaunch, source: "launch" };
  }
  const newest = ordered[0];
  if (!newest) {
    throw new PickupError(`No ${agents.displayName(agent)} session found for \`${cwd}\`. Send the agent a message first (so it has a session), or pass session_id.`);
  }
  return { agent, cwd, session: newest, source: "newest" };
}

function sameDir(a: string | undefined, b: string): boolean {
  if (!a) return false;
  if (a === b) return true;
  try {
    return realpathSync(a) === b;
  } catch {
    return resolve(a) === b;
  }
}
