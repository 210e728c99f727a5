// `baton launch qwen`: Qwen Code takes MCP servers for one run as JSON in `--mcp-config`, merged
// with the servers of its settings files.
import { batonEnv, batonMcpServer, type LaunchContext, type LaunchPlan } from "../kit/launch.js";

export function qwenLaunch(userArgs: string[], ctx: LaunchContext): LaunchPlan {
  const mcp = batonMcpServer("qwen", ctx);
  const config = { mcpServers: { baton: { command: mcp.command, args: mcp.args, env: mcp.env } } };
  return { command: "qwen", args: ["--mcp-config", JSON.stringify(config), ...userArgs], env: batonEnv("qwen", ctx), files: [] };
}
