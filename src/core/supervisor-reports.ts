// What the core does as the supervisor reports on hosts and turns (SupervisorEvent): a notice goes
// to the thread's chats, a setting the agent changed is recorded, a host's state shows in the
// routes' summaries, room freed lets waiting subagents start, and a fatal agent error closes the
// thread (only that report is waited for: the thread closes before the next turn may start).
import type { SupervisorEvent } from "../agents/supervisor.js";
import type { Logger } from "../kernel/log.js";
import type { ThreadRecord, ThreadRegistry } from "../threads/registry.js";
import type { ChatFeatureParts } from "./features.js";
import type { PlatformTable } from "./platform-table.js";
import type { SubagentManager } from "./subagents/manager.js";
import type { Turns } from "./turns.js";

interface ReportDeps {
  registry: ThreadRegistry;
  log: Logger;
  notify(thread: ThreadRecord, text: string): void;
  turns: Turns;
  subagents: SubagentManager;
  platforms: PlatformTable;
  settings(): ChatFeatureParts["settings"];
}

export function supervisorReports(deps: ReportDeps): (event: SupervisorEvent) => void | Promise<void> {
  const { registry, log, subagents, platforms } = deps;
  const changed = (threadId: string) => platforms.routesChanged(registry.get(threadId)?.routes ?? []);
  const warn = (what: string) => (error: unknown) => log.warn({ err: error }, what);
  return (event) => {
    switch (event.type) {
      case "notice":
        return deps.notify(event.thread, event.text);
      case "setting-changed":
        return void deps.settings().agentChanged(event.thread, event.kind, event.id).catch(warn("could not record a setting the agent changed"));
      case "prompt-taken":
        return void registry
          .promptTaken(event.threadId, event.id, event.why)
          .catch((error: unknown) => log.error({ thread: event.threadId, err: error }, "could not record that a queued prompt left the queue"));
      case "host-started":
        changed(event.thread.id);
        return subagents.resume(event.thread.id);
      case "host-state":
        return changed(event.threadId);
      case "capacity-freed":
        return subagents.room.pump();
      case "fatal":
        return (async () => {
          await subagents.cancelAll(event.thread.id, "its thread was closed after an agent error");
          subagents.forget(event.thread.id);
          deps.turns.forget(event.thread.id);
          const routes = [...event.thread.routes];
          await registry.close(event.thread.id, `agent error: ${event.error.userMessage}`);
          platforms.routesChanged(routes);
        })();
    }
  };
}
