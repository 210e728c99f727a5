// `baton status` and `baton reload`: ask the daemon running on this data dir, through the ops
// listener it published in <data_dir>/ops.json. Reload is a SIGHUP to that daemon; its answer is
// read back from /status.
import type { Endpoint } from "../kernel/endpoint.js";
import { findOpsEndpoint } from "../ops/server.js";
import type { ClusterState, DaemonSnapshot, ReloadReport } from "../ops/snapshot.js";
import { reloadSummary } from "./reload.js";

const RELOAD_WAIT_MS = 10_000;
const POLL_MS = 100;
/** A step-down drains running turns (shutdown_grace) first. */
const STEP_DOWN_WAIT_MS = 120_000;

type Status = DaemonSnapshot & { counts: Record<string, number> };

function notRunning(dataDir: string): number {
  process.stderr.write(`baton: no Baton is running with the data dir ${dataDir} (or its ops listener is off: ops.listen).\n`);
  return 3; // "not running", as `systemctl status` says it
}

async function fetchStatus(endpoint: Endpoint): Promise<Status> {
  const headers: Record<string, string> = endpoint.token ? { authorization: `Bearer ${endpoint.token}` } : {};
  const response = await fetch(`${endpoint.url}/status`, { headers, signal: AbortSignal.timeout(5_000) });
  if (!response.ok) throw new Error(`the daemon answered ${response.status}`);
  return (await response.json()) as Status;
}

export async function runStatus(dataDir: string, json: boolean): Promise<number> {
  const endpoint = findOpsEndpoint(dataDir);
  if (!endpoint) return notRunning(dataDir);
  const s = await fetchStatus(endpoint);
  if (json) {
    process.stdout.write(`${JSON.stringify(s, null, 2)}\n`);
    return 0;
  }
  const uptime = Math.round((Date.now() - Date.parse(s.startedAt)) / 1000);
  const lines = [
    `Baton ${s.version}, pid ${s.pid}: ${s.state}, up ${uptime} s (ops ${endpoint.url})`,
    ...s.platforms.map(platformLine),
    `  threads open ${s.openThreads}; turns running ${s.turnsRunning}; agent hosts ${s.liveHosts}/${s.maxLiveHosts}${s.spareHost ? ` + a spare (${s.spareHost.agent}, pid ${s.spareHost.pid ?? "?"}, ${s.spareHost.state})` : ""}; queued prompts ${s.queuedPrompts}; approvals pending ${s.pendingApprovals}`,
    `  messages in ${s.counts.messages_in}, out ${s.counts.messages_out}; turns ${s.counts.turns}; platform errors ${s.counts.platform_errors}; pickups ${s.counts.pickups_claimed} claimed, ${s.counts.pickups_refused} refused`,
  ];
  if (s.cluster) lines.splice(1, 0, clusterLine(s.cluster));
  if (s.lastReload) lines.push(`  last reload ${s.lastReload.at}: ${s.lastReload.ok ? reloadSummary(s.lastReload.applied, s.lastReload.restartNeeded) : `failed: ${s.lastReload.error}`}`);
  process.stdout.write(`${lines.join("\n")}\n`);
  return 0;
}

/** `✓ web (web)`, or `✗ telegram (telegram): degraded — Telegram could not be reached … (attempt 3, next in 8 s)`. */
function platformLine(p: Status["platforms"][number]): string {
  const state = p.state ?? (p.connected ? "connected" : "degraded");
  if (state === "connected") return `  ✓ ${p.name} (${p.kind})`;
  const next = p.nextAttemptAt ? Math.max(0, Math.round((Date.parse(p.nextAttemptAt) - Date.now()) / 1000)) : undefined;
  const retry = p.attempts ? ` (attempt ${p.attempts}${next === undefined ? "" : `, next in ${next} s`})` : "";
  return `  ${state === "starting" ? "…" : "✗"} ${p.name} (${p.kind}): ${state}${p.detail ? ` — ${p.detail}` : ""}${retry}`;
}

export async function runReload(dataDir: string): Promise<number> {
  const endpoint = findOpsEndpoint(dataDir);
  if (!endpoint) return notRunning(dataDir);
  const before = (await fetchStatus(endpoint)).lastReload?.at;
  process.kill(endpoint.pid, "SIGHUP");
  let report: ReloadReport | undefined;
  for (let waited = 0; waited < RELOAD_WAIT_MS && !report; waited += POLL_MS) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    const latest = (await fetchStatus(endpoint)).lastReload;
    if (latest && latest.at !== before) report = latest;
  }
  if (!report) {
    process.stderr.write(`baton: sent SIGHUP to pid ${endpoint.pid}, but it did not report a reload within ${RELOAD_WAIT_MS / 1000} s; see its log.\n`);
    return 1;
  }
  if (!report.ok) {
    process.stderr.write(`baton: the config did not load, nothing changed: ${report.error}\n`);
    return 1;
  }
  process.stdout.write(`${reloadSummary(report.applied, report.restartNeeded)}\n`);
  return 0;
}

function clusterLine(c: ClusterState): string {
  const others = c.instances.filter((i) => i.id !== c.instance).map((i) => `${i.id} (${i.role})`);
  const lead = c.role === "leader" ? `leading, epoch ${c.epoch}` : `standing by; leader ${c.leader ?? "none yet"}, epoch ${c.epoch}`;
  return `  instance ${c.instance}: ${lead}; ${others.length > 0 ? `others: ${others.join(", ")}` : "no other instance seen"}`;
}

/** `baton step-down`: the leader drains, hands the lead to a standby and stands by itself. */
export async function runStepDown(dataDir: string): Promise<number> {
  const endpoint = findOpsEndpoint(dataDir);
  if (!endpoint) return notRunning(dataDir);
  const before = await fetchStatus(endpoint);
  if (before.cluster?.role !== "leader") {
    process.stderr.write(before.cluster ? "baton: this instance is not leading; nothing to hand over.\n" : "baton: this Baton runs alone (no store.url); there is no standby to hand over to.\n");
    return 1;
  }
  process.kill(endpoint.pid, "SIGUSR2");
  for (let waited = 0; waited < STEP_DOWN_WAIT_MS; waited += POLL_MS) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    const now = findOpsEndpoint(dataDir);
    const s = now && (await fetchStatus(now).catch(() => undefined));
    if (s?.cluster?.role === "standby") {
      process.stdout.write(
        `Stepped down: instance ${s.cluster.instance} stands by${s.cluster.leader && s.cluster.leader !== s.cluster.instance ? `; ${s.cluster.leader} leads (epoch ${s.cluster.epoch})` : ""}\n`,
      );
      return 0;
    }
  }
  process.stderr.write(`baton: pid ${endpoint.pid} did not stand by within ${STEP_DOWN_WAIT_MS / 1000} s (turns may still be draining); see its log.\n`);
  return 1;
}
