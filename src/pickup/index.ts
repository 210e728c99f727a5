// Starts the handover feature inside the daemon: the code store and limits, the service behind
// /pickup, and the MCP endpoint that `baton mcp` and agents reach. `bot/daemon.ts` calls this once.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { BatonConfig } from "../config/schema.js";
import type { Logger } from "../kernel/log.js";
import type { Clock } from "./codes.js";
import { openHandoverKv, type HandoverKv } from "./kv.js";
import { HandoverService, type HandoverCore } from "./service.js";
import { ensureToken, removeEndpoint, writeEndpoint } from "../handoff/discovery.js";
import { startMcpHttp, type McpHttpServer } from "../mcp/http.js";
import { LOCAL_MACHINE } from "../agents/machines/refs.js";
import { localToolCall } from "../mcp/tools.js";
import { HostTokens } from "../core/tool-calls.js";
import { batonVersion } from "../kernel/install.js";

export type { HandoverCore } from "./service.js";

export interface RunningHandover {
  service: HandoverService;
  mcpUrl: string;
  /** The token a configured machine's `baton mcp` uses (it tells the daemon which machine calls). */
  machineToken(machine: string): string;
  /** Tokens of the agents Baton runs, one per host; the endpoints accept them while they live. */
  hostTokens: HostTokens;
  stop(): Promise<void>;
}

const PRIVATE_DIR_MODE = 0o700;

export async function startHandover(options: { core: HandoverCore; config: BatonConfig; dataDir: string; log: Logger; clock?: Clock; kv?: HandoverKv }): Promise<RunningHandover> {
  const { core, config, dataDir, log } = options;
  // Given with store.url (codes on PostgreSQL); else memory or Redis as store.kv says.
  const kv = options.kv ?? (await openHandoverKv(config.store.kv, (error) => log.warn({ err: error }, "handover store (Redis) error; retrying")));
  const service = new HandoverService({
    core,
    dataDir,
    kv,
    codeTtlMs: config.handover.code_ttl,
    failedPerSenderPerMin: config.handover.failed_per_sender_per_min,
    failedTotalPerMin: config.handover.failed_total_per_min,
    log,
    clock: options.clock,
  });
  // Each machine has its own token, kept here (0600) and copied there when its endpoint is published.
  const machineTokens: Record<string, string> = {};
  for (const [name, machine] of Object.entries(config.machines)) {
    if (machine.handover === "off") continue;
    const dir = join(dataDir, "machines", name);
    mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    machineTokens[name] = ensureToken(dir);
  }
  const listenerTokens = Object.fromEntries(Object.entries(machineTokens).filter(([name]) => config.machines[name].handover === "listener"));
  const servers: McpHttpServer[] = [];
  const call = localToolCall(service, core.subagents);
  const hostTokens = new HostTokens();
  try {
    // The loopback endpoint serves this machine's terminals and the tunnels from the others.
    servers.push(await startMcpHttp({ listen: config.handover.mcp_listen, tokens: { [LOCAL_MACHINE]: ensureToken(dataDir), ...machineTokens }, hostTokens, call, version: batonVersion(), log }));
    if (config.handover.remote_listen) {
      // Opt-in, for machines that reach the daemon over the network: only their tokens work there.
      const listener = await startMcpHttp({
        listen: config.handover.remote_listen,
        tokens: listenerTokens,
        hostTokens,
        acceptsHost: (caller) => caller.machine in listenerTokens,
        call,
        version: batonVersion(),
        log,
        key: "handover.remote_listen",
        network: true,
      });
      servers.push(listener);
      log.info({ url: listener.url }, "handover listener for other machines ready");
    }
  } catch (error) {
    await Promise.all(servers.map((s) => s.close()));
    await kv.close();
    throw error;
  }
  const mcp = servers[0];
  writeEndpoint(dataDir, { url: mcp.url, pid: process.pid });
  log.info({ url: mcp.url }, "handover MCP endpoint ready");
  return {
    service,
    mcpUrl: mcp.url,
    hostTokens,
    machineToken: (machine) => {
      const token = machineTokens[machine];
      if (!token) throw new Error(`no handover token for machine ${machine}`);
      return token;
    },
    async stop() {
      removeEndpoint(dataDir, process.pid);
      await Promise.all(servers.map((s) => s.close()));
      await kv.close();
    },
  };
}
