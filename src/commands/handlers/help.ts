import type { CommandSpec } from "../context.js";

export const help: CommandSpec = {
  name: "help",
  usage: "/help",
  description: "the commands, one line each",
  async run(ctx) {
    const lines = ctx.commands.map((c) => `\`${c.usage}\` — ${c.description}`);
    lines.push("`//text` — send `/text` to the agent", "`/agent <cmd> [args]` — run the agent's own `/<cmd>`");
    await ctx.reply(`**Baton commands**\n${lines.join("\n")}`);
  },
};
