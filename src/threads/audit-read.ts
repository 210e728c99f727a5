// `baton audit` on the JSONL event log: its audit events, read while the daemon may be writing.
import { existsSync } from "node:fs";
import { parseThreadEvent } from "./events.js";
import { DEFAULT_READ_CHUNK_BYTES, forEachLine } from "./jsonl-file.js";
import { matchesAudit, type AuditEvent, type AuditFilter } from "./audit.js";

/**
 * The audit events of a JSONL event log, oldest first, read without changing the file: the daemon
 * may be appending to it (a line it is still writing is skipped) or compacting it (the reader
 * keeps the file it opened).
 */
export async function readJsonlAudit(path: string, filter: AuditFilter): Promise<AuditEvent[]> {
  const out: AuditEvent[] = [];
  if (!existsSync(path)) return out;
  await forEachLine(path, DEFAULT_READ_CHUNK_BYTES, (line) => {
    // Cheap test first: most lines are thread events.
    if (!line.includes('"type":"audit"')) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return;
    }
    const read = parseThreadEvent(value);
    if ("event" in read && read.event.type === "audit" && matchesAudit(read.event, filter)) out.push(read.event);
  });
  return out;
}
