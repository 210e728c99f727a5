// A limited listing reads transcripts newest-modified first and stops at the first file too old to
// be shown: the same sessions as listing everything and cutting, without reading the old files.

import { utimesSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { listSessions } from "../../../src/agents/stores/index.js";
import { makeBase, uuid, writeJsonl } from "../../fakes/stores/common.js";

const DAY_MS = 24 * 3600_000;
const START_MS = Date.UTC(2026, 10, 1);

describe("a limited listing", () => {
  it("lists what listing everything and cutting lists, across Claude Code and Codex, with filters", async () => {
    const b = makeBase("newest");
    for (let i = 0; i < 60; i++) {
      // Activity in a shuffled order; one in five transcripts ran in the other directory, some were touched later than their last record.
      const at = START_MS + (((i * 37) % 60) * DAY_MS) / 3;
      const cwd = i % 5 === 0 ? b.cwdB : b.cwdA;
      const id = uuid(100 + i);
      const file = i % 2 === 0 ? path.join(b.home, ".claude", "projects", "-p", `${id}.jsonl`) : path.join(b.home, ".codex", "sessions", "2026", "11", "20", `rollout-2026-11-20T10-00-00-${id}.jsonl`);
      const stamp = new Date(at).toISOString();
      writeJsonl(
        file,
        i % 2 === 0
          ? [{ type: "user", sessionId: id, cwd, timestamp: stamp, message: { role: "user", content: `prompt ${i}` } }]
          : [
              { timestamp: stamp, type: "session_meta", payload: { id, cwd } },
              { timestamp: stamp, type: "event_msg", payload: { type: "user_message", message: `prompt ${i}` } },
            ],
      );
      const mtime = new Date(at + (i % 7 === 0 ? 5 * DAY_MS : 0));
      utimesSync(file, mtime, mtime);
    }
    for (const filters of [{}, { dir: b.cwdB }, { runtime: "codex" }]) {
      const { sessions: all } = await listSessions({ ...b.opts, ...filters });
      for (const limit of [1, 5, 25]) {
        const { sessions } = await listSessions({ ...b.opts, ...filters, limit });
        expect(
          sessions.map((s) => s.id),
          `${JSON.stringify(filters)} limit ${limit}`,
        ).toEqual(all.slice(0, limit).map((s) => s.id));
      }
    }
  });

  it("does not read a transcript modified before the newest ones it lists", async () => {
    const b = makeBase("newest-skip");
    const dir = path.join(b.home, ".claude", "projects", "-p");
    for (let i = 0; i < 3; i++) {
      const id = uuid(200 + i);
      const at = new Date(START_MS + (10 + i) * DAY_MS);
      writeJsonl(path.join(dir, `${id}.jsonl`), [{ type: "user", sessionId: id, cwd: b.cwdA, timestamp: at.toISOString(), message: { role: "user", content: "hi" } }]);
      utimesSync(path.join(dir, `${id}.jsonl`), at, at);
    }
    // An old transcript whose name is not a session id: reading it would warn that it was skipped.
    const old = path.join(dir, "not-a-session-id.jsonl");
    writeJsonl(old, [{ type: "user", cwd: b.cwdA, timestamp: new Date(START_MS).toISOString(), message: { role: "user", content: "old" } }]);
    utimesSync(old, new Date(START_MS), new Date(START_MS));
    const limited = await listSessions({ ...b.opts, runtime: "claude", limit: 2 });
    expect(limited.sessions.map((s) => s.id)).toEqual([uuid(202), uuid(201)]);
    expect(limited.warnings).toEqual([]);
    const all = await listSessions({ ...b.opts, runtime: "claude" });
    expect(all.warnings.join("\n")).toContain("not-a-session-id.jsonl");
  });
});
