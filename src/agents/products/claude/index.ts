import path from "node:path";
import type { AgentProduct } from "../product.js";
import { UUID_ID } from "../kit/ids.js";
import { batonEnv, batonMcpServer } from "../kit/launch.js";

export const claude: AgentProduct = {
  id: "claude",
  label: "Claude Code",
  aliases: ["claude_code", "claude-code"],
  executable: "claude",
  installHint: "npm install -g @anthropic-ai/claude-code @agentclientprotocol/claude-agent-acp, then run `claude` once to log in",
  approvalBypass: ["--dangerously-skip-permissions", "--allow-dangerously-skip-permissions", ["--permission-mode", "bypassPermissions"]],
  sessionId: UUID_ID,
  chat: {
    acpCommand: () => ({ command: "claude-agent-acp", args: [] }),
    cliCommand: "claude",
    modelArgs: (model) => ({ env: { ANTHROPIC_MODEL: model } }),
    autoOrder: 1,
  },
  terminal: { resumeArgs: (s) => ["--resume", s.id], newArgs: (p) => [p] },
  store: {
    location: (env, home) => path.join(env.CLAUDE_CONFIG_DIR || path.join(home, ".claude"), "projects"),
    load: async () => (await import("./store.js")).claudeReader,
    dirFlag: { name: "claude-projects-dir", description: "Claude Code projects directory" },
  },
  launch: (userArgs, ctx) => {
    const mcp = batonMcpServer("claude", ctx);
    const config = { mcpServers: { baton: { type: "stdio", command: mcp.command, args: mcp.args, env: mcp.env } } };
    return { command: "claude", args: ["--mcp-config", JSON.stringify(config), ...userArgs], env: batonEnv("claude", ctx), files: [] };
  },
  setup: async (ctx) => (await import("./setup.js")).claudeSetup(ctx),
};
