import type { CommandSpec } from "../context.js";

export const handover: CommandSpec = {
  name: "handover",
  usage: "/handover",
  description: "the terminal command that continues this session on the machine",
  async run(ctx) {
    const thread = ctx.threads.forRoute(ctx.message.route);
    if (!thread?.session) {
      await ctx.reply("No agent session here yet: send a message first, then /handover.");
      return;
    }
    const { command, cwd, note } = await ctx.agents.terminalCommand(thread);
    if (!command) {
      await ctx.reply(note ?? "This agent cannot be continued in a terminal.");
      return;
    }
    await ctx.reply(`Continue this session in a terminal:\n\`\`\`\ncd ${shellQuote(cwd)} && ${command}\n\`\`\`${note ? `\n${note}` : ""}`);
  },
};

function shellQuote(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}
