// What an event changes in its own thread's record: a new record for thread_created, then each
// later event's change to it (the same at runtime and at replay). The registry keeps the indexes
// across threads (routes, workspaces, schedules) itself.
import type { ThreadEvent } from "./events.js";
import type { ThreadRecord } from "./records.js";
import { addUsage, emptyTotals } from "./chat-state.js";
import { applySubagentEvent } from "../core/subagents/records.js";

export function createdThread(event: Extract<ThreadEvent, { type: "thread_created" }>): ThreadRecord {
  return {
    id: event.thread,
    workspace: event.workspace,
    agent: event.agent,
    profile: event.profile,
    session: event.session,
    sessions: event.session ? [event.session] : [],
    open: true,
    routes: new Set(),
    createdAt: event.at,
    lastEventAt: event.at,
    contextTransfers: [],
    queued: [],
    subagents: [],
    binding: event.binding,
    settings: {},
    usage: emptyTotals(),
  };
}

/** What an event changes in its own thread's record (routes aside: ThreadRegistry.applyToRoutes). */
export function applyToThread(t: ThreadRecord, event: ThreadEvent): void {
  switch (event.type) {
    case "session_observed":
      t.session = event.session;
      if (!t.sessions.includes(event.session)) t.sessions.push(event.session);
      break;
    case "host_changed":
      t.agent = event.agent;
      t.profile = event.profile;
      break;
    case "thread_closed":
      t.open = false;
      t.closedAt = event.at;
      t.closeReason = event.reason;
      t.queued = [];
      break;
    case "prompt_queued":
      t.queued.push({ id: event.queued, prompt: event.prompt, at: event.at });
      break;
    case "prompt_taken":
      t.queued = t.queued.filter((q) => q.id !== event.queued);
      break;
    case "context_transfer":
      t.contextTransfers.push({ fromRuntime: event.fromRuntime, fromSession: event.fromSession, briefPath: event.briefPath });
      break;
    case "subagent_added":
    case "subagent_updated":
      t.subagents = applySubagentEvent(t.subagents, event, event.at);
      break;
    case "settings_changed":
      if (event.mode !== undefined) t.settings.mode = event.mode;
      if (event.model !== undefined) t.settings.model = event.model;
      break;
    case "worktree_created":
      t.worktree = { path: event.path, branch: event.branch, base: event.base, baseBranch: event.base_branch, repository: event.repository, cwd: event.cwd, topic: event.topic };
      break;
    case "worktree_removed":
      if (t.worktree) Object.assign(t.worktree, { removed: true, branchDeleted: event.branch_deleted });
      break;
    case "usage_recorded":
      addUsage(t.usage, event.usage, event.session);
      break;
  }
}
