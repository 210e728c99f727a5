import type { CommandSpec } from "../context.js";

export const stop: CommandSpec = {
  name: "stop",
  aliases: ["cancel"],
  usage: "/stop",
  description: "cancel the running turn (alias /cancel)",
  async run(ctx) {
    const thread = ctx.threads.forRoute(ctx.message.route);
    // Someone else's turn is an admin's to stop (a turn no one in the chat started, a schedule's, anyone's).
    const author = thread ? ctx.agents.runningAuthor(thread.id) : undefined;
    if (author && author.id !== ctx.message.user.id) ctx.access.require("stop", `Stopping ${author.name ?? author.id}'s turn`);
    const cancelled = thread ? await ctx.agents.cancel(thread.id) : false;
    if (!cancelled) await ctx.reply("Nothing is running.");
  },
};
