// The threads as the commands see them (ThreadsApi): the registry's threads, with what closing one
// means for its host and subagents, and each change told to the routes it touches (routeChanged).
import type { Supervisor } from "../agents/supervisor.js";
import type { HostChoice, ThreadsApi } from "../commands/context.js";
import type { ThreadRegistry } from "../threads/registry.js";
import type { PlatformTable } from "./platform-table.js";
import type { SubagentManager } from "./subagents/manager.js";
import type { Turns } from "./turns.js";

interface ThreadsApiDeps {
  registry: ThreadRegistry;
  supervisor: Supervisor;
  subagents: SubagentManager;
  turns: Turns;
  platforms: PlatformTable;
}

/** The threads as the commands see them; each change is told to the routes it touches (routeChanged). */
export function threadsApi({ registry, supervisor, subagents, turns, platforms }: ThreadsApiDeps): ThreadsApi {
  const routesOf = (id: string) => [...(registry.get(id)?.routes ?? [])];
  return {
    forRoute: (route) => registry.threadForRoute(route),
    get: (id) => registry.get(id),
    create: async (route, spec) => {
      const thread = await registry.create(spec, route);
      platforms.routesChanged([route]);
      return thread;
    },
    close: async (id, reason) => {
      await Promise.all([supervisor.stopHost(id), subagents.cancelAll(id, "its thread was closed")]);
      subagents.forget(id);
      turns.forget(id);
      const routes = routesOf(id);
      await registry.close(id, reason);
      platforms.routesChanged(routes);
    },
    attach: async (route, id) => {
      await registry.attach(route, id);
      platforms.routesChanged([route]);
    },
    detach: async (route) => {
      await registry.detach(route);
      platforms.routesChanged([route]);
    },
    findOpenBySession: (agent, session) => registry.findOpenBySession(agent, session),
    changeHost: async (id, host: HostChoice) => {
      await registry.changeHost(id, host.agent, host.profile);
      platforms.routesChanged(routesOf(id));
    },
    recordContextTransfer: (id, runtime, session, path) => registry.recordContextTransfer(id, runtime, session, path),
    all: () => registry.all(),
  };
}
