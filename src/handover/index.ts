// Starts the handover feature inside the daemon: the code store and limits, the service behind
// /pickup, and the MCP endpoint that `baton mcp` and agents reach. `bot/daemon.ts` calls this once.
import { readFileSync } from "node:fs";
import type { BatonConfig } from "../config/schema.js";
import type { Logger } from "../kernel/log.js";
import type { Clock } from "./codes.js";
import { openHandoverKv } from "./kv.js";
import { HandoverService, type HandoverCore } from "./service.js";
import { ensureToken, removeEndpoint, writeEndpoint } from "./mcp/discovery.js";
import { startMcpHttp } from "./mcp/http.js";
import { localToolCall } from "./mcp/tools.js";

export { HandoverService, INVALID_CODE_TEXT, type HandoverCore } from "./service.js";

export interface RunningHandover {
  service: HandoverService;
  mcpUrl: string;
  stop(): Promise<void>;
}

export function batonVersion(): string {
  return (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;
}

export async function startHandover(options: { core: HandoverCore; config: BatonConfig; dataDir: string; log: Logger; clock?: Clock }): Promise<RunningHandover> {
  const { core, config, dataDir, log } = options;
  const kv = await openHandoverKv(config.store.kv, (error) => log.warn({ err: error }, "handover store (Redis) error; retrying"));
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
  let mcp;
  try {
    mcp = await startMcpHttp({ listen: config.handover.mcp_listen, token: ensureToken(dataDir), call: localToolCall(service), version: batonVersion(), log });
  } catch (error) {
    await kv.close();
    throw error;
  }
  writeEndpoint(dataDir, { url: mcp.url, pid: process.pid });
  log.info({ url: mcp.url }, "handover MCP endpoint ready");
  return {
    service,
    mcpUrl: mcp.url,
    async stop() {
      removeEndpoint(dataDir, process.pid);
      await mcp.close();
      await kv.close();
    },
  };
}
