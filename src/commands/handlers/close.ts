import type { CommandSpec } from "../context.js";

export const close: CommandSpec = {
  name: "close",
  usage: "/close",
  description: "close this thread and stop its agent; the next message starts a new one",
  async run(ctx) {
    const route = ctx.message.route;
    const thread = ctx.threads.forRoute(route);
    if (!thread) {
      await ctx.reply("There is no open thread here.");
      return;
    }
    // A thread other chats are attached to (after /pickup) keeps running for them: only this chat leaves.
    const others = [...thread.routes].filter((r) => r !== route);
    if (others.length > 0) {
      await ctx.threads.detach(route);
      await ctx.reply(`Left thread \`${thread.id}\`; it stays open for the ${others.length} other chat${others.length === 1 ? "" : "s"} attached to it. The next message here starts a new thread.`);
      return;
    }
    await ctx.threads.close(thread.id, "/close");
    await ctx.reply(`Closed thread \`${thread.id}\`. Its history is kept; the next message starts a new thread.`);
  },
};
