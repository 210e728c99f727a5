// The daemon's MCP endpoint: Streamable HTTP on loopback at /mcp, every request with the bearer
// token. Stateless (a fresh server and transport per request): the tools keep no per-client state,
// and nothing leaks between clients.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { timingSafeEqual } from "node:crypto";
import type { AddressInfo } from "node:net";
import { ConfigError } from "../kernel/errors.js";
import { parseListenAddress } from "../kernel/listen.js";
import type { Logger } from "../kernel/log.js";
import type { HostTokens, McpCaller } from "./host-tokens.js";
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
  const callers = Object.entries(options.tokens).map(([caller, token]) => ({ caller, expected: Buffer.from(`Bearer ${token}`) }));
  /** Every fixed token is compared in constant time, whichever matches; an agent's token is looked up by its digest. */
  const callerOf = (header: string | undefined): McpCaller | undefined => {
    const given = Buffer.from(header ?? "");
    let found: McpCaller | undefined;
    for (const { caller, expected } of callers) if (given.length === expected.length && timingSafeEqual(given, expected)) found = { machine: caller };
    if (found) return found;
    const bearer = /^Bearer (\S+)$/.exec(header ?? "")?.[1];
    const host = bearer ? options.hostTokens?.lookup(bearer) : undefined;
    return host && (options.acceptsHost?.(host) ?? true) ? host : undefined;
  };
  const server: Server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      options.log.error({ err: error }, "MCP request failed");
      if (!res.headersSent) res.writeHead(500).end();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    if (path !== MCP_PATH) return void res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
    const caller = callerOf(req.headers.authorization);
    if (!caller) {
      return void res.writeHead(401, { "www-authenticate": 'Bearer realm="baton"', "content-type": "text/plain" }).end("missing or wrong bearer token\n");
    }
    // Stateless: no server-initiated streams (GET) and no sessions to delete.
    if (req.method !== "POST") return void res.writeHead(405, { allow: "POST", "content-type": "text/plain" }).end("POST only\n");
    const { StreamableHTTPServerTransport } = await import("@modelcontextprotocol/sdk/server/streamableHttp.js");
    const mcp = await newHandoverMcpServer((name, args, _caller, signal) => options.call(name, args, caller, signal), options.version, tokenKindOf(caller));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on("close", () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res);
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const hostPart = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${hostPart}:${address.port}${MCP_PATH}`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
