// The ops listener: GET /healthz (up, draining, platforms connected), GET /metrics (Prometheus) and
// GET /status (what `baton status` prints). Separate from the web chat, loopback by default, with
// no secrets in any answer. With `ops.token`, /metrics and /status need it as a bearer token
// (/healthz stays open for health checks: it says only up or not). Its URL (and the token, for
// `baton status`) goes to <data_dir>/ops.json, 0600.
import { createHash, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { ConfigError, BatonError } from "../kernel/errors.js";
import { parseListenAddress } from "../kernel/listen.js";
import { liveEndpoint, removeEndpointFile, writeEndpointFile, type Endpoint } from "../kernel/endpoint.js";
import type { Logger } from "../kernel/log.js";
import type { MetricsRecorder } from "./recorder.js";
import type { DaemonSnapshot } from "./snapshot.js";
import type { PrometheusExport } from "./prometheus.js";

const OPS_ENDPOINT_FILE = "ops.json";

export interface OpsOptions {
  /** `host:port` or a port; `off` disables the listener. */
  listen: string;
  /** The listen address was not configured: a busy port falls back to a free one instead of failing. */
  isDefault: boolean;
  /** Bearer token /metrics and /status require (ops.token). */
  token?: string;
  dataDir: string;
  recorder: MetricsRecorder;
  snapshot(): DaemonSnapshot;
  log: Logger;
}

export interface RunningOps {
  url?: string;
  stop(): Promise<void>;
}

function opsEndpointPath(dataDir: string): string {
  return join(dataDir, OPS_ENDPOINT_FILE);
}

/** The ops endpoint of the daemon running on this data dir, if any. */
export function findOpsEndpoint(dataDir: string): Endpoint | undefined {
  return liveEndpoint(opsEndpointPath(dataDir));
}

export async function startOps(options: OpsOptions): Promise<RunningOps> {
  if (options.listen.trim().toLowerCase() === "off") return { stop: async () => undefined };
  const address = parseListenAddress(options.listen);
  if (!address) throw new ConfigError(`ops.listen: expected host:port or a port (such as 127.0.0.1:8788 or 8788), or "off"; got "${options.listen}"`);
  let prometheus: Promise<PrometheusExport> | undefined;
  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      options.log.error({ err: error, path: req.url }, "ops request failed");
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end("internal error\n");
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? "/", "http://ops").pathname;
    if (req.method !== "GET" && req.method !== "HEAD") return send(res, 405, "text/plain", "only GET\n", { allow: "GET, HEAD" });
    if (path === "/healthz") {
      const s = options.snapshot();
      const degraded = s.platforms.some((p) => p.state !== "connected");
      const noneServes = s.state === "running" && s.platforms.length > 0 && s.platforms.every((p) => p.state !== "connected");
      // A standby is healthy: it is ready to take over, and serves no platform until then.
      const up = (s.state === "running" && !noneServes) || s.state === "standby";
      const body = { status: s.state !== "running" ? s.state : noneServes ? "down" : degraded ? "degraded" : "ok", ...(s.cluster && { role: s.cluster.role, leader: s.cluster.leader, epoch: s.cluster.epoch }), version: s.version, uptime_s: Math.round((Date.now() - Date.parse(s.startedAt)) / 1000), platforms: s.platforms };
      // Starting and draining answer 503, so an orchestrator sends no work here; so does a Baton with
      // no platform serving. One platform that cannot be reached is "degraded" but 200: the others
      // serve, and restarting Baton would not bring the network back.
      return send(res, up ? 200 : 503, "application/json", JSON.stringify(body) + "\n");
    }
    if ((path === "/status" || path === "/metrics") && !authorized(req.headers.authorization, options.token)) {
      return send(res, 401, "text/plain", "missing or wrong bearer token (ops.token)\n", { "www-authenticate": 'Bearer realm="baton-ops"' });
    }
    if (path === "/status") {
      const s = options.snapshot();
      const r = options.recorder;
      const counts = { messages_in: r.total("messages_in"), messages_out: r.total("messages_out"), turns: r.total("turns"), platform_errors: r.total("platform_errors"), pickups_claimed: r.total("pickups", { outcome: "claimed" }), pickups_refused: r.total("pickups", { outcome: "refused" }) };
      const cluster = { role: s.cluster?.role ?? "leader", ...(s.cluster && { leader: s.cluster.leader, epoch: s.cluster.epoch, instance: s.cluster.instance }) };
      return send(res, 200, "application/json", JSON.stringify({ ...s, ...cluster, counts }, null, 2) + "\n");
    }
    if (path === "/metrics") {
      // prom-client costs a few hundred ms to load: only a daemon that is scraped loads it.
      prometheus ??= import("./prometheus.js").then((m) => m.createPrometheusExport(options.recorder, options.snapshot));
      const exported = await prometheus;
      return send(res, 200, exported.contentType, await exported.render());
    }
    return send(res, 404, "text/plain", "not found: try /healthz, /metrics or /status\n");
  }

  const bound = await listen(server, address.host, address.port).catch(async (error: NodeJS.ErrnoException) => {
    if (error.code !== "EADDRINUSE" || !options.isDefault) {
      throw new BatonError(`The ops listener cannot listen on ${options.listen} (${error.code ?? error.message}). Set ops.listen to a free port, or "off".`);
    }
    const fallback = await listen(server, address.host, 0);
    options.log.warn({ wanted: options.listen, port: fallback.port }, "ops listener: the default port is in use; listening on a free port instead (set ops.listen to choose)");
    return fallback;
  });
  const host = bound.address.includes(":") ? `[${bound.address}]` : bound.address;
  const url = `http://${host}:${bound.port}`;
  writeEndpointFile(opsEndpointPath(options.dataDir), { url, pid: process.pid, token: options.token });
  options.log.info({ url }, "ops listener ready (/healthz, /metrics, /status)");
  return {
    url,
    async stop() {
      removeEndpointFile(opsEndpointPath(options.dataDir), process.pid);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function listen(server: Server, host: string, port: number): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once("error", onError);
    server.listen(port, host, () => {
      server.off("error", onError);
      resolve(server.address() as AddressInfo);
    });
  });
}

function send(res: ServerResponse, status: number, type: string, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": type, "cache-control": "no-store", ...headers });
  res.end(body);
}

/** Compared as digests in constant time: neither the token's length nor its bytes leak through timing. */
function authorized(header: string | undefined, token: string | undefined): boolean {
  if (token === undefined) return true;
  const digest = (text: string) => createHash("sha256").update(text).digest();
  return timingSafeEqual(digest(header ?? ""), digest(`Bearer ${token}`));
}
