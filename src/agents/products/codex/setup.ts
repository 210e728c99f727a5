// `baton setup codex`: `[mcp_servers.baton]` in Codex's config.toml (only that table's lines change)
// and a handover prompt in its user prompts (typed `/prompts:handover` in Codex).
import { join } from "node:path";
import { markdownCommand, mcpCommand, tomlTableStep, writeFileStep, type SetupContext, type SetupStep } from "../kit/setup.js";

export function codexSetup(ctx: SetupContext): SetupStep[] {
  const mcp = mcpCommand(ctx);
  const dir = ctx.env.CODEX_HOME || join(ctx.home, ".codex");
  return [tomlTableStep(join(dir, "config.toml"), "mcp_servers", "baton", { command: mcp.command, args: mcp.args }), writeFileStep(join(dir, "prompts", "handover.md"), markdownCommand("codex"))];
}
