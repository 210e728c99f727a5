// The demo agent as an MCP client, the way real agents use the MCP servers a client hands them in
// session/new, load or resume: over HTTP (with the given headers) when one is offered, else by
// spawning the stdio server with the given environment. One connection per tool call keeps the
// demo simple; the SDK loads only when a prompt needs it.
import type * as acp from "@agentclientprotocol/sdk";

interface ToolResult {
  text: string;
  data: Record<string, unknown>;
  isError: boolean;
}

export type ToolCaller = (name: string, args: Record<string, unknown>, options: { signal: AbortSignal; timeoutMs: number }) => Promise<ToolResult>;

/** A tool caller on the session's first MCP server (HTTP preferred), or undefined when it got none. */
export function mcpToolCaller(servers: acp.McpServer[]): ToolCaller | undefined {
  const server = servers.find((s) => "type" in s && s.type === "http") ?? servers.find((s) => "command" in s);
  if (!server) return undefined;
  return async (name, args, options) => {
    const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
    const client = new Client({ name: "baton-demo", version: "1" });
    await client.connect(await transportFor(server));
    try {
      const result = await client.callTool({ name, arguments: args }, undefined, { signal: options.signal, timeout: options.timeoutMs });
      const content = (result.content ?? []) as Array<{ type: string; text?: string }>;
      return {
        text: content.map((c) => (c.type === "text" ? (c.text ?? "") : "")).join("\n"),
        data: (result.structuredContent ?? {}) as Record<string, unknown>,
        isError: result.isError === true,
      };
    } finally {
      await client.close().catch(() => undefined);
    }
  };
}

async function transportFor(server: acp.McpServer) {
  if ("type" in server && (server.type === "http" || server.type === "sse")) {
    const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
    const headers = Object.fromEntries(server.headers.map((h) => [h.name, h.value]));
    return new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers } });
  }
  const stdio = server as acp.McpServerStdio;
  const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  for (const e of stdio.env) env[e.name] = e.value;
  return new StdioClientTransport({ command: stdio.command, args: stdio.args, env, stderr: "ignore" });
}
