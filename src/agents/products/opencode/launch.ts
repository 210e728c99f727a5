// `baton launch opencode`: OpenCode reads extra configuration from OPENCODE_CONFIG_CONTENT (JSON,
// merged over the user's and the project's config files), so Baton's MCP server is handed to this
// run there, added to whatever the user's environment already put in that variable.
import { CommandError } from "../../../kernel/errors.js";
import { batonEnv, batonMcpServer, type LaunchContext, type LaunchPlan } from "../kit/launch.js";

export function opencodeLaunch(userArgs: string[], ctx: LaunchContext): LaunchPlan {
  const mcp = batonMcpServer("opencode", ctx);
  const own = parseConfig(ctx.env.OPENCODE_CONFIG_CONTENT);
  const servers = { ...(own.mcp as Record<string, unknown> | undefined), baton: { type: "local", command: [mcp.command, ...mcp.args], environment: mcp.env, enabled: true } };
  return { command: "opencode", args: userArgs, env: { ...batonEnv("opencode", ctx), OPENCODE_CONFIG_CONTENT: JSON.stringify({ ...own, mcp: servers }) }, files: [] };
}

function parseConfig(text: string | undefined): Record<string, unknown> {
  if (!text?.trim()) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new CommandError("OPENCODE_CONFIG_CONTENT in your environment is not a JSON object, so Baton cannot add its MCP server to it. Fix or unset it, then run `baton launch opencode` again.");
  }
  return parsed as Record<string, unknown>;
}
