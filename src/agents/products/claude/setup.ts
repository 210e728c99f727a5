// `baton setup claude`: `claude mcp add -s user` (after removing an older registration), and a
// /handover command in Claude Code's user commands.
import { join } from "node:path";
import { markdownCommand, mcpCommand, runStep, writeFileStep, type SetupContext, type SetupStep } from "../kit/setup.js";

export function claudeSetup(ctx: SetupContext): SetupStep[] {
  const mcp = mcpCommand(ctx);
  const dir = ctx.env.CLAUDE_CONFIG_DIR || join(ctx.home, ".claude");
  return [
    runStep(["claude", "mcp", "add", "-s", "user", "baton", "--", mcp.command, ...mcp.args], ctx.env, ["claude", "mcp", "remove", "-s", "user", "baton"]),
    writeFileStep(join(dir, "commands", "handover.md"), markdownCommand("claude")),
  ];
}
