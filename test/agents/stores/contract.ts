// The contract every store reader meets, run against a fixture store written in its runtime's
// format: list (newest first, titles, directories, subagents, torn lines), find by id and prefix,
// export a brief, and plan a resume, natively and in another runtime.

import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it, beforeAll } from "vitest";
import { findSession, listSessions, SessionLookupError } from "../../../src/agents/stores/index.js";
import { writeBrief } from "../../../src/handoff/brief/index.js";
import { planResume } from "../../../src/handoff/sessions/plan.js";
import { PLANTED_SECRET, type StoreFixture } from "../../fakes/stores/common.js";

const checks = { dirExists: (d: string) => existsSync(d) && statSync(d).isDirectory(), fileExists: existsSync };

export function runStoreReaderContract(opts: { create: () => StoreFixture | Promise<StoreFixture> }): void {
  let f: StoreFixture;
  beforeAll(async () => {
    f = await opts.create();
  });

  describe("list", () => {
    it("lists the top-level sessions newest first, with titles and directories", async () => {
      const { sessions, warnings } = await listSessions({ ...f.opts, runtime: f.runtime });
      const ids = sessions.map((s) => s.id);
      expect(ids).toContain(f.main.id);
      expect(ids).toContain(f.other.id);
      expect(ids.indexOf(f.main.id)).toBeLessThan(ids.indexOf(f.other.id));
      expect(sessions[0].id).toBe(f.main.id);
      const main = sessions.find((s) => s.id === f.main.id)!;
      expect(main.runtime).toBe(f.runtime);
      expect(main.title).toBe(f.main.title);
      expect(main.cwd).toBe(f.main.cwd);
      expect(Number.isNaN(Date.parse(main.lastActivity))).toBe(false);
      const other = sessions.find((s) => s.id === f.other.id)!;
      expect(other.title).toBe(f.other.title);
      expect(other.cwd).toBe(f.other.cwd);
      expect(warnings.filter((w) => !/unreadable line|no sessions/.test(w))).toEqual([]);
    });

    it("hides subagents unless asked, and links them to their parent", async () => {
      const hidden = await listSessions({ ...f.opts, runtime: f.runtime });
      expect(hidden.sessions.every((s) => !s.subagentOf)).toBe(true);
      if (!f.subagent) return;
      expect(hidden.sessions.map((s) => s.id)).not.toContain(f.subagent.id);
      const shown = await listSessions({ ...f.opts, runtime: f.runtime, includeSubagents: true });
      const sub = shown.sessions.find((s) => s.id === f.subagent!.id);
      expect(sub?.subagentOf).toBe(f.subagent.parent);
    });

    it("filters by directory and limits the count", async () => {
      const inA = await listSessions({ ...f.opts, runtime: f.runtime, dir: f.main.cwd });
      expect(inA.sessions.map((s) => s.id)).toContain(f.main.id);
      expect(inA.sessions.map((s) => s.id)).not.toContain(f.other.id);
      const one = await listSessions({ ...f.opts, runtime: f.runtime, limit: 1 });
      expect(one.sessions.map((s) => s.id)).toEqual([f.main.id]);
    });
  });

  describe("find", () => {
    it("finds a session by its full id and by an 8-character prefix", async () => {
      expect((await findSession(f.main.id, f.opts)).id).toBe(f.main.id);
      expect((await findSession(f.main.id.slice(0, 8), { ...f.opts, runtime: f.runtime })).id).toBe(f.main.id);
    });

    it("refuses prefixes under 6 characters and reports unknown ids", async () => {
      await expect(findSession(f.main.id.slice(0, 5), f.opts)).rejects.toMatchObject({ reason: "too_short" });
      await expect(findSession("zzzzzzzz-no-such-session", f.opts)).rejects.toBeInstanceOf(SessionLookupError);
    });
  });

  describe("export", () => {
    it("writes a private brief with the session's first request and no planted secret", async () => {
      const outputDir = path.join(f.root, "briefs");
      const { path: file, session } = await writeBrief({ ...f.opts, runtime: f.runtime, sessionId: f.main.id, outputDir });
      expect(session.id).toBe(f.main.id);
      const text = readFileSync(file, "utf8");
      for (const heading of ["## Source session", "## Where it stood", "## Files changed", "## Recent commands", "## Recent activity", "## Before continuing"]) {
        expect(text).toContain(heading);
      }
      expect(text).toContain("Fix the login bug");
      expect(text).not.toContain(PLANTED_SECRET);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(statSync(outputDir).mode & 0o777).toBe(0o700);
    });
  });

  describe("resume plan", () => {
    it("reopens natively where the runtime's CLI can, else continues from a brief", async () => {
      const session = await findSession(f.main.id, { ...f.opts, runtime: f.runtime });
      const outputDir = path.join(f.root, "plan-briefs");
      if (f.nativeArgs) {
        const plan = planResume(session, { outputDir }, checks);
        expect(plan.mode).toBe("native");
        expect(plan.args).toEqual(f.nativeArgs);
        expect(plan.dir).toBe(f.main.cwd);
        expect(plan.brief_path).toBeNull();
      }
      const target = f.runtime === "claude" ? "codex" : "claude";
      const moved = planResume(session, { outputDir, agent: target }, checks);
      expect(moved.mode).toBe("brief");
      expect(moved.target).toBe(target);
      expect(moved.brief_path?.startsWith(outputDir)).toBe(true);
      const prompt = moved.args[moved.args.length - 1];
      expect(prompt).toContain(moved.brief_path);
      expect(prompt.endsWith(`[baton-handoff from=${f.runtime} session=${f.main.id}]`)).toBe(true);
      // The brief's content never goes on a command line.
      expect(prompt).not.toContain("Fix the login bug");
    });
  });
}
