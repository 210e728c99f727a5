// What `baton launch <agent>` runs: the agent's own CLI, in this terminal, with Baton's MCP server
// handed to it for this run only (a flag or a per-run settings file in the data dir — never a file
// in the project) and the BATON_* environment the MCP tools read. Never an approval-bypass flag.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { CommandError } from "../../kernel/errors.js";
import { geminiHasBatonServer, whyGeminiSkipsSettings } from "../../agents/products/gemini/settings.js";

import { BATON_BIN } from "../../kernel/install.js";

export const LAUNCHABLE_AGENTS = ["claude", "codex", "gemini", "demo"] as const;

export interface LaunchContext {
  dataDir: string;
  launchId: string;
  env: NodeJS.ProcessEnv;
  /** Why Gemini CLI would not read a settings file there (tests stand in for root-owned directories). */
  geminiSkips?: (file: string) => string | undefined;
}

export interface McpServerSpec {
  command: string;
  args: string[];
  env: Record<string, string>;
}

export interface LaunchPlan {
  command: string;
  args: string[];
  env: Record<string, string>;
  /** Per-run files (0600, in the data dir), removed when the launch ends. */
  files: Array<{ path: string; content: string }>;
}

/** Flags (alone, or as `flag value` / `flag=value`) that would turn the agent's approvals off. */
const APPROVAL_BYPASS: Record<string, Array<string | [string, string]>> = {
  claude: ["--dangerously-skip-permissions", "--allow-dangerously-skip-permissions", ["--permission-mode", "bypassPermissions"]],
  codex: ["--dangerously-bypass-approvals-and-sandbox", "--yolo", "--full-auto", ["-a", "never"], ["--ask-for-approval", "never"]],
  gemini: ["--yolo", "-y", ["--approval-mode", "yolo"]],
};

export function batonEnv(agent: string, ctx: LaunchContext): Record<string, string> {
  return { BATON_AGENT_KIND: agent, BATON_LAUNCH_ID: ctx.launchId, BATON_DATA_DIR: ctx.dataDir };
}

/** `baton mcp` as the agent should start it: this Node, this install, this run's environment. */
export function batonMcpServer(agent: string, ctx: LaunchContext): McpServerSpec {
  return { command: process.execPath, args: [BATON_BIN, "mcp"], env: batonEnv(agent, ctx) };
}

export function refuseApprovalBypass(agent: string, args: string[]): void {
  for (const flag of APPROVAL_BYPASS[agent] ?? []) {
    const [name, value] = typeof flag === "string" ? [flag, undefined] : flag;
    const hit = args.some((a, i) => (value === undefined ? a === name || a.startsWith(`${name}=`) : (a === name && args[i + 1] === value) || a === `${name}=${value}`));
    if (hit) throw new CommandError(`Baton never starts an agent with its approvals turned off (${value ? `${name} ${value}` : name}). Leave that flag out.`);
  }
}

export function planLaunch(agent: string, userArgs: string[], ctx: LaunchContext): LaunchPlan {
  refuseApprovalBypass(agent, userArgs);
  const mcp = batonMcpServer(agent, ctx);
  const env = batonEnv(agent, ctx);
  switch (agent) {
    case "claude": {
      const config = { mcpServers: { baton: { type: "stdio", command: mcp.command, args: mcp.args, env: mcp.env } } };
      return { command: "claude", args: ["--mcp-config", JSON.stringify(config), ...userArgs], env, files: [] };
    }
    case "codex": {
      // -c values are TOML; JSON strings and string arrays are valid TOML too.
      const table = Object.entries(mcp.env).map(([k, v]) => `${k} = ${JSON.stringify(v)}`).join(", ");
      const overrides = [`mcp_servers.baton.command=${JSON.stringify(mcp.command)}`, `mcp_servers.baton.args=${JSON.stringify(mcp.args)}`, `mcp_servers.baton.env={ ${table} }`];
      return { command: "codex", args: [...overrides.flatMap((o) => ["-c", o]), ...userArgs], env, files: [] };
    }
    case "gemini": {
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
      const content = JSON.stringify({ ...base, mcpServers: servers }, null, 2) + "\n";
      return { command: "gemini", args: userArgs, env: { ...env, GEMINI_CLI_SYSTEM_SETTINGS_PATH: path }, files: [{ path, content }] };
    }
    default:
      throw new CommandError(`\`baton launch\` knows ${LAUNCHABLE_AGENTS.join(", ")}; not "${agent}".`);
  }
}

function readSystemGeminiSettings(env: NodeJS.ProcessEnv): Record<string, unknown> {
  const path =
    env.GEMINI_CLI_SYSTEM_SETTINGS_PATH ||
    (process.platform === "darwin" ? "/Library/Application Support/GeminiCli/settings.json" : process.platform === "win32" ? "C:\\ProgramData\\gemini-cli\\settings.json" : "/etc/gemini-cli/settings.json");
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, "utf8"));
    return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
