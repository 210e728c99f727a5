import { CommandError } from "../../kernel/errors.js";
import type { CommandSpec } from "../context.js";

export const close: CommandSpec = {
  name: "close",
  usage: "/close [--discard]",
  description: "close this thread and stop its agent; its worktree goes, its branch stays (--discard deletes the branch too, after a confirmation)",
  async run(ctx) {
    const route = ctx.message.route;
    const discard = ctx.parsed.kind === "command" && /(^|\s)--discard(\s|$)/.test(ctx.parsed.rest);
    const thread = ctx.threads.forRoute(route);
    if (!thread) {
      await ctx.reply("There is no open thread here.");
      return;
    }
    if (discard) {
      if (!ctx.buttons) throw new CommandError("/close --discard asks for a confirmation with buttons, which this chat does not have. Use /close (the branch stays), then delete the branch with git.");
      const { text, buttons } = ctx.worktrees.askDiscard(thread, route);
      await ctx.reply(text, { buttons });
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
    const worktree = await ctx.worktrees.removeAfterClose(thread);
    await ctx.reply(`Closed thread \`${thread.id}\`. Its history is kept; the next message starts a new thread.${worktree ? ` ${worktree}` : ""}`);
  },
};
