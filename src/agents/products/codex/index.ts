import path from "node:path";
import type { AgentProduct } from "../product.js";
import { UUID_ID } from "../kit/ids.js";
import { batonEnv, batonMcpServer } from "../kit/launch.js";

export const codex: AgentProduct = {
  id: "codex",
  label: "Codex CLI",
  executable: "codex",
  installHint: "npm install -g @openai/codex @agentclientprotocol/codex-acp, then run `codex login`",
  approvalBypass: ["--dangerously-bypass-approvals-and-sandbox", "--yolo", "--full-auto", ["-a", "never"], ["--ask-for-approval", "never"]],
  sessionId: UUID_ID,
  chat: {
    acpCommand: () => ({ command: "codex-acp", args: [] }),
    cliCommand: "codex",
    // codex-acp 2.x starts sessions in its "agent" mode, where a model reviews approvals instead of
    // the user; workspace-write keeps Codex's sandbox and asks the user (in chat) for anything beyond it.
    acpEnv: { INITIAL_AGENT_MODE: "workspace-write" },
    modelArgs: (model) => ({ args: ["-c", `model="${model}"`] }),
    autoOrder: 2,
  },
  terminal: { resumeArgs: (s) => ["resume", s.id], newArgs: (p) => [p] },
  store: {
    location: (env, home) => path.join(env.CODEX_HOME || path.join(home, ".codex"), "sessions"),
    load: async () => (await import("./store.js")).codexReader,
    dirFlag: { name: "codex-dir", description: "Codex sessions directory" },
  },
  launch: (userArgs, ctx) => {
    const mcp = batonMcpServer("codex", ctx);
    // -c values are TOML; JSON strings and string arrays are valid TOML too.
    const table = Object.entries(mcp.env)
      .map(([k, v]) => `${k} = ${JSON.stringify(v)}`)
      .join(", ");
    const overrides = [`mcp_servers.baton.command=${JSON.stringify(mcp.command)}`, `mcp_servers.baton.args=${JSON.stringify(mcp.args)}`, `mcp_servers.baton.env={ ${table} }`];
    return { command: "codex", args: [...overrides.flatMap((o) => ["-c", o]), ...userArgs], env: batonEnv("codex", ctx), files: [] };
  },
  setup: async (ctx) => (await import("./setup.js")).codexSetup(ctx),
  handoverCommand: "/prompts:handover",
};
