// `baton status` and `baton reload`: ask the daemon running on this data dir, through the ops
// listener it published in <data_dir>/ops.json. Reload is a SIGHUP to that daemon; its answer is
// read back from /status.
import { findOpsEndpoint } from "../ops/server.js";
import type { DaemonSnapshot, ReloadReport } from "../ops/snapshot.js";
import { reloadSummary } from "./reload.js";

const RELOAD_WAIT_MS = 10_000;
const POLL_MS = 100;

type Status = DaemonSnapshot & { counts: Record<string, number> };

function notRunning(dataDir: string): number {
  process.stderr.write(`baton: no Baton is running with the data dir ${dataDir} (or its ops listener is off: ops.listen).\n`);
  return 3; // "not running", as `systemctl status` says it
}

async function fetchStatus(url: string): Promise<Status> {
  const response = await fetch(`${url}/status`, { signal: AbortSignal.timeout(5_000) });
  if (!response.ok) throw new Error(`the daemon answered ${response.status}`);
  return (await response.json()) as Status;
}

export async function runStatus(dataDir: string, json: boolean): Promise<number> {
  const endpoint = findOpsEndpoint(dataDir);
  if (!endpoint) return notRunning(dataDir);
  const s = await fetchStatus(endpoint.url);
  if (json) {
    process.stdout.write(JSON.stringify(s, null, 2) + "\n");
    return 0;
  }
  const uptime = Math.round((Date.now() - Date.parse(s.startedAt)) / 1000);
  const lines = [
    `Baton ${s.version}, pid ${s.pid}: ${s.state}, up ${uptime} s (ops ${endpoint.url})`,
    ...s.platforms.map((p) => `  ${p.connected ? "✓" : "✗"} ${p.name} (${p.kind})${p.detail ? `: ${p.detail}` : ""}`),
    `  threads open ${s.openThreads}; turns running ${s.turnsRunning}; agent hosts ${s.liveHosts}/${s.maxLiveHosts}${s.spareHost ? ` + a spare (${s.spareHost.agent}, pid ${s.spareHost.pid ?? "?"}, ${s.spareHost.state})` : ""}; queued prompts ${s.queuedPrompts}; approvals pending ${s.pendingApprovals}`,
    `  messages in ${s.counts.messages_in}, out ${s.counts.messages_out}; turns ${s.counts.turns}; platform errors ${s.counts.platform_errors}; pickups ${s.counts.pickups_claimed} claimed, ${s.counts.pickups_refused} refused`,
  ];
  if (s.lastReload) lines.push(`  last reload ${s.lastReload.at}: ${s.lastReload.ok ? reloadSummary(s.lastReload.applied, s.lastReload.restartNeeded) : `failed: ${s.lastReload.error}`}`);
  process.stdout.write(lines.join("\n") + "\n");
  return 0;
}

export async function runReload(dataDir: string): Promise<number> {
  const endpoint = findOpsEndpoint(dataDir);
  if (!endpoint) return notRunning(dataDir);
  const before = (await fetchStatus(endpoint.url)).lastReload?.at;
  process.kill(endpoint.pid, "SIGHUP");
  let report: ReloadReport | undefined;
  for (let waited = 0; waited < RELOAD_WAIT_MS && !report; waited += POLL_MS) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    const latest = (await fetchStatus(endpoint.url)).lastReload;
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
