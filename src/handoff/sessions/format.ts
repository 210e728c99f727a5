// Human output of `handoff list`: one short line per session.

import type { StoredSession } from "../../agents/stores/types.js";
import { shortIdLength } from "../../agents/runtimes/session-ids.js";

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

function age(iso: string, now = Date.now()): string {
  const ms = Math.max(0, now - Date.parse(iso));
  if (ms < HOUR_MS) return `${Math.round(ms / MINUTE_MS)}m`;
  if (ms < DAY_MS) return `${Math.round(ms / HOUR_MS)}h`;
  return `${Math.round(ms / DAY_MS)}d`;
}

export function formatList(sessions: StoredSession[], now = Date.now()): string {
  if (sessions.length === 0) return "No sessions found.";
  const width = shortIdLength(sessions.map((s) => s.id));
  return sessions
    .map((s) => {
      const sub = s.subagentOf ? ` (subagent of ${s.subagentOf.slice(0, 8)})` : "";
      return `${s.id.slice(0, width).padEnd(width)}  ${s.runtime.padEnd(8)} ${age(s.lastActivity, now).padStart(4)}  ${s.title}${sub}${s.cwd ? `  — ${s.cwd}` : ""}`;
    })
    .join("\n");
}
