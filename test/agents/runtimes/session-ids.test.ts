// Session ids read from files never become command-line options: every runtime's ids are checked
// against its format before they reach a resume command, a listing or /handover.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { findSession, listSessions, type StoredSession } from "../../../src/agents/stores/index.js";
import { listRuntimes, nativeResumeCommand } from "../../../src/agents/runtimes/index.js";
import { isValidSessionId } from "../../../src/agents/runtimes/session-ids.js";
import { makeEvent } from "../../../src/threads/events.js";
import { startTestBaton, type TestBaton } from "../../support/harness.js";
import { TestPlatform } from "../../support/test-platform.js";
import { makeBase, T_MAIN, writeJsonl } from "../../fakes/stores/common.js";

const EVIL = "--dangerously-skip-permissions";
const roots: string[] = [];
let baton: TestBaton | undefined;
afterEach(async () => {
  await baton?.stop({ cleanup: true });
  baton = undefined;
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

function stored(runtime: string, id: string, more: Partial<StoredSession> = {}): StoredSession {
  return { id, runtime, title: "t", cwd: "/w", lastActivity: T_MAIN, file: "/f", counts: { prompts: 1, replies: 0, tools: 0 }, ...more };
}

describe("session ids from files", () => {
  it("a Claude Code transcript whose sessionId is an option is not listed, and cannot be found", async () => {
    const b = makeBase("evil");
    roots.push(b.root);
    const dir = path.join(b.home, ".claude", "projects", "-work-alpha");
    const line = { type: "user", sessionId: EVIL, cwd: b.cwdA, timestamp: T_MAIN, message: { role: "user", content: "hi" } };
    writeJsonl(path.join(dir, `${EVIL}.jsonl`), [line]);
    writeJsonl(path.join(dir, "0192f4a1-7c3e-7a51-9b2d-4f6e8a1c2b3d.jsonl"), [{ ...line, sessionId: "0192f4a1-7c3e-7a51-9b2d-4f6e8a1c2b3d" }]);
    const { sessions, warnings } = await listSessions({ ...b.opts, runtime: "claude" });
    expect(sessions.map((s) => s.id)).toEqual(["0192f4a1-7c3e-7a51-9b2d-4f6e8a1c2b3d"]);
    expect(warnings.join("\n")).toMatch(/not a valid Claude Code session id/);
    await expect(findSession(EVIL, { ...b.opts, runtime: "claude" })).rejects.toThrow(/No session/);
  });

  it("no runtime's resume command takes an id or reference that reads as an option", () => {
    for (const rt of listRuntimes().filter((r) => r.terminal.resumeArgs && !r.terminal.notStartable)) {
      expect(() => nativeResumeCommand(stored(rt.id, EVIL)), rt.id).toThrow(/not a valid/);
      expect(() => nativeResumeCommand(stored(rt.id, "0192f4a1-7c3e-7a51-9b2d-4f6e8a1c2b3d", { native: { ok: true, ref: "-rf" } })), rt.id).toThrow(/not a valid/);
    }
  });

  it("accepts each runtime's real id shapes", () => {
    const uuid = "0192f4a1-7c3e-7a51-9b2d-4f6e8a1c2b3d";
    for (const runtime of ["claude", "codex", "gemini", "qwen", "copilot", "demo", "droid", "cursor", "pi"]) expect(isValidSessionId(runtime, uuid), runtime).toBe(true);
    expect(isValidSessionId("opencode", "ses_1aaaa0000001")).toBe(true);
    expect(isValidSessionId("cline", "1763632800000_ab12c")).toBe(true);
    expect(isValidSessionId("hermes", "a20261120_100000")).toBe(true);
    expect(isValidSessionId("claude", "agent-0192f4a1", { subagent: true })).toBe(true);
    for (const bad of [EVIL, "-p", "a b", "x;rm -rf /", "$(id)", "", "a\nb"])
      for (const runtime of ["claude", "opencode", "cline"]) expect(isValidSessionId(runtime, bad), `${runtime} ${bad}`).toBe(false);
    expect(isValidSessionId("claude", "not-a-uuid")).toBe(false);
  });

  it("/handover never prints an id from the thread log that is not a valid id", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), "baton-test-"));
    mkdirSync(path.join(dataDir, "threads"));
    const events = [
      makeEvent("th_evil", { type: "thread_created", workspace: process.cwd(), agent: "claude", session: EVIL }),
      makeEvent("th_evil", { type: "route_attached", route: "test:evil" }),
      makeEvent("th_demo", { type: "thread_created", workspace: process.cwd(), agent: "demo", session: "-x; rm -rf ~" }),
      makeEvent("th_demo", { type: "route_attached", route: "test:demo" }),
    ];
    writeFileSync(path.join(dataDir, "threads", "events.jsonl"), `${events.map((e) => JSON.stringify(e)).join("\n")}\n`);
    const platform = new TestPlatform();
    baton = await startTestBaton({ adapters: [platform], dataDir });
    for (const route of ["test:evil", "test:demo"]) {
      await platform.say(route, "/handover");
      const reply = await platform.waitFor(route, /not a valid/);
      expect(reply.text).not.toMatch(/--resume --dangerously|--resume -x/);
      expect(reply.text).not.toContain("```");
      expect(reply.text).not.toMatch(/`baton handoff resume -/);
    }
  });
});
