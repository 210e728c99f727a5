import type { CommandSpec } from "../context.js";
import { CommandError } from "../../kernel/errors.js";
import { hostLabel } from "./status.js";

export const newThread: CommandSpec = {
  name: "new",
  usage: "/new [agent[+profile]] [workspace]",
  description: "close this thread and start a fresh one (same workspace and agent unless named)",
  async run(ctx, args) {
    const route = ctx.message.route;
    const current = ctx.threads.forRoute(route);
    const hostWords = args.filter((a) => ctx.agents.isHostName(a.split("+")[0]));
    const workspaceArgs = args.filter((a) => !hostWords.includes(a));
    if (workspaceArgs.length > 1) throw new CommandError(`One workspace at most. Usage: ${newThread.usage}`);
    const host = hostWords.length > 0 ? ctx.agents.resolveHost(hostWords) : current ? { agent: current.agent, profile: current.profile } : ctx.agents.defaultHost();
    const workspace = workspaceArgs[0] ? await ctx.workspaces.resolve(workspaceArgs[0]) : current?.workspace ?? (await ctx.workspaces.default());
    if (current) await ctx.threads.close(current.id, "/new");
    const thread = await ctx.threads.create(route, { workspace, ...host, origin: "/new" });
    await ctx.reply(`🆕 New thread \`${thread.id}\` with ${hostLabel(ctx.agents.displayName(host.agent), host.profile)} in \`${workspace}\`.`);
  },
};
