// Detached launches: the spec file's claim-by-rename and confirmation, and a real
// `baton handoff resume <id> --launch tmux --yes` starting a stand-in runtime in detached tmux.

import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { awaitConfirmation, claimSpec, specFromCommand, writeSpec } from "../../../src/handoff/sessions/spec.js";
import { runTrampoline } from "../../../src/handoff/sessions/trampoline.js";
import { terminalArgv } from "../../../src/handoff/sessions/launch.js";
import { claudeFixture } from "../../fakes/stores/jsonl-stores.js";
import { testTempDir } from "../../support/temp.js";

const REPO = path.resolve(import.meta.dirname, "../../..");
/** The command a user runs; the trampoline re-runs this same entry. */
const ENTRY = path.join(REPO, "bin", "baton.js");
const BUILT = path.join(REPO, "dist", "bundle", "cli.js");

describe("launch spec", () => {
  it("carries only the variables that locate runtime stores, plus approval settings", () => {
    const spec = specFromCommand(
      { executable: "copilot", args: ["-i", "hi"], env: { COPILOT_ALLOW_ALL: null, GOOSE_MODE: "approve" }, dir: "/w" },
      { CODEX_HOME: "/c", OPENAI_API_KEY: "sk-should-not-travel", PATH: "/bin" },
      1_000,
    );
    expect(spec.set).toEqual({ CODEX_HOME: "/c", GOOSE_MODE: "approve" });
    expect(spec.unset).toEqual(["COPILOT_ALLOW_ALL"]);
    expect(spec.expiresAt).toBe(16_000);
  });

  it("is withdrawn when nothing confirms in time, so a late terminal starts nothing", async () => {
    const dir = testTempDir("baton-spec-");
    const file = await writeSpec(dir, specFromCommand({ executable: "true", args: [], env: {}, dir }, {}));
    expect((await awaitConfirmation(file, 200)).state).toBe("cancelled");
    expect(existsSync(file)).toBe(false);
    expect(await claimSpec(file)).toBeUndefined();
    expect(await runTrampoline(file)).toBe(1);
  });

  it("says the runtime may still start when the terminal claimed the spec just as time ran out", async () => {
    const dir = testTempDir("baton-spec-");
    const file = await writeSpec(dir, specFromCommand({ executable: "true", args: [], env: {}, dir }, {}));
    const claimed = await claimSpec(file);
    expect(claimed?.executable).toBe("true");
    expect((await awaitConfirmation(file, 200)).state).toBe("claimed-late");
  });

  it("the trampoline starts the exact argv, confirms, and returns the runtime's exit code", async () => {
    const dir = testTempDir("baton-spec-");
    const out = path.join(dir, "argv.txt");
    const file = await writeSpec(dir, {
      version: 1,
      executable: "sh",
      args: ["-c", 'printf "%s|" "$@" > "$0"; exit 3', out, "a b", "$HOME;`x`"],
      dir,
      set: {},
      unset: [],
      expiresAt: Date.now() + 15_000,
    });
    const [code, outcome] = await Promise.all([runTrampoline(file), awaitConfirmation(file, 5_000)]);
    expect(code).toBe(3);
    expect(outcome.state).toBe("started");
    expect(readFileSync(out, "utf8")).toBe("a b|$HOME;`x`|");
  });
});

describe("resume --launch tmux", () => {
  const tmuxDir = testTempDir("baton-tmux-");
  const tmuxEnv = { ...process.env, TMUX_TMPDIR: tmuxDir, TMUX: "" };
  delete (tmuxEnv as Record<string, string | undefined>).TMUX;

  beforeAll(() => {
    // The launch goes through the shipped CLI, exactly as a user runs it. The build script does
    // nothing when dist/ was built from these sources (`npm test` has just built it) and otherwise
    // moves the new build in without disturbing other test files running the CLI.
    spawnSync(process.execPath, ["scripts/build.mjs", "--if-stale"], { cwd: REPO, stdio: "ignore" });
    if (!existsSync(BUILT)) throw new Error(`build did not produce ${BUILT}`);
    if (spawnSync("tmux", ["-V"]).status !== 0) throw new Error("tmux is not installed (apt-get install -y tmux)");
  }, 120_000);

  afterAll(() => {
    spawnSync("tmux", ["kill-server"], { env: tmuxEnv });
  });

  it("starts the runtime in a detached tmux session and prints how to attach", async () => {
    const f = claudeFixture();
    const bin = path.join(f.root, "bin");
    mkdirSync(bin);
    const record = path.join(f.root, "started.txt");
    // A stand-in `claude`: records how it was started, then stays up like an interactive CLI.
    writeFileSync(path.join(bin, "claude"), `#!/bin/sh\nprintf '%s\\n' "$PWD" "$@" > '${record}'\nexec sleep 60\n`);
    chmodSync(path.join(bin, "claude"), 0o755);
    const env = { ...tmuxEnv, HOME: f.opts.home!, PATH: `${bin}:${process.env.PATH}`, CLAUDE_CONFIG_DIR: "" };
    delete (env as Record<string, string | undefined>).CLAUDE_CONFIG_DIR;
    const res = spawnSync(process.execPath, [ENTRY, "handoff", "resume", f.main.id.slice(0, 8), "--launch", "tmux", "--yes"], { env, encoding: "utf8", timeout: 30_000 });
    expect(res.stderr).toBe("");
    expect(res.status).toBe(0);
    const name = `baton-handoff-${f.main.id}`;
    expect(res.stdout).toContain(`claude started in tmux session ${name}`);
    expect(res.stdout).toContain(`tmux attach -t ${name}`);
    expect(spawnSync("tmux", ["has-session", "-t", `=${name}`], { env: tmuxEnv }).status).toBe(0);
    const deadline = Date.now() + 5_000;
    while (!existsSync(record) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(readFileSync(record, "utf8").split("\n").slice(0, 3)).toEqual([f.main.cwd, "--resume", f.main.id]);
    // The spec file was consumed: nothing is left for a second terminal to start.
    const handoffs = path.join(f.opts.home!, ".baton", "handoffs");
    expect(execFileSync("ls", ["-A", handoffs], { encoding: "utf8" }).trim()).toBe("");
  }, 60_000);

  it("--launch auto means tmux on headless Linux, and a brief launch writes the brief it points at", async () => {
    const f = claudeFixture();
    const bin = path.join(f.root, "bin");
    mkdirSync(bin);
    const record = path.join(f.root, "codex-args.txt");
    writeFileSync(path.join(bin, "codex"), `#!/bin/sh\nprintf '%s\\n' "$@" > '${record}'\nexec sleep 60\n`);
    chmodSync(path.join(bin, "codex"), 0o755);
    const env: Record<string, string | undefined> = { ...tmuxEnv, HOME: f.opts.home!, PATH: `${bin}:${process.env.PATH}` };
    for (const name of ["DISPLAY", "WAYLAND_DISPLAY", "CLAUDE_CONFIG_DIR", "CODEX_HOME"]) delete env[name];
    const res = spawnSync(process.execPath, [ENTRY, "handoff", "resume", f.main.id, "--agent", "codex", "--launch", "auto", "--yes"], { env, encoding: "utf8", timeout: 30_000 });
    expect(res.status).toBe(0);
    expect(res.stdout).toMatch(/codex started in tmux session baton-handoff-/);
    const briefLine = /Brief written to (.+\.md)/.exec(res.stdout);
    expect(briefLine).not.toBeNull();
    const brief = briefLine![1];
    expect(statSync(brief).mode & 0o777).toBe(0o600);
    const deadline = Date.now() + 5_000;
    while (!existsSync(record) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const prompt = readFileSync(record, "utf8");
    expect(prompt).toContain(brief);
    expect(prompt).toContain(`[baton-handoff from=claude session=${f.main.id}]`);
  }, 60_000);

  it("--launch current runs the runtime here and exits with its code", () => {
    const f = claudeFixture();
    const bin = path.join(f.root, "bin");
    mkdirSync(bin);
    writeFileSync(path.join(bin, "claude"), "#!/bin/sh\nexit 7\n");
    chmodSync(path.join(bin, "claude"), 0o755);
    const env: Record<string, string | undefined> = { ...process.env, HOME: f.opts.home!, PATH: `${bin}:${process.env.PATH}` };
    delete env.CLAUDE_CONFIG_DIR;
    const res = spawnSync(process.execPath, [ENTRY, "handoff", "resume", f.main.id, "--yes"], { env, encoding: "utf8", timeout: 30_000 });
    expect(res.status).toBe(7);
    expect(res.stdout).toContain("claude exited with code 7");
  });

  it("--launch new-terminal fails plainly when no graphical terminal can be opened", () => {
    const f = claudeFixture();
    const env: Record<string, string | undefined> = { ...process.env, HOME: f.opts.home! };
    for (const name of ["DISPLAY", "WAYLAND_DISPLAY", "CLAUDE_CONFIG_DIR"]) delete env[name];
    const res = spawnSync(process.execPath, [ENTRY, "handoff", "resume", f.main.id, "--launch", "new-terminal", "--yes"], { env, encoding: "utf8", timeout: 30_000 });
    expect(res.status).toBe(1);
    expect(res.stderr).toMatch(/No graphical terminal/);
    // The spec written for it was removed again.
    expect(execFileSync("ls", ["-A", path.join(f.opts.home!, ".baton", "handoffs")], { encoding: "utf8" }).trim()).toBe("");
  });
});

describe("terminal detection", () => {
  it("uses a Linux terminal emulator found on PATH when a display is set", () => {
    const dir = testTempDir("baton-term-");
    writeFileSync(path.join(dir, "xterm"), "#!/bin/sh\n");
    chmodSync(path.join(dir, "xterm"), 0o755);
    const oldPath = process.env.PATH;
    process.env.PATH = dir;
    try {
      expect(terminalArgv(["node", "baton.js"], { DISPLAY: ":0" })).toEqual(["xterm", "-e", "node", "baton.js"]);
      expect(terminalArgv(["node", "baton.js"], {})).toBeUndefined();
    } finally {
      process.env.PATH = oldPath;
    }
  });
});
