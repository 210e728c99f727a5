import type { CommandSpec } from "../context.js";

export const close: CommandSpec = {
  name: "close",
  usage: "/close",
  description: "close this thread and stop its agent; the next message starts a new one",
  async run(ctx) {
    const thread = ctx.threads.forRoute(ctx.message.route);
    if (!thread) {
      await ctx.reply("There is no open thread here.");
      return;
    }
    await ctx.threads.close(thread.id, "/close");
    await ctx.reply(`Closed thread \`${thread.id}\`. Its history is kept; the next message starts a new thread.`);
  },
};
