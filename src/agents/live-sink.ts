// Where a thread host's process reports: its updates go to the live turn (replayed history does
// not), a permission request only from the live turn of its own session, and its exit frees its
// place. The spare's process reports here once a host took it over.
import type { ThreadRecord } from "../threads/registry.js";
import type { HostSink } from "./host-types.js";
import type { Logger } from "../kernel/log.js";
import type { Live } from "./supervisor-types.js";

export interface LiveSinkDeps {
  log: Logger;
  /** This host is still the thread's. */
  isCurrent(): boolean;
  forget(): void;
  /** The process is gone: its MCP token dies with it, and its slot is free. */
  gone(): void;
}

export function liveSink(live: Live, thread: ThreadRecord, deps: LiveSinkDeps): HostSink {
  return {
    onUpdate: (update, replay) => {
      if (!replay) live.turn?.update(update);
    },
    requestPermission: (request) => {
      // Only the live turn of this host's own session may ask; anything else is answered "cancelled".
      if (live.turn && request.sessionId === live.host.sessionId) return live.turn.requestPermission(request);
      deps.log.warn({ thread: thread.id, session: request.sessionId }, "permission request outside a live turn of this session; cancelled");
      return Promise.resolve({ outcome: { outcome: "cancelled" } });
    },
    onExit: ({ code, signal, stderr, expected }) => {
      // A host that exits during a turn stays in place for the turn to end.
      if (deps.isCurrent() && !live.turn) deps.forget();
      deps.gone();
      if (!expected) deps.log.warn({ thread: thread.id, code, signal, stderr }, "agent process exited");
    },
  };
}
