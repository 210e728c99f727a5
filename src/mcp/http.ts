// The daemon's MCP endpoint: Streamable HTTP on loopback at /mcp, every request with the bearer
// token. Stateless (a fresh server and transport per request): the tools keep no per-client state,
// and nothing leaks between clients.
import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { ConfigError } from "../kernel/errors.js";
import { bearerAuth, closeServer, constantTimeEqual, honoServer, httpUrl, listenOn, type BearerEnv } from "../kernel/http.js";
import { parseListenAddress } from "../kernel/listen.js";
import type { Logger } from "../kernel/log.js";
import type { HostTokens, McpCaller } from "../core/tool-calls.js";
import { newHandoverMcpServer, type ToolCall } from "./tools.js";
import { tokenKindOf } from "./access.js";

const MCP_PATH = "/mcp";
const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

export interface McpHttpServer {
  url: string;
  close(): Promise<void>;
}

/** `network`: the opt-in listener for other machines (handover.remote_listen), which may face a network. */
function parseListen(listen: string, key = "handover.mcp_listen", network = false): { host: string; port: number } {
  const address = parseListenAddress(listen);
  if (!address) throw new ConfigError(`${key}: expected host:port such as 127.0.0.1:0, got "${listen}"`);
  // The MCP tools register workspaces and hand sessions out: never on a network interface unless asked.
  if (!network && !LOOPBACK.has(address.host)) throw new ConfigError(`${key}: MCP only listens on loopback (127.0.0.1, ::1 or localhost), not ${address.host}`);
  return address;
}

export interface McpHttpOptions {
  listen: string;
  /** Bearer tokens and whom they speak for: `local`, or a machine's name. */
  tokens: Record<string, string>;
  /** The tokens of the agents Baton runs (each names its thread), accepted when `acceptsHost` says so. */
  hostTokens?: HostTokens;
  acceptsHost?: (caller: McpCaller) => boolean;
  call: ToolCall;
  version: string;
  log: Logger;
  /** The config key of `listen`, for errors; and whether it may be a network address. */
  key?: string;
  network?: boolean;
}

export async function startMcpHttp(options: McpHttpOptions): Promise<McpHttpServer> {
  const { host, port } = parseListen(options.listen, options.key, options.network);
  const server = honoServer(mcpApp(options), host);
  const address = await listenOn(server, host, port);
  return { url: `${httpUrl(address)}${MCP_PATH}`, close: () => closeServer(server) };
}

/** Every fixed token is compared in constant time, whichever matches; an agent's token is looked up by its digest. */
function callerOf(options: McpHttpOptions): (token: string) => McpCaller | undefined {
  const callers = Object.entries(options.tokens);
  return (token) => {
    let found: McpCaller | undefined;
    for (const [machine, expected] of callers) if (constantTimeEqual(token, expected)) found = { machine };
    if (found) return found;
    const host = options.hostTokens?.lookup(token);
    return host && (options.acceptsHost?.(host) ?? true) ? host : undefined;
  };
}

function mcpApp(options: McpHttpOptions): Hono<BearerEnv<McpCaller>> {
  const app = new Hono<BearerEnv<McpCaller>>();
  app.use(MCP_PATH, bearerAuth({ identify: callerOf(options) }));
  app.post(MCP_PATH, async (c) => {
    const caller = c.get("caller");
    const { WebStandardStreamableHTTPServerTransport } = await import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js");
    const mcp = await newHandoverMcpServer((name, args, _caller, signal) => options.call(name, args, caller, signal), options.version, tokenKindOf(caller));
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    const close = () => {
      void transport.close();
      void mcp.close();
    };
    // A client that hangs up cancels its tool calls (their signal aborts when the transport closes).
    c.req.raw.signal.addEventListener("abort", close, { once: true });
    try {
      await mcp.connect(transport);
      return await transport.handleRequest(c.req.raw);
    } finally {
      // JSON answers (no streams): the whole answer is in the response by now.
      c.req.raw.signal.removeEventListener("abort", close);
      close();
    }
  });
  // Stateless: no server-initiated streams (GET) and no sessions to delete.
  app.all(MCP_PATH, (c) => c.text("POST only\n", 405, { allow: "POST" }));
  app.notFound((c) => c.text("not found\n", 404));
  app.onError((error, c) => {
    if (error instanceof HTTPException) return error.getResponse();
    options.log.error({ err: error }, "MCP request failed");
    return c.body(null, 500);
  });
  return app;
}
