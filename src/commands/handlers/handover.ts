import type { CommandSpec } from "../context.js";
import { shellQuote } from "../../kernel/shell.js";
import { describeBadId, isValidSessionId } from "../../agents/runtimes/session-ids.js";
import { getProduct } from "../../agents/products/index.js";

/**
 * The arguments of a product's resume command (`[env …] <executable> <args>`), when `baton launch`
 * runs that product: the same command under it also gives the agent the tools to hand back to chat.
 */
function launchArgs(agent: string, command: string): string | undefined {
  const product = getProduct(agent);
  if (product?.id !== agent || !product.launch) return undefined;
  const word = ` ${product.executable} `;
  const at = command.startsWith(word.trimStart()) ? word.length - 1 : command.indexOf(word) + word.length;
  return at >= word.length - 1 ? command.slice(at) : undefined;
}

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
    // A product whose terminal is Baton's own (the demo agent) continues under `baton launch`.
    const product = getProduct(thread.agent);
    if (product?.id === thread.agent && product.launchInBaton) {
      if (!isValidSessionId(product.id, thread.session)) {
        await ctx.reply(`This thread's session id ${describeBadId(thread.session)} is not a valid session id, so there is no command to show. Start over with /new.`);
        return;
      }
      await ctx.reply(`${intro}\n\`\`\`\ncd ${shellQuote(machine.path)} && baton launch ${product.id} -- --resume ${thread.session}\n\`\`\``);
      return;
    }
    const { command, cwd, note } = await ctx.agents.terminalCommand(thread);
    if (!command) {
      await ctx.reply(note ?? "This agent cannot be continued in a terminal.");
      return;
    }
    // The same command under `baton launch` also gives the agent the tools to hand back to chat.
    const args = launchArgs(thread.agent, command);
    const viaLaunch = args !== undefined ? `\nWith Baton's handover tools: \`baton launch ${thread.agent} -- ${args}\`` : "";
    await ctx.reply(`${intro}\n\`\`\`\ncd ${shellQuote(cwd)} && ${command}\n\`\`\`${viaLaunch}${note ? `\n${note}` : ""}`);
  },
};
