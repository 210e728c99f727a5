// `baton setup gemini`: `mcpServers.baton` in Gemini CLI's user settings.json (JSON with comments,
// edited in place) and a /handover command in its user commands.
import { join } from "node:path";
import { HANDOVER_DESCRIPTION, handoverInstructions, jsoncStep, mcpCommand, writeFileStep, type SetupContext, type SetupStep } from "../kit/setup.js";

export function geminiSetup(ctx: SetupContext): SetupStep[] {
  const mcp = mcpCommand(ctx);
  const dir = join(ctx.env.GEMINI_CLI_HOME || ctx.home, ".gemini");
  return [
    jsoncStep(join(dir, "settings.json"), "mcpServers", "baton", { command: mcp.command, args: mcp.args }),
    writeFileStep(join(dir, "commands", "handover.toml"), `description = "${HANDOVER_DESCRIPTION}"\nprompt = """\n${handoverInstructions("gemini")}\n"""\n`),
  ];
}
