// Resume planning: the refusals the handoff CLI makes (Hermes, DeepSeek Harness, fx, demo) and
// the cases that fall back from a native reopen to a brief.

import { existsSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { findSession, type StoreOptions } from "../../../src/agents/stores/index.js";
import { RuntimeRefusal } from "../../../src/agents/runtimes/index.js";
import { planResume, type ResumeRequest } from "../../../src/handoff/sessions/plan.js";
import { claudeFixture, cursorFixture, demoFixture, openclawFixture } from "../../fakes/stores/jsonl-stores.js";
import { clineFixture, dshFixture, fxFixture, grokFixture, hermesFixture } from "../../fakes/stores/other-stores.js";
import { runHandoff } from "./cli-helper.js";

const checks = { dirExists: (d: string) => existsSync(d) && statSync(d).isDirectory(), fileExists: existsSync };

async function plan(opts: StoreOptions & { runtime: string }, id: string, req: Partial<ResumeRequest> = {}) {
  const session = await findSession(id, opts);
  return planResume(session, { outputDir: "/tmp/baton-plan-briefs", ...req }, checks);
}

describe("Hermes Agent", () => {
  it("reopens the newest session of a compression chain", async () => {
    const f = await hermesFixture();
    const compressed = await plan({ ...f.opts, runtime: "hermes" }, "d20261119_080000");
    expect(compressed.mode).toBe("native");
    expect(compressed.args).toEqual(["--resume", f.main.id]);
    expect(compressed.env).toEqual({ HERMES_YOLO_MODE: null });
  });

  it("cannot continue from a brief: --new and --agent hermes are refused", async () => {
    const f = await hermesFixture();
    await expect(plan({ ...f.opts, runtime: "hermes" }, f.main.id, { new: true })).rejects.toThrow(/one-shot runs/);
    const c = claudeFixture();
    await expect(plan({ ...c.opts, runtime: "claude" }, c.main.id, { agent: "hermes" })).rejects.toThrow(/--agent hermes is refused/);
  });

  it("a delegate subagent continues in another runtime only", async () => {
    const f = await hermesFixture();
    await expect(plan({ ...f.opts, runtime: "hermes" }, f.subagent!.id)).rejects.toBeInstanceOf(RuntimeRefusal);
    expect((await plan({ ...f.opts, runtime: "hermes" }, f.subagent!.id, { agent: "codex" })).mode).toBe("brief");
  });
});

describe("DeepSeek Harness", () => {
  it("is never started: its sessions need --agent, and --agent dsh is refused", async () => {
    const f = dshFixture();
    await expect(plan({ ...f.opts, runtime: "dsh" }, f.main.id)).rejects.toThrow(/Baton cannot start DeepSeek Harness/);
    expect((await plan({ ...f.opts, runtime: "dsh" }, f.main.id, { agent: "claude" })).mode).toBe("brief");
    const c = claudeFixture();
    await expect(plan({ ...c.opts, runtime: "claude" }, c.main.id, { agent: "dsh" })).rejects.toThrow(/--agent dsh is refused/);
  });
});

describe("fx", () => {
  it("reopens natively in the session's workspace", async () => {
    const f = fxFixture();
    const p = await plan({ ...f.opts, runtime: "fx" }, f.main.id);
    expect(p).toMatchObject({ mode: "native", executable: "fx", args: ["--resume", f.main.id], dir: f.main.cwd, env: {} });
  });

  it("refuses --new, another --cwd, --agent fx, and sessions whose files are gone", async () => {
    const f = fxFixture();
    const opts = { ...f.opts, runtime: "fx" };
    await expect(plan(opts, f.main.id, { new: true })).rejects.toThrow(/fx cannot start a new session/);
    await expect(plan(opts, f.main.id, { cwd: f.other.cwd })).rejects.toThrow(/only in its own workspace/);
    const c = claudeFixture();
    await expect(plan({ ...c.opts, runtime: "claude" }, c.main.id, { agent: "fx" })).rejects.toThrow(/--agent fx is refused/);
    const session = await findSession(f.main.id, opts);
    rmSync(session.file);
    expect(() => planResume(session, { outputDir: "/tmp/x" }, checks)).toThrow(/files are gone/);
    expect(planResume(session, { outputDir: "/tmp/x", agent: "codex" }, checks).mode).toBe("brief");
  });
});

describe("fallbacks to a brief", () => {
  it("Grok Build and Cursor continue from a brief when --cwd names another directory", async () => {
    const g = grokFixture();
    const native = await plan({ ...g.opts, runtime: "grok" }, g.main.id);
    expect(native.args).toEqual(["--permission-mode", "default", "--resume", g.main.id]);
    const moved = await plan({ ...g.opts, runtime: "grok" }, g.main.id, { cwd: g.other.cwd });
    expect(moved.mode).toBe("brief");
    expect(moved.args.slice(0, 2)).toEqual(["--permission-mode", "default"]);
    const c = cursorFixture();
    expect((await plan({ ...c.opts, runtime: "cursor" }, c.main.id, { cwd: c.other.cwd })).mode).toBe("brief");
    // A transcript cursor-agent did not start has no chat store: brief.
    expect((await plan({ ...c.opts, runtime: "cursor" }, c.other.id)).mode).toBe("brief");
  });

  it("subagents and Cline's older task history continue from a brief", async () => {
    const c = claudeFixture();
    const sub = await plan({ ...c.opts, runtime: "claude" }, c.subagent!.id);
    expect(sub.mode).toBe("brief");
    expect(sub.executable).toBe("claude");
    const cl = clineFixture();
    for (const id of ["1762000000000", cl.other.id]) {
      const old = await plan({ ...cl.opts, runtime: "cline" }, id, { cwd: cl.other.cwd });
      expect(old.mode).toBe("brief");
      expect(old.args.slice(0, 3)).toEqual(["--tui", "--auto-approve", "false"]);
    }
  });

  it("OpenClaw reopens only agent-qualified keys and never passes --deliver", async () => {
    const f = openclawFixture();
    const other = await plan({ ...f.opts, runtime: "openclaw" }, f.other.id);
    expect(other.mode).toBe("brief");
    expect(other.args[0]).toBe("tui");
    expect(other.args[2]).toMatch(/^baton-handoff-[0-9a-f]{8}$/);
    expect(other.args).not.toContain("--deliver");
  });

  it("--new starts a fresh session from a brief even when a reopen is possible", async () => {
    const c = claudeFixture();
    const p = await plan({ ...c.opts, runtime: "claude" }, c.main.id, { new: true });
    expect(p.mode).toBe("brief");
    expect(p.target).toBe("claude");
  });

  it("goose gets GOOSE_MODE=approve and no runtime gets an approvals-off flag", async () => {
    const c = claudeFixture();
    const goose = await plan({ ...c.opts, runtime: "claude" }, c.main.id, { agent: "goose" });
    expect(goose.env).toEqual({ GOOSE_MODE: "approve" });
    for (const agent of [
      "claude",
      "codex",
      "opencode",
      "cline",
      "pi",
      "droid",
      "copilot",
      "grok",
      "openclaw",
      "cursor",
      "omp",
      "gemini",
      "qwen",
      "kiro",
      "agy",
      "devin",
      "muse",
      "openhands",
      "goose",
    ]) {
      const p = await plan({ ...c.opts, runtime: "claude" }, c.main.id, { agent, new: true });
      expect(p.args.join(" "), agent).not.toMatch(/--yolo|--force|--allow-all|dangerously|--auto-approve true|always-approve/);
    }
  });
});

describe("runtimes Baton does not start", () => {
  it("refuses --agent kimi and --agent omo, naming why", async () => {
    const c = claudeFixture();
    await expect(plan({ ...c.opts, runtime: "claude" }, c.main.id, { agent: "kimi" })).rejects.toThrow(/non-interactively/);
    await expect(plan({ ...c.opts, runtime: "claude" }, c.main.id, { agent: "omo" })).rejects.toThrow(/moves Pi's agent directory/);
    await expect(plan({ ...c.opts, runtime: "claude" }, c.main.id, { agent: "nonesuch" })).rejects.toThrow(/Unknown runtime/);
  });

  it("accepts the seed's runtime names as aliases", async () => {
    const c = claudeFixture();
    expect((await findSession(c.main.id, { ...c.opts, runtime: "claude_code" })).runtime).toBe("claude");
  });
});

describe("demo agent", () => {
  it("is read but not started: resume needs --agent", async () => {
    const f = demoFixture();
    const refused = await runHandoff(f.opts.home!, ["resume", f.main.id, "--print"]);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/demo agent/);
    const moved = JSON.parse((await runHandoff(f.opts.home!, ["resume", f.main.id, "--agent", "codex", "--print", "--json"])).out);
    expect(moved).toMatchObject({ mode: "brief", executable: "codex" });
    expect(path.basename(moved.brief_path)).toMatch(/^demo-/);
  });
});
