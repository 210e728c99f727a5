import type { CommandSpec } from "../context.js";
import { shellQuote } from "../../kernel/shell.js";
import { describeBadId, isValidSessionId } from "../../agents/runtimes/session-ids.js";
import { getProduct } from "../../agents/products/index.js";

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
    // On another machine the terminal is there: say how to get there first.
    const machine = ctx.workspaces.machineOf(thread.workspace);
    const intro = machine.login ? `Continue this session in a terminal on ${machine.name} (\`${machine.login}\`):` : "Continue this session in a terminal:";
    if (thread.agent === "demo") {
      if (!isValidSessionId("demo", thread.session)) {
        await ctx.reply(`This thread's session id ${describeBadId(thread.session)} is not a valid session id, so there is no command to show. Start over with /new.`);
        return;
      }
      await ctx.reply(`${intro}\n\`\`\`\ncd ${shellQuote(machine.path)} && baton launch demo -- --resume ${thread.session}\n\`\`\``);
      return;
    }
    const { command, cwd, note } = await ctx.agents.terminalCommand(thread);
    if (!command) {
      await ctx.reply(note ?? "This agent cannot be continued in a terminal.");
      return;
    }
    // The same command under `baton launch` also gives the agent the tools to hand back to chat.
    const launchable = getProduct(thread.agent)?.id === thread.agent && !!getProduct(thread.agent)?.launch;
    const viaLaunch = launchable && command.startsWith(`${thread.agent} `) ? `\nWith Baton's handover tools: \`baton launch ${thread.agent} -- ${command.slice(thread.agent.length + 1)}\`` : "";
    await ctx.reply(`${intro}\n\`\`\`\ncd ${shellQuote(cwd)} && ${command}\n\`\`\`${viaLaunch}${note ? `\n${note}` : ""}`);
  },
};
