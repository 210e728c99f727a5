import { spawn, spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, onTestFinished } from "vitest";
import { FakeBotApi } from "../fakes/telegram/fake-bot-api.js";
import { FakeSlack } from "../fakes/slack/index.js";
import { exitOf } from "../support/process.js";

const BATON = join(process.cwd(), "bin/baton.js");

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "baton-cli-"));
  made.push(dir);
  return dir;
}

describe("the baton command line", () => {
  it("--version and --help", () => {
    const version = spawnSync(process.execPath, [BATON, "--version"], { encoding: "utf8" });
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const help = spawnSync(process.execPath, [BATON, "--help"], { encoding: "utf8" });
    for (const cmd of ["start", "doctor", "config", "handoff", "demo-agent"]) expect(help.stdout).toContain(cmd);
  });

  it("`baton handoff list | head -1`: a reader that goes away ends the listing quietly", async () => {
    const home = tempDir();
    const sessions = join(home, ".baton", "demo-agent", "sessions");
    mkdirSync(sessions, { recursive: true });
    // Enough sessions that the listing is far larger than a pipe's buffer.
    for (let i = 0; i < 1500; i++) {
      const id = `0000${String(i).padStart(4, "0")}-0000-4000-8000-000000000000`;
      writeFileSync(join(sessions, `${id}.jsonl`), `${JSON.stringify({ type: "meta", sessionId: id, cwd: home, createdAt: "2026-11-20T10:00:00Z", title: `session ${i}` })}\n`);
    }
    for (const format of [[], ["--json"]]) {
      const child = spawn(process.execPath, [BATON, "handoff", "list", "--limit", "0", ...format], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, HOME: home, BATON_DATA_DIR: "" } });
      let err = "";
      child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
      // Read the first chunk, then close the pipe as `head -1` does.
      await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
      child.stdout.destroy();
      const code = await exitOf(child);
      expect(err).not.toMatch(/EPIPE|Unhandled/);
      expect(code).toBe(0);
    }
  });

  it("`baton start` prints one line per platform, then ready; SIGTERM stops it cleanly", async () => {
    const dir = tempDir();
    const config = join(dir, "baton.yaml");
    writeFileSync(config, "agents:\n  default: demo\nplatforms:\n  web:\n    listen: 127.0.0.1:0\n");
    const child = spawn(process.execPath, [BATON, "start", "--config", config, "--data-dir", join(dir, "data")], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
    const deadline = Date.now() + 20_000;
    while (!out.includes("Baton ready")) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no ready line:\n${out}\n${err}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(out).toMatch(/^Web chat: http:\/\/127\.0\.0\.1:\d+\/\?token=\S+$/m);
    expect(out).toMatch(/Baton ready in \d+ ms — config .*baton\.yaml; default agent: Baton demo agent/);
    // The token is on stdout for the operator, never in the log.
    const token = /token=(\S+)/.exec(out)![1];
    expect(err).not.toContain(token);
    child.kill("SIGTERM");
    const code = await exitOf(child);
    expect(code).toBe(0);
  });

  it("`baton start` with a broken config names the key and line and does not start", () => {
    const dir = tempDir();
    const config = join(dir, "baton.yaml");
    writeFileSync(config, "agents:\n  defualt: claude\n");
    const res = spawnSync(process.execPath, [BATON, "start", "--config", config, "--data-dir", join(dir, "data")], { encoding: "utf8", timeout: 20_000 });
    expect(res.status).toBe(1);
    expect(res.stderr).toContain(`${config}:2: agents.defualt: unknown key "defualt"`);
  });

  it("`baton doctor` checks the config, data dir modes and agents; --json for scripts", () => {
    const dir = tempDir();
    const data = join(dir, "data");
    mkdirSync(data, { mode: 0o755 });
    chmodSync(data, 0o755);
    const config = join(dir, "baton.yaml");
    writeFileSync(config, "agents:\n  default: demo\n");
    const env = { ...process.env, PATH: "/usr/bin:/bin" };
    const res = spawnSync(process.execPath, [BATON, "doctor", "--config", config, "--data-dir", data], { encoding: "utf8", env });
    expect(res.stdout).toMatch(/✓ config\s+.*is valid/);
    expect(res.stdout).toMatch(/✗ data dir\s+.*mode 755; run chmod 700/);
    expect(res.stdout).toMatch(/· agent claude\s+Claude Code: .*not found\. Install: npm install -g/);
    expect(res.status).toBe(1);
    chmodSync(data, 0o700);
    const json = spawnSync(process.execPath, [BATON, "doctor", "--json", "--config", config, "--data-dir", data], { encoding: "utf8", env });
    const report = JSON.parse(json.stdout) as { ok: boolean; checks: Array<{ area: string; status: string }> };
    expect(report.ok).toBe(true);
    expect(report.checks.find((c) => c.area === "data dir")?.status).toBe("ok");
    expect(json.status).toBe(0);
  });

  it("loads the SDKs of enabled platforms only, the markdown parser, HTML renderer and ACP SDK (with the spare agent) only once serving, and no MCP SDK until it is used", async () => {
    const dir = tempDir();
    const config = join(dir, "baton.yaml");
    const log = join(dir, "imports.log");
    writeFileSync(config, "agents:\n  default: demo\nplatforms:\n  web:\n    listen: 127.0.0.1:0\n");
    const child = spawn(process.execPath, ["--import", join(process.cwd(), "test/support/record-imports.mjs"), BATON, "start", "--config", config, "--data-dir", join(dir, "data")], {
      stdio: ["ignore", "pipe", "ignore"],
      env: { ...process.env, BATON_IMPORT_LOG: log },
    });
    // A failed wait below must not leave Baton running.
    onTestFinished(() => void child.kill("SIGKILL"));
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    const deadline = Date.now() + 20_000;
    while (!out.includes("Baton ready")) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no ready line:\n${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    // After serving, the idle warm-up loads what the first message needs: the markdown parser, then
    // the ACP SDK with the spare agent process (agents.spare_host).
    const warm = () => readFileSync(log, "utf8");
    while (!["/node_modules/markdown-it/", "/node_modules/hast-util-to-html/", "/node_modules/@agentclientprotocol/"].every((m) => warm().includes(m))) {
      if (Date.now() > deadline) throw new Error("the markdown parser and the ACP SDK were not loaded after start-up");
      await new Promise((r) => setTimeout(r, 50));
    }
    child.kill("SIGTERM");
    await new Promise((r) => child.once("exit", r));
    const all = readFileSync(log, "utf8");
    const untilReady = all.slice(0, all.indexOf("stdout: Baton ready"));
    expect(untilReady).toContain("/dist/platforms/web/");
    expect(untilReady).toContain("/node_modules/hono/");
    // A start with the web chat alone never loads the other platforms' SDKs, the MCP client or sql.js…
    const neverLoaded = [
      "/node_modules/grammy/",
      "/node_modules/@slack/bolt/",
      "/node_modules/discord.js/",
      "/node_modules/matrix-js-sdk/",
      "/node_modules/@matrix-org/",
      "/node_modules/fake-indexeddb/",
      "/node_modules/@modelcontextprotocol/",
      "/node_modules/sql.js/",
    ];
    // …nor, before it is ready, what only a message needs (the warm-up above loads part of it after).
    const afterReady = ["/node_modules/@agentclientprotocol/", "/node_modules/markdown-it/", "/node_modules/hast-util-to-html/", "/node_modules/mdast-util-to-hast/", "/dist/agents/stores/"];
    for (const absent of [...neverLoaded, ...afterReady]) expect(untilReady, absent).not.toContain(absent);
    expect(untilReady, "no session-store reader").not.toMatch(/\/dist\/agents\/products\/[^/]+\/store\.js/);
    for (const absent of neverLoaded) expect(all, absent).not.toContain(absent);
  });

  /** `baton doctor --json` run as shipped; not spawnSync, since the platform fakes answer from this process. */
  async function doctorJson(yaml: string) {
    const dir = tempDir();
    const config = join(dir, "baton.yaml");
    writeFileSync(config, yaml);
    const child = spawn(process.execPath, [BATON, "doctor", "--json", "--config", config, "--data-dir", join(dir, "data")], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    const code = await exitOf(child);
    return { code, out, report: JSON.parse(out) as { checks: Array<{ area: string; status: string; message: string }> } };
  }

  it("`baton doctor` checks Telegram and Slack credentials against the platforms", async () => {
    const telegram = await FakeBotApi.start({ username: "doctor_bot" });
    const slack = await new FakeSlack().start();
    try {
      const { out, report } = await doctorJson(
        `agents: { default: demo }\nplatforms:\n  telegram: { token: "${telegram.token}", api_root: "${telegram.apiRoot}" }\n  slack: { bot_token: xoxb-fake-bot-token, app_token: xapp-fake-app-token, api_url: "${slack.apiUrl}" }\n`,
      );
      const tg = report.checks.find((c) => c.area === "platform telegram")!;
      const sl = report.checks.find((c) => c.area === "platform slack")!;
      expect(tg.status, tg.message).toBe("ok");
      expect(tg.message).toContain("@doctor_bot");
      expect(sl.status, sl.message).toBe("ok");
      expect(telegram.callsOf("getMe").length).toBeGreaterThan(0);
      expect(slack.callsTo("auth.test").length).toBeGreaterThan(0);
      expect(out).not.toContain(telegram.token);
    } finally {
      await telegram.close();
      await slack.stop();
    }
  });

  it("`baton doctor` fails Slack when a binding's allow names a user group and the app lacks usergroups:read", async () => {
    const slack = await new FakeSlack().start();
    try {
      const { code, report } = await doctorJson(
        [
          "agents: { default: demo }",
          "access: { allow: [slack:U0ALICE], roles: { admin: [slack:U0ALICE] } }",
          'bindings: [{ match: "slack:*", workspace: ., allow: [slack:group:S0DEVS] }]',
          `platforms:\n  slack: { bot_token: xoxb-fake-bot-token, app_token: xapp-fake-app-token, api_url: "${slack.apiUrl}" }`,
          "",
        ].join("\n"),
      );
      expect(code).toBe(1);
      expect(report.checks.find((c) => c.area === "platform slack")).toMatchObject({
        status: "fail",
        message: expect.stringContaining("scopes: missing usergroups:read, which your access lists need to see who is in slack:group:S0DEVS"),
      });
    } finally {
      await slack.stop();
    }
  });
});
