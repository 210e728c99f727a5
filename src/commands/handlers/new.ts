import type { CommandSpec } from "../context.js";
import { CommandError } from "../../kernel/errors.js";
import { boundRefusal } from "../features.js";
import { hostLabel } from "./status.js";

export const newThread: CommandSpec = {
  name: "new",
  usage: "/new [agent[+profile]] [workspace]",
  description: "close this thread and start a fresh one (same workspace and agent unless named; a bound chat keeps its binding)",
  async run(ctx, args) {
    const route = ctx.message.route;
    const current = ctx.threads.forRoute(route);
    const hostWords = args.filter((a) => ctx.agents.isHostName(a.split("+")[0]));
    const workspaceArgs = args.filter((a) => !hostWords.includes(a));
    if (workspaceArgs.length > 1) throw new CommandError(`One workspace at most. Usage: ${newThread.usage}`);
    const named = hostWords.length > 0 ? ctx.agents.resolveHost(hostWords) : undefined;
    const namedWorkspace = workspaceArgs[0] ? await ctx.workspaces.resolve(workspaceArgs[0]) : undefined;
    const binding = ctx.features.binding(route);
    let spec: { workspace: string; agent: string; profile?: string; binding?: string };
    if (binding) {
      // A bound chat starts over as its binding says; naming something else is refused.
      const bound = await ctx.features.newThreadSpec(route);
      if (namedWorkspace && namedWorkspace !== bound.workspace) throw boundRefusal(binding, "starting a thread in another workspace");
      if (named && binding.host && (named.agent !== bound.agent || (named.profile !== undefined && named.profile !== bound.profile)))
        throw boundRefusal(binding, "starting a thread with another agent");
      spec = { ...bound, ...(named && !binding.host ? { agent: named.agent, profile: named.profile } : {}) };
    } else {
      if (namedWorkspace && namedWorkspace !== current?.workspace) ctx.access.require("new", "Starting a thread in another workspace");
      const host = named ?? (current ? { agent: current.agent, profile: current.profile } : ctx.agents.defaultHost());
      spec = { workspace: namedWorkspace ?? current?.workspace ?? (await ctx.workspaces.default()), ...host };
    }
    if (current) await ctx.threads.close(current.id, "/new");
    const thread = await ctx.threads.create(route, { ...spec, origin: "/new" });
    await ctx.reply(`🆕 New thread \`${thread.id}\` with ${hostLabel(ctx.agents.displayName(spec.agent), spec.profile)} in \`${spec.workspace}\`.`);
  },
};
