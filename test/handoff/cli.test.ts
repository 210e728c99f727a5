// `baton launch` and `baton setup` as a user runs them (the compiled CLI), with HOME, PATH and the
// data dir pointed at temporary directories; no real agent CLI is needed.
import { spawn, spawnSync, execFileSync, type ChildProcessWithoutNullStreams } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { TestPlatform } from "../support/test-platform.js";
import { startTestBaton, type TestBaton } from "../support/harness.js";
import { BATON_BIN, codeIn, tempDir, removeTempDirs, AGENT_TURN_MS } from "../pickup/helpers.js";
import { exitOf } from "../support/process.js";

// These tests drive real agent and CLI processes; a machine busy with other test runs is slow.
vi.setConfig({ testTimeout: 90_000 });

let baton: TestBaton | undefined;
let repl: ChildProcessWithoutNullStreams | undefined;
afterEach(async () => {
  if (repl && repl.exitCode === null) repl.kill();
  await baton?.stop({ cleanup: true });
  removeTempDirs();
  baton = repl = undefined;
});

/** Collects a child's stdout and waits for a pattern in it. */
function watch(child: ChildProcessWithoutNullStreams) {
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (out += chunk));
  return {
    text: () => out,
    async waitFor(pattern: RegExp, timeoutMs = 15_000): Promise<RegExpExecArray> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const m = pattern.exec(out);
        if (m) return m;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}; output:\n${out}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
  };
}

describe("baton launch demo", () => {
  it("runs the demo agent in the terminal, hands over to chat, and the chat warns while the terminal is open", async () => {
    const root = tempDir("baton-ws-");
    const home = tempDir("baton-home-");
    const platform = new TestPlatform();
    baton = await startTestBaton({ adapters: [platform], config: { workspaces: { roots: [root], default: root } } });
    repl = spawn(process.execPath, [BATON_BIN, "launch", "demo"], { cwd: root, env: { ...process.env, HOME: home, BATON_DATA_DIR: baton.dataDir } });
    const terminal = watch(repl);
    await terminal.waitFor(/session [0-9a-f-]{36} in /);

    repl.stdin.write("written in the terminal\n");
    const turn = await terminal.waitFor(/Turn 1 of session ([0-9a-f-]{36}): you said "written in the terminal"/);
    const session = turn[1];
    const launches = readdirSync(join(baton.dataDir, "launches"));
    expect(launches).toHaveLength(1);
    expect(JSON.parse(readFileSync(join(baton.dataDir, "launches", launches[0]), "utf8"))).toMatchObject({ agent: "demo", cwd: root, pid: repl.pid });

    repl.stdin.write("/handover\n");
    const code = codeIn((await terminal.waitFor(/\/pickup [A-Z2-9]{4}/))[0]);
    const route = platform.route("phone");
    await platform.say(route, `/pickup ${code}`);
    const notice = await platform.waitFor(route, /Picked up Baton demo agent session/);
    expect(notice.text).toContain(session.slice(0, 8));
    expect(notice.text).toMatch(/still open in a terminal .*forks/);

    await platform.say(route, "recall");
    await platform.waitFor(route, new RegExp(`Earlier prompts of session ${session}:\\n1\\. written in the terminal`), AGENT_TURN_MS);

    repl.stdin.write("/exit\n");
    const code_ = await exitOf(repl);
    expect(code_).toBe(0);
    expect(readdirSync(join(baton.dataDir, "launches"))).toHaveLength(0);
    expect(readdirSync(home)).toEqual([]); // nothing written into the home directory
  });
});

describe("chat → terminal", () => {
  it("/handover gives the terminal command; for the demo agent `baton launch demo --resume` continues the chat's session", async () => {
    const root = tempDir("baton-ws-");
    const platform = new TestPlatform();
    baton = await startTestBaton({ adapters: [platform], config: { workspaces: { roots: [root], default: root } } });
    const route = platform.route("phone");
    await platform.say(route, "said in chat");
    await platform.waitFor(route, /Turn 1 of session/, AGENT_TURN_MS);
    const session = baton.daemon.core.registry.threadForRoute(route)!.session!;
    await platform.say(route, "/handover");
    const answer = await platform.waitFor(route, /Continue this session in a terminal/);
    expect(answer.text).toContain(`cd ${root} && baton launch demo -- --resume ${session}`);

    repl = spawn(process.execPath, [BATON_BIN, "launch", "demo", "--", "--resume", session], { cwd: root, env: { ...process.env, HOME: tempDir("baton-home-"), BATON_DATA_DIR: baton.dataDir } });
    const terminal = watch(repl);
    await terminal.waitFor(new RegExp(`session ${session} in `));
    repl.stdin.end("recall\n");
    await terminal.waitFor(new RegExp(`Earlier prompts of session ${session}:\\n1\\. said in chat`));
    expect(await exitOf(repl)).toBe(0);

    // An agent with a terminal CLI: its native resume command, and the same under `baton launch`.
    const other = platform.route("laptop");
    await baton.daemon.core.registry.create({ workspace: root, agent: "claude", session: "4f1c2d3e-0000-4000-8000-000000000001" }, other);
    await platform.say(other, "/handover");
    const native = await platform.waitFor(other, /Continue this session in a terminal/);
    expect(native.text).toContain(`cd ${root} && claude --resume 4f1c2d3e-0000-4000-8000-000000000001`);
    expect(native.text).toContain("baton launch claude -- --resume 4f1c2d3e-0000-4000-8000-000000000001");
  });
});

describe("baton launch <agent CLI>", () => {
  it("passes the MCP server for this run only, with the BATON_* environment, and records the launch while it runs", () => {
    const cwd = tempDir("baton-ws-");
    const dataDir = tempDir("baton-data-");
    const bin = tempDir("baton-bin-");
    const record = join(bin, "record.json");
    // A stand-in `claude` that records how it was started and what the launch registry held.
    writeFileSync(
      join(bin, "claude"),
      `#!${process.execPath}\nconst fs = require("node:fs");\nconst dir = process.env.BATON_DATA_DIR + "/launches";\n` +
        `fs.writeFileSync(${JSON.stringify(record)}, JSON.stringify({ argv: process.argv.slice(2), env: { kind: process.env.BATON_AGENT_KIND, launch: process.env.BATON_LAUNCH_ID, data: process.env.BATON_DATA_DIR }, launches: fs.readdirSync(dir).map((f) => JSON.parse(fs.readFileSync(dir + "/" + f, "utf8"))) }));\nprocess.exit(7);\n`,
    );
    chmodSync(join(bin, "claude"), 0o755);
    const env = { ...process.env, PATH: `${bin}:${process.env.PATH}`, HOME: tempDir("baton-home-"), BATON_DATA_DIR: dataDir };
    let status = 0;
    try {
      execFileSync(process.execPath, [BATON_BIN, "launch", "claude", "--", "--model", "opus"], { cwd, env, stdio: "pipe" });
    } catch (error) {
      status = (error as { status: number }).status;
    }
    expect(status).toBe(7); // the agent's exit code
    const seen = JSON.parse(readFileSync(record, "utf8")) as { argv: string[]; env: Record<string, string>; launches: Array<Record<string, unknown>> };
    expect(seen.argv[0]).toBe("--mcp-config");
    const config = JSON.parse(seen.argv[1]) as { mcpServers: { baton: { command: string; args: string[]; env: Record<string, string> } } };
    expect(config.mcpServers.baton.args).toEqual([BATON_BIN, "mcp"]);
    expect(config.mcpServers.baton.env).toEqual({ BATON_AGENT_KIND: "claude", BATON_LAUNCH_ID: seen.env.launch, BATON_DATA_DIR: dataDir });
    expect(seen.argv.slice(2)).toEqual(["--model", "opus"]);
    expect(seen.env).toMatchObject({ kind: "claude", data: dataDir });
    expect(seen.launches).toEqual([expect.objectContaining({ launchId: seen.env.launch, agent: "claude", cwd })]);
    expect(readdirSync(join(dataDir, "launches"))).toEqual([]);
    expect(readdirSync(cwd)).toEqual([]); // no file in the project
  });

  it("refuses approval-bypass flags", () => {
    const run = () => execFileSync(process.execPath, [BATON_BIN, "launch", "codex", "--", "--yolo"], { env: { ...process.env, BATON_DATA_DIR: tempDir("baton-data-") }, stdio: "pipe" });
    expect(run).toThrow(/never starts an agent with its approvals turned off/);
  });
});

describe("baton setup", () => {
  it("--print shows the registration and the handover command for claude, and changes nothing", () => {
    const home = tempDir("baton-home-");
    const out = execFileSync(process.execPath, [BATON_BIN, "setup", "claude", "--print"], { env: { ...process.env, HOME: home, PATH: "/usr/bin:/bin", CLAUDE_CONFIG_DIR: "" }, encoding: "utf8" });
    expect(out).toContain("baton setup claude would:");
    expect(out).toContain(`claude mcp add -s user baton -- ${BATON_BIN} mcp`);
    // Run from a clone: said, since moving the clone would break the registration.
    expect(out).toMatch(/! This points into the clone at .*npm install -g baton-agents/);
    expect(out).toContain(`write ${join(home, ".claude", "commands", "handover.md")}`);
    expect(out).toContain("prepare_handover");
    expect(readdirSync(home)).toEqual([]);
  });

  it("codex and gemini: registers baton mcp in their user config (keeping what is there) and installs the command; running twice changes nothing more", () => {
    const home = tempDir("baton-home-");
    mkdirSync(join(home, ".codex"));
    writeFileSync(join(home, ".codex", "config.toml"), 'model = "o3"\n\n[mcp_servers.baton]\ncommand = "old"\n\n[mcp_servers.other]\ncommand = "x"\n');
    mkdirSync(join(home, ".gemini"));
    writeFileSync(join(home, ".gemini", "settings.json"), JSON.stringify({ theme: "Dark", mcpServers: { other: { command: "x" } } }));
    // Both CLIs "installed": executables of those names on PATH.
    const bin = join(home, "bin");
    mkdirSync(bin);
    for (const cli of ["codex", "gemini"]) writeFileSync(join(bin, cli), "#!/bin/sh\nexit 0\n", { mode: 0o755 });
    const env = { ...process.env, HOME: home, PATH: `${bin}:/usr/bin:/bin`, CODEX_HOME: "" };
    for (let i = 0; i < 2; i++) {
      const codex = execFileSync(process.execPath, [BATON_BIN, "setup", "codex"], { env, encoding: "utf8", stdio: "pipe" });
      // Codex puts custom prompts under /prompts:, so that is how its handover command is typed.
      expect(codex).toContain('Done. In codex, ask it to "hand this over" (or type /prompts:handover)');
      const gemini = execFileSync(process.execPath, [BATON_BIN, "setup", "gemini"], { env, encoding: "utf8", stdio: "pipe" });
      expect(gemini).toContain("(or type /handover)");
    }
    const toml = readFileSync(join(home, ".codex", "config.toml"), "utf8");
    expect(toml.match(/\[mcp_servers\.baton\]/g)).toHaveLength(1);
    expect(toml).toContain('model = "o3"');
    expect(toml).toContain("[mcp_servers.other]");
    expect(toml).toContain(`command = ${JSON.stringify(BATON_BIN)}`);
    expect(toml).toMatch(/args = \[ "mcp" \]/);
    expect(toml).not.toContain('"old"');
    expect(readFileSync(join(home, ".codex", "prompts", "handover.md"), "utf8")).toContain("`agent_kind`: `codex`");
    const settings = JSON.parse(readFileSync(join(home, ".gemini", "settings.json"), "utf8"));
    expect(settings).toMatchObject({ theme: "Dark", mcpServers: { other: { command: "x" }, baton: { command: BATON_BIN, args: ["mcp"] } } });
    expect(readFileSync(join(home, ".gemini", "commands", "handover.toml"), "utf8")).toMatch(/^description = .*\nprompt = """\n[\s\S]*prepare_handover[\s\S]*"""\n$/);
    expect(existsSync(join(home, ".claude"))).toBe(false);
  });

  it("refuses when the agent's CLI is not installed, changing nothing; --force sets it up anyway", () => {
    const home = tempDir("baton-home-");
    const env = { ...process.env, HOME: home, PATH: "/usr/bin:/bin", CODEX_HOME: "", GEMINI_CLI_HOME: "" };
    for (const agent of ["codex", "gemini"]) {
      const refused = spawnSync(process.execPath, [BATON_BIN, "setup", agent], { env, encoding: "utf8" });
      expect(refused.status).toBe(1);
      expect(refused.stderr).toMatch(new RegExp(`is not installed here \\(no \`${agent}\` on PATH\\)\\. Install it first \\(npm install -g .*\\), or add --force to write its settings anyway\\.`));
    }
    expect(readdirSync(home)).toEqual([]);
    const forced = spawnSync(process.execPath, [BATON_BIN, "setup", "codex", "--force"], { env, encoding: "utf8" });
    expect(forced.status, forced.stderr).toBe(0);
    expect(existsSync(join(home, ".codex", "prompts", "handover.md"))).toBe(true);
  });
});
