// attach_external_session (SPEC §5): binds a chat route to an agent session that started
// elsewhere. The workspace is ensured, the session resolved prefix-tolerantly, an open thread bound
// to it reused (else one created with the host binding and the session), and the route attached
// additively — other routes of that thread stay attached and keep receiving its output.
import type { ThreadsApi, WorkspacesApi } from "../commands/context.js";
import type { ThreadRecord } from "../threads/registry.js";
import { PickupError } from "../kernel/errors.js";
import type { HandoverPayload } from "./codes.js";
import { lookupSession, type HandoverAgents } from "./sessions.js";

export interface AttachDeps {
  threads: ThreadsApi;
  agents: HandoverAgents;
  workspaces: WorkspacesApi;
}

export interface Attached {
  thread: ThreadRecord;
  session: string;
  /** False when an open thread already bound to the session was reused. */
  created: boolean;
  /** The thread this route left, if it was attached elsewhere (that thread stays open). */
  left?: string;
}

export async function attachExternalSession(deps: AttachDeps, payload: HandoverPayload, route: string): Promise<Attached> {
  const { cwd, agent, profile } = payload;
  // Never resume somewhere else: the agent's context is about that directory (on that machine).
  const dir = await deps.workspaces.directory(cwd);
  if (!dir) throw new PickupError(`The session's directory \`${cwd}\` no longer exists, so it was not picked up and nothing was resumed elsewhere.`);
  // Allowed when the code was made; the config may have changed since.
  const workspace = await deps.workspaces.requireAllowed(dir);
  const found = await lookupSession(deps.agents, agent, workspace, payload.session);
  const previous = deps.threads.forRoute(route);
  const open = deps.threads.findOpenBySession(agent, found.id);
  if (open) {
    await deps.threads.attach(route, open.id);
    return { thread: deps.threads.get(open.id)!, session: found.id, created: false, left: leftThread(previous, open.id) };
  }
  const thread = await deps.threads.create(route, { workspace, agent, profile, session: found.id, origin: "pickup" });
  return { thread, session: found.id, created: true, left: leftThread(previous, thread.id) };
}

function leftThread(previous: ThreadRecord | undefined, now: string): string | undefined {
  return previous && previous.id !== now ? previous.id : undefined;
}
