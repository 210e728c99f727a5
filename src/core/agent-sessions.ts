// An agent's sessions as /session and the handoff commands list and find them: those in its own
// store on the workspace's machine (where Baton has a reader for its runtime) and those Baton's
// threads used, each with the open thread it belongs to.
import type { SessionSummary } from "../commands/context.js";
import { loadStores } from "../agents/load-stores.js";
import type { Machine, Machines } from "../agents/machines/index.js";
import type { ThreadRegistry } from "../threads/registry.js";
import { CommandError } from "../kernel/errors.js";

/** The shortest prefix of a session id that finds it. */
const MIN_PREFIX = 6;

export class AgentSessions {
  constructor(
    private readonly machines: Machines,
    private readonly registry: ThreadRegistry,
    private readonly agents: { runtimeOf(agent: string): string; displayName(agent: string): string },
  ) {}

  /** The agent's sessions in (or below) the workspace, newest first. */
  async list(agent: string, workspace: string): Promise<SessionSummary[]> {
    const { machine, path } = this.machines.locate(workspace);
    return this.on(machine, agent, path, workspace);
  }

  /** Sessions of the agent on a machine (at or below `dir` there, when given): its store plus Baton's threads. */
  private async on(machine: Machine, agent: string, dir?: string, workspace?: string): Promise<SessionSummary[]> {
    const runtime = this.agents.runtimeOf(agent);
    const out = new Map<string, SessionSummary>();
    const { getReader } = await loadStores();
    if (getReader(runtime)) {
      for (const s of await machine.listSessions(runtime, dir)) {
        out.set(s.id, { id: s.id, title: s.title, cwd: s.cwd ? this.machines.format(machine.name, s.cwd) : undefined, lastActivity: s.lastActivity, source: "store" });
      }
    }
    for (const t of this.registry.all()) {
      if (t.agent !== agent || (workspace ? t.workspace !== workspace : this.machines.locate(t.workspace).machine !== machine)) continue;
      for (const id of t.sessions) {
        const known = out.get(id);
        const openThread = t.open && t.session === id ? t.id : undefined;
        if (known) known.thread ??= openThread;
        else out.set(id, { id, title: `thread ${t.id}`, cwd: t.workspace, lastActivity: t.lastEventAt, thread: openThread, source: "thread" });
      }
    }
    return [...out.values()].sort((a, b) => (b.lastActivity ?? "").localeCompare(a.lastActivity ?? ""));
  }

  /** One session by its id or an unambiguous prefix of it (MIN_PREFIX characters at least). */
  async find(agent: string, workspace: string, idOrPrefix: string): Promise<SessionSummary> {
    const all = await this.on(this.machines.locate(workspace).machine, agent);
    const exact = all.find((s) => s.id === idOrPrefix);
    if (exact) return exact;
    if (idOrPrefix.length < MIN_PREFIX) throw new CommandError(`Give at least ${MIN_PREFIX} characters of the session id.`);
    const matches = all.filter((s) => s.id.startsWith(idOrPrefix));
    if (matches.length === 1) return matches[0];
    if (matches.length === 0) throw new CommandError(`No ${this.agents.displayName(agent)} session starts with \`${idOrPrefix}\`. /session lists them.`);
    const list = matches
      .slice(0, 10)
      .map((s) => `\`${s.id}\` ${s.title}`)
      .join("\n");
    throw new CommandError(`\`${idOrPrefix}\` matches ${matches.length} sessions; give more characters:\n${list}`);
  }
}
