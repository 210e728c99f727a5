// `baton audit`: who did what — refusals, role decisions, approvals, admin commands, turns — read
// straight from where Baton keeps its state (the data dir's event log, or PostgreSQL with
// store.url), so it works whether the daemon runs or not. Short lines, or JSON lines with --json.
import { join } from "node:path";
import { loadConfigOrDefault, resolveDataDir } from "../config/load.js";
import { personOf } from "../core/conversation/people.js";
import { CommandError } from "../kernel/errors.js";
import { localTime } from "../kernel/log.js";
import { describeAudit, type AuditEvent, type AuditFilter } from "../threads/audit.js";
import { readJsonlAudit } from "../threads/audit-read.js";

export interface AuditFlags {
  config?: string;
  dataDir?: string;
  since?: string;
  person?: string;
  thread?: string;
  json?: boolean;
}

const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };

/** `7d`, `12h`, `30m`, `2w` ago, or a date or time (`2026-12-01`, `2026-12-01T09:00`). */
export function parseSince(text: string, now = Date.now()): number {
  const ago = /^(\d+)\s*([mhdw])$/.exec(text.trim());
  if (ago) return now - Number(ago[1]) * UNIT_MS[ago[2]];
  const at = Date.parse(text);
  if (/^\d{4}-\d{2}-\d{2}/.test(text) && !Number.isNaN(at)) return at;
  throw new CommandError(`--since ${text}: expected a span back from now (30m, 12h, 7d, 2w) or a date (2026-12-01, 2026-12-01T09:00).`);
}

export async function runAudit(flags: AuditFlags): Promise<number> {
  const loaded = loadConfigOrDefault(flags.config);
  const filter: AuditFilter = {
    since: flags.since === undefined ? undefined : parseSince(flags.since),
    thread: flags.thread,
    person: flags.person === undefined ? undefined : { key: flags.person, personOf: (userId) => personOf(loaded.config.access, userId) },
  };
  const url = loaded.config.store.url;
  const events = url
    ? await (await import("../store/postgres/audit.js")).readPostgresAudit(url, filter)
    : await readJsonlAudit(join(resolveDataDir(flags.dataDir, loaded), "threads", "events.jsonl"), filter);
  if (flags.json) {
    if (events.length > 0) process.stdout.write(`${events.map((e) => JSON.stringify(e)).join("\n")}\n`);
    return 0;
  }
  if (events.length === 0) {
    process.stdout.write(`No audit events${describeFilter(filter, flags)}.\n`);
    return 0;
  }
  process.stdout.write(`${events.map(auditLine).join("\n")}\n`);
  return 0;
}

/** `2026-12-05 09:12:03  ana turn done in th_… (claude, ~/api): 12 s, 1,200 tokens`. */
function auditLine(event: AuditEvent): string {
  return `${localTime(new Date(event.at)).slice(0, 19).replace("T", " ")}  ${describeAudit(event, event.thread)}`;
}

function describeFilter(filter: AuditFilter, flags: AuditFlags): string {
  const parts: string[] = [];
  if (flags.person !== undefined) parts.push(`of ${flags.person}`);
  if (filter.thread !== undefined) parts.push(`in ${filter.thread}`);
  if (filter.since !== undefined) parts.push(`since ${localTime(new Date(filter.since)).slice(0, 16).replace("T", " ")}`);
  return parts.length > 0 ? ` ${parts.join(" ")}` : "";
}
