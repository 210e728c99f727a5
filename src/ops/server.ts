// The ops listener: GET /healthz (up, draining, platforms connected), GET /metrics (Prometheus) and
// GET /status (what `baton status` prints). Separate from the web chat, loopback by default, with
// no secrets in any answer. With `ops.token`, /metrics and /status need it as a bearer token
// (/healthz stays open for health checks: it says only up or not). Its URL (and the token, for
// `baton status`) goes to <data_dir>/ops.json, 0600.
import { join } from "node:path";
import { Hono, type Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { ConfigError, BatonError } from "../kernel/errors.js";
import { parseListenAddress } from "../kernel/listen.js";
import { liveEndpoint, removeEndpointFile, writeEndpointFile, type Endpoint } from "../kernel/endpoint.js";
import { bearerAuth, closeServer, constantTimeEqual, honoServer, httpUrl, listenOn } from "../kernel/http.js";
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
  const server = honoServer(opsApp(options), address.host);
  const bound = await listenOn(server, address.host, address.port).catch(async (error: NodeJS.ErrnoException) => {
    if (error.code !== "EADDRINUSE" || !options.isDefault) {
      throw new BatonError(`The ops listener cannot listen on ${options.listen} (${error.code ?? error.message}). Set ops.listen to a free port, or "off".`);
    }
    const fallback = await listenOn(server, address.host, 0);
    options.log.warn({ wanted: options.listen, port: fallback.port }, "ops listener: the default port is in use; listening on a free port instead (set ops.listen to choose)");
    return fallback;
  });
  const url = httpUrl(bound);
  writeEndpointFile(opsEndpointPath(options.dataDir), { url, pid: process.pid, token: options.token });
  options.log.info({ url }, "ops listener ready (/healthz, /metrics, /status)");
  return {
    url,
    async stop() {
      removeEndpointFile(opsEndpointPath(options.dataDir), process.pid);
      await closeServer(server);
    },
  };
}

/** GET (and HEAD) /healthz, /status and /metrics; anything else is a 404 or a 405 that says what is. */
function opsApp(options: OpsOptions): Hono {
  let prometheus: Promise<PrometheusExport> | undefined;
  const app = new Hono();
  app.use("*", async (c, next) => {
    if (c.req.method !== "GET" && c.req.method !== "HEAD") return send(c, 405, "text/plain", "only GET\n", { allow: "GET, HEAD" });
    await next();
  });
  app.get("/healthz", (c) => {
    const s = options.snapshot();
    const degraded = s.platforms.some((p) => p.state !== "connected");
    const noneServes = s.state === "running" && s.platforms.length > 0 && s.platforms.every((p) => p.state !== "connected");
    // A standby is healthy: it is ready to take over, and serves no platform until then.
    const up = (s.state === "running" && !noneServes) || s.state === "standby";
    const body = {
      status: s.state !== "running" ? s.state : noneServes ? "down" : degraded ? "degraded" : "ok",
      ...(s.cluster && { role: s.cluster.role, leader: s.cluster.leader, epoch: s.cluster.epoch }),
      version: s.version,
      uptime_s: Math.round((Date.now() - Date.parse(s.startedAt)) / 1000),
      platforms: s.platforms,
    };
    // Starting and draining answer 503, so an orchestrator sends no work here; so does a Baton with
    // no platform serving. One platform that cannot be reached is "degraded" but 200: the others
    // serve, and restarting Baton would not bring the network back.
    return send(c, up ? 200 : 503, "application/json", `${JSON.stringify(body)}\n`);
  });
  const token = options.token;
  if (token !== undefined) {
    const guard = bearerAuth({ identify: (given) => constantTimeEqual(given, token) || undefined, realm: "baton-ops", message: "missing or wrong bearer token (ops.token)\n" });
    app.use("/status", guard);
    app.use("/metrics", guard);
  }
  app.get("/status", (c) => {
    const s = options.snapshot();
    const r = options.recorder;
    const counts = {
      messages_in: r.total("messages_in"),
      messages_out: r.total("messages_out"),
      turns: r.total("turns"),
      platform_errors: r.total("platform_errors"),
      pickups_claimed: r.total("pickups", { outcome: "claimed" }),
      pickups_refused: r.total("pickups", { outcome: "refused" }),
    };
    const cluster = { role: s.cluster?.role ?? "leader", ...(s.cluster && { leader: s.cluster.leader, epoch: s.cluster.epoch, instance: s.cluster.instance }) };
    return send(c, 200, "application/json", `${JSON.stringify({ ...s, ...cluster, counts }, null, 2)}\n`);
  });
  app.get("/metrics", async (c) => {
    // prom-client costs a few hundred ms to load: only a daemon that is scraped loads it.
    prometheus ??= import("./prometheus.js").then((m) => m.createPrometheusExport(options.recorder, options.snapshot));
    const exported = await prometheus;
    return send(c, 200, exported.contentType, await exported.render());
  });
  app.notFound((c) => send(c, 404, "text/plain", "not found: try /healthz, /metrics or /status\n"));
  app.onError((error, c) => {
    if (error instanceof HTTPException) return error.getResponse();
    options.log.error({ err: error, path: c.req.path }, "ops request failed");
    return send(c, 500, "text/plain", "internal error\n");
  });
  return app;
}

function send(c: Context, status: 200 | 404 | 405 | 500 | 503, type: string, body: string, headers: Record<string, string> = {}): Response {
  return c.body(body, status, { "content-type": type, "cache-control": "no-store", ...headers });
}
