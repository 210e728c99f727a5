// `baton mcp`: an MCP server on stdio for agent CLIs. It holds no state of its own: each tool call
// is forwarded to the running daemon's Streamable HTTP endpoint (found through the data dir, with
// the token from there). With no daemon running, every tool answers how to start one.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { findDaemon } from "../handoff/discovery.js";
import { HOST_TOKEN_ENV, SUBAGENT_TOOLS_ENV } from "../core/tool-calls.js";
import { MAX_WAIT_S } from "../core/subagents/tools.js";
import { newHandoverMcpServer, toolError, type ToolCall, type ToolName } from "./tools.js";

/** A forwarded call may be a wait for subagents: the daemon answers within its longest wait. */
const FORWARD_TIMEOUT_MS = (MAX_WAIT_S + 60) * 1000;

export interface ForwarderContext {
  dataDir: string;
  /** BATON_AGENT_KIND / BATON_LAUNCH_ID from `baton launch`, and the agent's working directory. */
  env: NodeJS.ProcessEnv;
  cwd: string;
  version: string;
}

/** Fills what the agent left out from the `baton launch` environment and the working directory. */
function withLaunchDefaults(name: ToolName, args: Record<string, unknown>, ctx: ForwarderContext): Record<string, unknown> {
  if (name !== "get_session_id" && name !== "prepare_handover") return args;
  const out = { ...args };
  out.agent_kind ??= ctx.env.BATON_AGENT_KIND || undefined;
  out.cwd ??= ctx.cwd;
  out.launch_id ??= ctx.env.BATON_LAUNCH_ID || undefined;
  for (const key of Object.keys(out)) if (out[key] === undefined) delete out[key];
  return out;
}

function forwardingToolCall(ctx: ForwarderContext): ToolCall {
  return async (name, args, _caller, signal) => {
    const notRunning = toolError(`Baton is not running (no daemon found for the data dir ${ctx.dataDir}). Start it with \`baton start\` in another terminal, then try again.`);
    const daemon = findDaemon(ctx.dataDir);
    if (!daemon) return notRunning;
    const client = new Client({ name: "baton-mcp-forwarder", version: ctx.version });
    const token = ctx.env[HOST_TOKEN_ENV] || daemon.token;
    const transport = new StreamableHTTPClientTransport(new URL(daemon.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
    try {
      await client.connect(transport);
    } catch {
      return notRunning;
    }
    try {
      return (await client.callTool({ name, arguments: withLaunchDefaults(name, args, ctx) }, undefined, { signal, timeout: FORWARD_TIMEOUT_MS })) as CallToolResult;
    } catch (error) {
      return toolError(`The Baton daemon did not answer the ${name} call: ${(error as Error).message}`);
    } finally {
      await client.close().catch(() => undefined);
    }
  };
}

export async function runMcpStdio(ctx: ForwarderContext): Promise<void> {
  if (process.stdin.isTTY) {
    process.stderr.write("baton mcp speaks MCP on stdio for agent CLIs; register it with `baton setup <agent>` or use `baton launch <agent>`. Ctrl-D ends it.\n");
  }
  // The tools offered follow the token's kind; the daemon checks every call against the token itself.
  const kind = !ctx.env[HOST_TOKEN_ENV] ? "terminal" : ctx.env[SUBAGENT_TOOLS_ENV] === "1" ? "thread" : "subagent";
  const server = await newHandoverMcpServer(forwardingToolCall(ctx), ctx.version, kind);
  const transport = new StdioServerTransport();
  await server.connect(transport);
  const closed = new Promise<void>((resolve) => (server.server.onclose = resolve));
  // The agent CLI ends us by closing stdin.
  process.stdin.once("end", () => void server.close());
  await closed;
}
