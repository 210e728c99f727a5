// `baton setup` over awkward settings files, per agent: comments, inline tables, dotted keys, an
// old registration, a broken file (left untouched with a line number), a missing file; and the
// launcher it registers (stable, with a warning when it points into a clone).
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { parse as parseJsonc } from "jsonc-parser";
import { afterEach, describe, expect, it } from "vitest";
import { setJsoncValue, setTomlTable } from "../../../src/agents/products/kit/config-files.js";
import { batonLauncher } from "../../../src/handoff/setup/plan.js";
import { BATON_BIN, tempDir, removeTempDirs } from "../../pickup/helpers.js";

afterEach(() => removeTempDirs());

const BATON = { command: "/opt/baton/bin/baton", args: ["mcp"] };
const setBaton = (text: string) => setTomlTable(text, "config.toml", "mcp_servers", "baton", BATON);

describe("codex: config.toml", () => {
  it("replaces an old [mcp_servers.baton] (and its env sub-table), keeping comments and every other table", () => {
    const text = [
      "# my codex settings",
      'model = "o3" # the good one',
      "",
      "[mcp_servers.baton]",
      'command = "old"',
      "[mcp_servers.baton.env]",
      'X = "1"',
      "",
      "# other server",
      "[mcp_servers.other]",
      'command = "x"',
      'args = ["--a", "--b"]',
      "",
      "[profiles.fast]",
      'model = "mini"',
      "",
    ].join("\n");
    const out = setBaton(text);
    expect(out).toContain("# my codex settings");
    expect(out).toContain('model = "o3" # the good one');
    expect(out).toContain("# other server");
    expect(out).not.toContain('"old"');
    const doc = parseToml(out) as Record<string, any>;
    expect(doc.mcp_servers).toEqual({ other: { command: "x", args: ["--a", "--b"] }, baton: BATON });
    expect(doc.profiles).toEqual({ fast: { model: "mini" } });
    expect(setBaton(out)).toBe(out);
  });

  it("an inline `mcp_servers = { … }` table becomes one table per server (TOML cannot extend an inline table)", () => {
    const out = setBaton('model = "o3"\nmcp_servers = { other = { command = "x", args = ["y"] } }\n\n[history]\npersistence = "none"\n');
    const doc = parseToml(out) as Record<string, any>;
    expect(doc).toEqual({ model: "o3", history: { persistence: "none" }, mcp_servers: { other: { command: "x", args: ["y"] }, baton: BATON } });
  });

  it("dotted keys at the top and an inline entry under [mcp_servers]", () => {
    const dotted = parseToml(setBaton('mcp_servers.other.command = "x"\nmcp_servers.baton.command = "old"\n')) as Record<string, any>;
    expect(dotted.mcp_servers).toEqual({ other: { command: "x" }, baton: BATON });
    const inline = parseToml(setBaton('[mcp_servers]\nbaton = { command = "old" }\nother = { command = "x" }\n')) as Record<string, any>;
    expect(inline.mcp_servers).toEqual({ other: { command: "x" }, baton: BATON });
  });

  it("a file that is not valid TOML is left alone, with the line of the mistake", () => {
    expect(() => setBaton('model = "o3"\nbroken = [\n')).toThrow(/config\.toml:\d+: not valid TOML .*Nothing was changed/);
  });
});

describe("gemini: settings.json with comments", () => {
  it("sets mcpServers.baton and keeps comments, trailing commas and the other servers", () => {
    const text = '{\n  // my theme\n  "theme": "Dark",\n  /* servers */\n  "mcpServers": {\n    "other": { "command": "x" },\n    "baton": { "command": "old" },\n  },\n}\n';
    const out = setJsoncValue(text, "settings.json", ["mcpServers", "baton"], BATON);
    expect(out).toContain("// my theme");
    expect(out).toContain("/* servers */");
    expect(parseJsonc(out)).toEqual({ theme: "Dark", mcpServers: { other: { command: "x" }, baton: BATON } });
  });

  it("an empty or missing file becomes a small object; a broken one is refused with its line", () => {
    expect(JSON.parse(setJsoncValue("", "settings.json", ["mcpServers", "baton"], BATON))).toEqual({ mcpServers: { baton: BATON } });
    expect(() => setJsoncValue('{\n  "theme": "Dark"\n  "x": 1\n}', "settings.json", ["mcpServers", "baton"], BATON)).toThrow(/settings\.json:3: not valid JSON \(CommaExpected\)/);
  });

  it("through the CLI: a commented settings.json is edited in place, a broken one untouched (exit 1)", () => {
    const home = tempDir("baton-home-");
    mkdirSync(join(home, ".gemini"));
    const settings = join(home, ".gemini", "settings.json");
    writeFileSync(settings, '{\n  // keep me\n  "theme": "Dark"\n}\n');
    const env = { ...process.env, HOME: home, PATH: "/usr/bin:/bin" };
    // --force: no gemini on this PATH; what is tested here is the file's editing.
    execFileSync(process.execPath, [BATON_BIN, "setup", "gemini", "--force"], { env, stdio: "pipe" });
    expect(readFileSync(settings, "utf8")).toContain("// keep me");
    expect(parseJsonc(readFileSync(settings, "utf8"))).toMatchObject({ theme: "Dark", mcpServers: { baton: { command: BATON_BIN, args: ["mcp"] } } });
    writeFileSync(settings, "{ broken");
    const res = spawnSync(process.execPath, [BATON_BIN, "setup", "gemini", "--force"], { env, encoding: "utf8" });
    expect(res.status).toBe(1);
    expect(res.stderr).toMatch(/settings\.json:1: not valid JSON/);
    expect(readFileSync(settings, "utf8")).toBe("{ broken");
  });
});

describe("claude: its own `claude mcp add`", () => {
  it("removes an old registration, then adds baton at user scope; --print --json shows the plan; without claude on PATH it says so", () => {
    const home = tempDir("baton-home-");
    const bin = join(home, "bin");
    mkdirSync(bin);
    const log = join(home, "claude-calls.log");
    writeFileSync(join(bin, "claude"), `#!/bin/sh\necho "$*" >> ${log}\n`);
    chmodSync(join(bin, "claude"), 0o755);
    const env = { ...process.env, HOME: home, PATH: `${bin}:/usr/bin:/bin`, CLAUDE_CONFIG_DIR: "" };
    execFileSync(process.execPath, [BATON_BIN, "setup", "claude"], { env, stdio: "pipe" });
    expect(readFileSync(log, "utf8").trim().split("\n")).toEqual(["mcp remove -s user baton", `mcp add -s user baton -- ${BATON_BIN} mcp`]);
    expect(readFileSync(join(home, ".claude", "commands", "handover.md"), "utf8")).toContain("prepare_handover");

    const plan = JSON.parse(execFileSync(process.execPath, [BATON_BIN, "setup", "claude", "--print", "--json"], { env, encoding: "utf8" }));
    expect(plan.agent).toBe("claude");
    expect(plan.steps[0].summary).toBe(`run claude mcp add -s user baton -- ${BATON_BIN} mcp`);
    expect(plan.warnings[0]).toMatch(/points into the clone/);

    const missing = spawnSync(process.execPath, [BATON_BIN, "setup", "claude"], { env: { ...env, PATH: "/usr/bin:/bin" }, encoding: "utf8" });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/Claude Code is not installed here \(no `claude` on PATH\)\. Install it first/);
  });
});

describe("the launcher setup registers", () => {
  it("is the `baton` on PATH when that is this install, else this install's bin with a warning", () => {
    const dir = tempDir("baton-path-");
    symlinkSync(BATON_BIN, join(dir, "baton"));
    expect(batonLauncher({ PATH: dir })).toEqual({ command: join(dir, "baton"), args: [] });
    const other = tempDir("baton-other-");
    writeFileSync(join(other, "baton"), "#!/bin/sh\n");
    chmodSync(join(other, "baton"), 0o755);
    const foreign = batonLauncher({ PATH: other });
    expect(foreign.command).toBe(BATON_BIN);
    expect(foreign.warning).toMatch(/The `baton` on PATH .* is not this Baton/);
    // An installed copy (no .git, no src/ beside it) with nothing on PATH: no warning.
    const installed = tempDir("baton-installed-");
    mkdirSync(join(installed, "bin"));
    writeFileSync(join(installed, "bin", "baton.js"), "");
    expect(batonLauncher({ PATH: "/usr/bin:/bin" }, join(installed, "bin", "baton.js"))).toEqual({ command: join(installed, "bin", "baton.js"), args: [] });
  });
});
