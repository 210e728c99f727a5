// `baton handoff list | export | resume` through the real command definitions.

import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { runHandoff } from "./cli-helper.js";
import { claudeFixture, copilotFixture } from "../../fakes/stores/jsonl-stores.js";
import { makeBase, T_MAIN, uuid, writeJsonl } from "../../fakes/stores/common.js";

describe("handoff list", () => {
  it("prints JSON newest first, and short lines for people", async () => {
    const f = claudeFixture();
    const json = await runHandoff(f.opts.home!, ["list", "--json"]);
    expect(json.code).toBe(0);
    const parsed = JSON.parse(json.out) as { sessions: Array<{ id: string; runtime: string }>; warnings: string[] };
    expect(parsed.sessions.map((s) => s.id)).toEqual([f.main.id, f.other.id]);
    expect(parsed.warnings).toEqual([]);
    const human = await runHandoff(f.opts.home!, ["list", "--harness", "claude"]);
    expect(human.out).toContain(f.main.id.slice(0, 8));
    expect(human.out).toContain("Login bug hunt");
  });

  it("reports an unreadable store as a warning and still lists the others", async () => {
    const f = claudeFixture();
    const broken = path.join(f.root, "not-a-database.db");
    writeFileSync(broken, "this is not SQLite at all, just text that is long enough to have a header....");
    const res = await runHandoff(f.opts.home!, ["list", "--json", "--store-dir", `hermes=${broken}`]);
    const parsed = JSON.parse(res.out) as { sessions: Array<{ id: string }>; warnings: string[] };
    expect(parsed.sessions.map((s) => s.id)).toContain(f.main.id);
    expect(parsed.warnings.join("\n")).toMatch(/Hermes Agent/);
    const human = await runHandoff(f.opts.home!, ["list", "--store-dir", `hermes=${broken}`]);
    expect(human.err).toMatch(/warning: Hermes Agent/);
  });

  it("reads a store from --store-dir, and a --*-dir flag wins over --store-dir", async () => {
    const f = claudeFixture();
    const projects = path.join(f.opts.home!, ".claude", "projects");
    const elsewhere = path.join(f.root, "elsewhere-home");
    mkdirSync(elsewhere);
    const viaStoreDir = await runHandoff(elsewhere, ["list", "--json", "--harness", "claude", "--store-dir", `claude=${projects}`]);
    expect(JSON.parse(viaStoreDir.out).sessions).toHaveLength(2);
    const both = await runHandoff(elsewhere, ["list", "--json", "--harness", "claude", "--store-dir", `claude=${f.root}/nowhere`, "--claude-projects-dir", projects]);
    expect(JSON.parse(both.out).sessions).toHaveLength(2);
  });

  it("filters with --dir and shows subagents with --subagents", async () => {
    const f = claudeFixture();
    const inB = JSON.parse((await runHandoff(f.opts.home!, ["list", "--json", "--dir", f.other.cwd])).out);
    expect(inB.sessions.map((s: { id: string }) => s.id)).toEqual([f.other.id]);
    const all = JSON.parse((await runHandoff(f.opts.home!, ["list", "--json", "--subagents", "--limit", "0"])).out);
    expect(all.sessions.map((s: { id: string }) => s.id)).toContain(f.subagent!.id);
  });
});

describe("handoff export", () => {
  it("--print of a Claude transcript shows none of the five shapes the second hardening round found", async () => {
    // Built by concatenation so this file itself holds no token-shaped literal.
    const secrets = {
      redis: "Hunter2" + "redisPw",
      curl: "Hunter2" + "curlPw",
      discord: "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-" + "abcdEFGHijklMNOPqrstUVWXyz0123456789ab",
      sendgrid: "SG." + "AbCdEfGhIjKlMnOpQrStUv" + "." + "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-AbCdE",
      sshpass: "Hunter2" + "sshpassPw",
    };
    const prompt = [
      `REDIS_URL=redis://:${secrets.redis}@cache.internal:6379/0`,
      `curl -u 'admin:${secrets.curl}' https://api.example.com/health`,
      `notify https://discord.com/api/webhooks/1234567890123456789/${secrets.discord}`,
      `SENDGRID_API_KEY ${secrets.sendgrid}`,
      `SSHPASS=${secrets.sshpass} sshpass -e ssh deploy@host`,
    ].join("\n");
    const b = makeBase("claude-shapes");
    const id = uuid(5);
    const line = (type: string, message: unknown) => ({ type, sessionId: id, cwd: b.cwdA, gitBranch: "main", timestamp: T_MAIN, uuid: `${type}-${JSON.stringify(message).length}`, message });
    writeJsonl(path.join(b.home, ".claude", "projects", b.cwdA.replace(/[^A-Za-z0-9]/g, "-"), `${id}.jsonl`), [
      line("user", { role: "user", content: prompt }),
      line("assistant", {
        role: "assistant",
        content: [
          { type: "tool_use", id: "t1", name: "Bash", input: { command: `curl -u 'admin:${secrets.curl}' https://api.example.com/health` } },
          { type: "text", text: "The health check answered." },
        ],
      }),
    ]);
    const printed = await runHandoff(b.home, ["export", id, "--print"]);
    expect(printed.code, printed.err).toBe(0);
    expect(printed.out).toContain("The health check answered.");
    for (const [name, secret] of Object.entries(secrets)) expect(printed.out, name).not.toContain(secret);
    // The lines are in the brief, only their secrets are not.
    for (const kept of ["cache.internal:6379", "api.example.com/health", "SENDGRID_API_KEY", "sshpass -e ssh deploy@host"]) expect(printed.out).toContain(kept);
  });

  it("prints a brief with --print and writes a 0600 file otherwise", async () => {
    const f = claudeFixture();
    const printed = await runHandoff(f.opts.home!, ["export", f.main.id.slice(0, 8), "--print"]);
    expect(printed.out).toContain("## Where it stood");
    const outDir = path.join(f.root, "briefs");
    const res = await runHandoff(f.opts.home!, ["export", f.main.id, "--output-dir", outDir, "--json"]);
    const { path: file, from } = JSON.parse(res.out) as { path: string; from: string };
    expect(from).toBe("session_store");
    expect(path.dirname(file)).toBe(outDir);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, "utf8")).toContain("Fixed the login check.");
  });

  it("writes to ~/.baton/handoffs by default", async () => {
    const f = claudeFixture();
    const res = await runHandoff(f.opts.home!, ["export", f.main.id, "--json"]);
    expect(JSON.parse(res.out).path.startsWith(path.join(f.opts.home!, ".baton", "handoffs"))).toBe(true);
  });

  it("lists the candidates of an ambiguous prefix", async () => {
    const f = claudeFixture();
    const res = await runHandoff(f.opts.home!, ["export", f.main.id.slice(0, 6), "--print"]);
    expect(res.code).toBe(1);
    expect(res.err).toContain("matches 2 sessions");
    expect(res.err).toContain(f.other.id);
  });
});

describe("handoff resume --print", () => {
  it("shows the native reopen as JSON", async () => {
    const f = claudeFixture();
    const res = await runHandoff(f.opts.home!, ["resume", f.main.id.slice(0, 8), "--print", "--json"]);
    const plan = JSON.parse(res.out);
    expect(plan).toMatchObject({ mode: "native", target: "claude", executable: "claude", args: ["--resume", f.main.id], env: {}, dir: f.main.cwd, brief_path: null });
    expect(typeof plan.reason).toBe("string");
  });

  it("plans continuation in another runtime without writing the brief; Gemini may read the brief's directory", async () => {
    const f = claudeFixture();
    const outDir = path.join(f.root, "not-written");
    const res = await runHandoff(f.opts.home!, ["resume", f.main.id, "--agent", "gemini", "--print", "--json", "--output-dir", outDir]);
    const plan = JSON.parse(res.out);
    expect(plan.mode).toBe("brief");
    expect(plan.executable).toBe("gemini");
    // Gemini's read_file refuses paths outside the workspace unless the directory is included.
    expect(plan.args.slice(0, 5)).toEqual(["--include-directories", outDir, "--approval-mode", "default", "--prompt-interactive"]);
    expect(plan.args[5]).toContain(plan.brief_path);
    expect(plan.args[5]).toMatch(/\[baton-handoff from=claude session=[0-9a-f-]+\]$/);
    expect(existsSync(outDir)).toBe(false);
  });

  it("shows the environment variables removed for Copilot", async () => {
    const f = copilotFixture();
    const plan = JSON.parse((await runHandoff(f.opts.home!, ["resume", f.main.id, "--print", "--json"])).out);
    expect(plan.args).toEqual([`--resume=${f.main.id}`]);
    expect(plan.env).toEqual({ COPILOT_ALLOW_ALL: null, COPILOT_PLAN_THEN_AUTOPILOT: null });
    const human = await runHandoff(f.opts.home!, ["resume", f.main.id, "--print"]);
    expect(human.out).toContain("env -u COPILOT_ALLOW_ALL -u COPILOT_PLAN_THEN_AUTOPILOT copilot");
  });

  it("stops when the recorded directory is gone, unless --cwd names one", async () => {
    const f = claudeFixture();
    const { rmSync } = await import("node:fs");
    rmSync(f.main.cwd, { recursive: true });
    const res = await runHandoff(f.opts.home!, ["resume", f.main.id, "--print"]);
    expect(res.code).toBe(1);
    expect(res.err).toMatch(/no longer exists/);
    const withCwd = JSON.parse((await runHandoff(f.opts.home!, ["resume", f.main.id, "--print", "--json", "--cwd", f.other.cwd])).out);
    expect(withCwd.dir).toBe(f.other.cwd);
  });

  it("refuses to launch without a terminal to ask in, unless --yes", async () => {
    const f = claudeFixture();
    const res = await runHandoff(f.opts.home!, ["resume", f.main.id, "--launch", "tmux"]);
    expect(res.code).toBe(1);
    expect(res.err).toMatch(/--yes/);
  });
});
