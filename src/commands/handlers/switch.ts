import type { CommandSpec } from "../context.js";
import { CommandError } from "../../kernel/errors.js";
import { takeFlag } from "../parse.js";
import { hostLabel } from "./status.js";

export const switchHost: CommandSpec = {
  name: "switch",
  usage: "/switch host <agent>[+profile] [--fresh]",
  description: "same agent: other profile, same session; other agent: new thread started from a brief",
  async run(ctx, args) {
    const fresh = takeFlag(args, "--fresh");
    if (args[0] === "host") args.shift();
    if (args.length === 0) throw new CommandError(`Usage: ${switchHost.usage}`);
    ctx.access.require("switch", "Switching this chat's agent");
    const target = ctx.agents.resolveHost(args);
    const route = ctx.message.route;
    const current = ctx.threads.forRoute(route);
    const label = hostLabel(ctx.agents.displayName(target.agent), target.profile);
    if (!current) {
      await ctx.threads.create(route, { workspace: (await ctx.features.newThreadSpec(route)).workspace, ...target, origin: "/switch" });
      await ctx.reply(`Now using ${label}.`);
      return;
    }
    if (current.agent === target.agent) {
      if (current.profile === target.profile) {
        await ctx.reply(`Already using ${label}.`);
        return;
      }
      await ctx.agents.stopHost(current.id);
      await ctx.threads.changeHost(current.id, target);
      await ctx.reply(`🔁 Switched to ${label}; the session continues${current.session ? ` (\`${current.session.slice(0, 8)}\`)` : ""}.`);
      return;
    }
    // Another agent product: a new thread; the old one stays open but loses this route.
    const thread = await ctx.threads.create(route, { workspace: current.workspace, ...target, origin: "/switch" });
    if (fresh || !current.session) {
      await ctx.reply(`🔀 New thread with ${label}${fresh ? ", starting empty" : ""}. The ${ctx.agents.displayName(current.agent)} thread stays open: \`/session --switch\` returns to it.`);
      return;
    }
    const brief = await ctx.agents.writeBrief(current.agent, current.session, current.workspace);
    await ctx.threads.recordContextTransfer(thread.id, brief.runtime, current.session, brief.path);
    await ctx.reply(`🔀 New thread with ${label}, starting from a brief of ${ctx.agents.displayName(current.agent)} session \`${current.session.slice(0, 8)}\`.`);
    ctx.agents.submit(thread, ctx.agents.handoffContent(brief, current.session));
  },
};
