import type { CommandSpec } from "../context.js";

export const stop: CommandSpec = {
  name: "stop",
  aliases: ["cancel"],
  usage: "/stop",
  description: "cancel the running turn (alias /cancel)",
  async run(ctx) {
    const thread = ctx.threads.forRoute(ctx.message.route);
    const cancelled = thread ? await ctx.agents.cancel(thread.id) : false;
    if (!cancelled) await ctx.reply("Nothing is running.");
  },
};
