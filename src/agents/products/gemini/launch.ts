// `baton launch gemini`: Gemini CLI has no per-run MCP flag. A server registered by `baton setup
// gemini` needs nothing per run; otherwise a per-run system settings file hands it Baton's server,
// where Gemini will read one at all (see settings.ts).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CommandError } from "../../../kernel/errors.js";
import { batonEnv, batonMcpServer, type LaunchContext, type LaunchPlan } from "../kit/launch.js";
import { geminiHasBatonServer, whyGeminiSkipsSettings } from "./settings.js";

export function geminiLaunch(userArgs: string[], ctx: LaunchContext): LaunchPlan {
  const mcp = batonMcpServer("gemini", ctx);
  const env = batonEnv("gemini", ctx);
  // Registered once by `baton setup gemini`: the BATON_* variables reach it, nothing to write.
  if (geminiHasBatonServer(ctx.env)) return { command: "gemini", args: userArgs, env, files: [] };
  // Else a per-run system settings file (it overrides user and project settings and merges
  // mcpServers), where Gemini will read it at all.
  const path = join(ctx.dataDir, "launches", `${ctx.launchId}.gemini-settings.json`);
  const skipped = (ctx.geminiSkips ?? whyGeminiSkipsSettings)(path);
  if (skipped) {
    throw new CommandError(
      `Gemini CLI reads a per-run settings file only from directories that root owns and nobody else can write (${skipped}), so \`baton launch gemini\` cannot hand it Baton's MCP server for one run. Run \`baton setup gemini\` once (it registers \`baton mcp\` in your Gemini settings), then \`baton launch gemini\` again.`,
    );
  }
  const base = readSystemGeminiSettings(ctx.env);
  const servers = { ...((base.mcpServers as Record<string, unknown> | undefined) ?? {}), baton: { command: mcp.command, args: mcp.args, env: mcp.env } };
  const content = `${JSON.stringify({ ...base, mcpServers: servers }, null, 2)}\n`;
  return { command: "gemini", args: userArgs, env: { ...env, GEMINI_CLI_SYSTEM_SETTINGS_PATH: path }, files: [{ path, content }] };
}

function readSystemGeminiSettings(env: NodeJS.ProcessEnv): Record<string, unknown> {
  const path =
    env.GEMINI_CLI_SYSTEM_SETTINGS_PATH ||
    (process.platform === "darwin"
      ? "/Library/Application Support/GeminiCli/settings.json"
      : process.platform === "win32"
        ? "C:\\ProgramData\\gemini-cli\\settings.json"
        : "/etc/gemini-cli/settings.json");
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, "utf8"));
    return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
