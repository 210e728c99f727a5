// Baton's MCP server as every agent Baton starts gets it in its session: over HTTP with its own
// bearer token where the agent takes HTTP servers, else the stdio `baton mcp` forwarder with the
// token in its environment. The token names the agent's thread (and, for a subagent, its name),
// so the tools act for that thread only; it is revoked when the process is gone.
import type { McpServer } from "@agentclientprotocol/sdk";
import { CLI_ENTRY } from "../kernel/install.js";
import { LOCAL_MACHINE, type Machines } from "../agents/machines/index.js";
import type { McpAccess } from "../agents/supervisor.js";
import { HOST_TOKEN_ENV, SUBAGENT_TOOLS_ENV, type HostTokens } from "./tool-calls.js";
import type { Logger } from "../kernel/log.js";

const MCP_SERVER_NAME = "baton";

const NONE: McpAccess = { servers: [], release: () => undefined };

export interface McpEndpoint {
  /** The daemon's loopback MCP URL. */
  localUrl: string;
  tokens: HostTokens;
}

export class AgentMcp {
  private endpoint?: McpEndpoint;
  private readonly warned = new Set<string>();

  constructor(
    private readonly machines: Machines,
    private readonly dataDir: string,
    private readonly log: Logger,
  ) {}

  /** Set once the MCP endpoint listens (the daemon starts it after the core). */
  connect(endpoint: McpEndpoint): void {
    this.endpoint = endpoint;
  }

  /** The servers for an agent in `workspace` acting for `scope`; `release` revokes its token. */
  async serversFor(workspace: string, scope: { thread: string; subagent?: string }, agent: { http: boolean }): Promise<McpAccess> {
    const endpoint = this.endpoint;
    if (!endpoint) return NONE;
    const machine = this.machines.locate(workspace).machine.name;
    const url = await this.machines.mcpUrlOn(machine, endpoint.localUrl);
    if (!url) {
      this.warnOnce(machine, "agents there get no Baton MCP server (no subagents): its handover tunnel or listener is not up (machines.<name>.handover)");
      return NONE;
    }
    const issued = endpoint.tokens.issue({ machine, ...scope });
    const release = issued.revoke;
    const bind = (thread: string) => issued.bind({ machine, ...scope, thread });
    if (agent.http) {
      return { servers: [{ type: "http", name: MCP_SERVER_NAME, url, headers: [{ name: "Authorization", value: `Bearer ${issued.token}` }] }], release, bind };
    }
    const stdio = this.stdioServer(machine, issued.token, !scope.subagent);
    if (!stdio) {
      release();
      this.warnOnce(machine, "agents there that take no HTTP MCP servers get no Baton MCP server: Baton is not installed there (machines.<name>.baton)");
      return NONE;
    }
    return { servers: [stdio], release, bind };
  }

  private stdioServer(machine: string, token: string, subagentTools: boolean): McpServer | undefined {
    const env = [{ name: HOST_TOKEN_ENV, value: token }];
    if (subagentTools) env.push({ name: SUBAGENT_TOOLS_ENV, value: "1" });
    if (machine === LOCAL_MACHINE) {
      env.push({ name: "BATON_DATA_DIR", value: this.dataDir });
      return { name: MCP_SERVER_NAME, command: process.execPath, args: [CLI_ENTRY, "mcp"], env };
    }
    const words = this.machines.batonWordsOn(machine);
    if (!words) return undefined;
    return { name: MCP_SERVER_NAME, command: words[0], args: [...words.slice(1), "mcp"], env };
  }

  private warnOnce(machine: string, text: string): void {
    if (this.warned.has(machine)) return;
    this.warned.add(machine);
    this.log.warn({ machine }, `machine ${machine}: ${text}`);
  }
}
