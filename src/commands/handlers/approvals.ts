import type { CommandSpec } from "../context.js";

function answer(word: "/allow" | "/deny"): CommandSpec["run"] {
  return async (ctx) => {
    const thread = ctx.threads.forRoute(ctx.message.route);
    const result = thread ? ctx.agents.answerApproval(thread.id, word, ctx.message.user, ctx.message.route) : undefined;
    if (result === undefined) await ctx.reply("No approval is pending here.");
    else if (result.text) await ctx.reply(result.text, { onlyToSender: result.refused });
  };
}

export const allow: CommandSpec = { name: "allow", usage: "/allow", description: "allow the pending tool call once (or reply with its number)", run: answer("/allow") };
export const deny: CommandSpec = { name: "deny", usage: "/deny", description: "reject the pending tool call", run: answer("/deny") };
