// `baton handoff list`: newest sessions first. Loaded alone (not with export and resume) because
// it is the command people run most, and it starts a process each time.

import type { Command } from "commander";
import { BatonError } from "../../kernel/errors.js";
import { listSessions } from "../../agents/stores/index.js";
import { formatList } from "./format.js";
import { errOut, guarded, out, storeOptions, type StoreFlags, withGlobals } from "./options.js";

export async function runList(opts: StoreFlags & { here?: boolean; dir?: string; subagents?: boolean; limit?: string; json?: boolean }, cmd: Command): Promise<void> {
  await guarded(cmd, async () => {
    const limit = Number.parseInt(opts.limit ?? "25", 10);
    if (!Number.isFinite(limit) || limit < 0) throw new BatonError(`--limit takes a number ≥ 0, not "${opts.limit}".`);
    const dir = opts.here ? process.cwd() : opts.dir;
    const { sessions, warnings } = await listSessions({ ...storeOptions(withGlobals(opts, cmd)), dir, includeSubagents: !!opts.subagents, limit });
    if (opts.json) {
      out(cmd, JSON.stringify({ sessions, warnings }, null, 2));
      return;
    }
    for (const w of warnings) errOut(cmd, `warning: ${w}`);
    out(cmd, formatList(sessions));
  });
}
