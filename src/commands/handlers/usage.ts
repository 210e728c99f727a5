import type { CommandSpec } from "../context.js";

export const usage: CommandSpec = {
  name: "usage",
  usage: "/usage",
  description: "your turns this hour, cost and tokens today, and your limits (an admin sees everyone's)",
  async run(ctx) {
    // Someone's spending is theirs to see: only they get it, where the platform can answer privately.
    await ctx.reply(await ctx.limits.report(ctx.message.user, ctx.message.route), { onlyToSender: true });
  },
};
