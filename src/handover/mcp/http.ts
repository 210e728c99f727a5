// The daemon's MCP endpoint: Streamable HTTP on loopback at /mcp, every request with the bearer
// token. Stateless (a fresh server and transport per request): the tools keep no per-client state,
// and nothing leaks between clients.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { timingSafeEqual } from "node:crypto";
import type { AddressInfo } from "node:net";
import { ConfigError } from "../../kernel/errors.js";
import { parseListenAddress } from "../../kernel/listen.js";
import type { Logger } from "../../kernel/log.js";
import { newHandoverMcpServer, type ToolCall } from "./tools.js";

export const MCP_PATH = "/mcp";
const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

export interface McpHttpServer {
  url: string;
  close(): Promise<void>;
}

export function parseListen(listen: string): { host: string; port: number } {
  const address = parseListenAddress(listen);
  if (!address) throw new ConfigError(`handover.mcp_listen: expected host:port such as 127.0.0.1:0, got "${listen}"`);
  // The MCP tools register workspaces and hand sessions out: never on a network interface.
  if (!LOOPBACK.has(address.host)) throw new ConfigError(`handover.mcp_listen: MCP only listens on loopback (127.0.0.1, ::1 or localhost), not ${address.host}`);
  return address;
}

export async function startMcpHttp(options: { listen: string; token: string; call: ToolCall; version: string; log: Logger }): Promise<McpHttpServer> {
  const { host, port } = parseListen(options.listen);
  const expected = Buffer.from(`Bearer ${options.token}`);
  const server: Server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      options.log.error({ err: error }, "MCP request failed");
      if (!res.headersSent) res.writeHead(500).end();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    if (path !== MCP_PATH) return void res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
    const given = Buffer.from(req.headers.authorization ?? "");
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return void res.writeHead(401, { "www-authenticate": 'Bearer realm="baton"', "content-type": "text/plain" }).end("missing or wrong bearer token\n");
    }
    // Stateless: no server-initiated streams (GET) and no sessions to delete.
    if (req.method !== "POST") return void res.writeHead(405, { allow: "POST", "content-type": "text/plain" }).end("POST only\n");
    const { StreamableHTTPServerTransport } = await import("@modelcontextprotocol/sdk/server/streamableHttp.js");
    const mcp = await newHandoverMcpServer(options.call, options.version);
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
