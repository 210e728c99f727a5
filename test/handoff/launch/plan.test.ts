// Unit checks of what `baton launch` passes to each agent CLI, and which session a handover means.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { SessionSummary } from "../../../src/commands/context.js";
import { planLaunch } from "../../../src/handoff/launch/plan.js";
import { BATON_BIN } from "../../../src/kernel/install.js";
import { lookupSession, resolveSession, type HandoverAgents } from "../../../src/pickup/sessions.js";
import { getAgentKind } from "../../../src/agents/products/index.js";
import { CommandError } from "../../../src/kernel/errors.js";
import { removeTempDirs, tempDir } from "../../pickup/helpers.js";

afterEach(() => removeTempDirs());

const ctx = (dataDir: string, env: NodeJS.ProcessEnv = {}) => ({ dataDir, launchId: "ln_0123abcd", env });
const batonEnv = (agent: string, dataDir: string) => ({ BATON_AGENT_KIND: agent, BATON_LAUNCH_ID: "ln_0123abcd", BATON_DATA_DIR: dataDir });

describe("launch plans", () => {
  it("codex gets the server as -c TOML overrides ahead of the user's arguments", () => {
    const plan = planLaunch("codex", ["resume", "abc"], ctx("/data"));
    expect(plan.command).toBe("codex");
    expect(plan.args).toEqual([
      "-c",
      `mcp_servers.baton.command=${JSON.stringify(process.execPath)}`,
      "-c",
      `mcp_servers.baton.args=${JSON.stringify([BATON_BIN, "mcp"])}`,
      "-c",
      'mcp_servers.baton.env={ BATON_AGENT_KIND = "codex", BATON_LAUNCH_ID = "ln_0123abcd", BATON_DATA_DIR = "/data" }',
      "resume",
      "abc",
    ]);
    expect(plan.env).toEqual(batonEnv("codex", "/data"));
    expect(plan.files).toEqual([]);
  });

  it("gemini gets a per-run system settings file in the data dir, merged over the existing one", () => {
    const dataDir = tempDir("baton-data-");
    const system = join(tempDir("baton-etc-"), "settings.json");
    writeFileSync(system, JSON.stringify({ security: { auth: "x" }, mcpServers: { corp: { command: "corp-mcp" } } }));
    const plan = planLaunch("gemini", ["--model", "m"], { ...ctx(dataDir, { GEMINI_CLI_SYSTEM_SETTINGS_PATH: system, HOME: tempDir("baton-home-") }), geminiSkips: () => undefined });
    expect(plan.args).toEqual(["--model", "m"]);
    const [file] = plan.files;
    expect(file.path).toBe(join(dataDir, "launches", "ln_0123abcd.gemini-settings.json"));
    expect(plan.env.GEMINI_CLI_SYSTEM_SETTINGS_PATH).toBe(file.path);
    expect(JSON.parse(file.content)).toEqual({
      security: { auth: "x" },
      mcpServers: { corp: { command: "corp-mcp" }, baton: { command: process.execPath, args: [BATON_BIN, "mcp"], env: batonEnv("gemini", dataDir) } },
    });
    expect(readFileSync(system, "utf8")).not.toContain("baton"); // the real file is untouched
  });

  it("gemini: a server registered by `baton setup gemini` needs no file; without one, a data dir Gemini would not read is refused with the fix", () => {
    const home = tempDir("baton-home-");
    const dataDir = tempDir("baton-data-");
    // Gemini CLI 0.61 skips system settings outside root-owned, non-shared directories: /tmp is shared.
    expect(() => planLaunch("gemini", [], ctx(dataDir, { HOME: home }))).toThrow(/writable by others[\s\S]*baton setup gemini/);
    mkdirSync(join(home, ".gemini"));
    writeFileSync(join(home, ".gemini", "settings.json"), JSON.stringify({ mcpServers: { baton: { command: "baton", args: ["mcp"] } } }));
    const plan = planLaunch("gemini", ["-p", "hi"], ctx(dataDir, { HOME: home }));
    expect(plan).toEqual({ command: "gemini", args: ["-p", "hi"], env: batonEnv("gemini", dataDir), files: [] });
  });

  it("opencode gets the server in OPENCODE_CONFIG_CONTENT, added to what the user's environment had there, and asks before commands", () => {
    const mine = JSON.stringify({ theme: "dark", mcp: { corp: { type: "local", command: ["corp-mcp"] } } });
    const plan = planLaunch("opencode", ["run", "hi"], ctx("/data", { OPENCODE_CONFIG_CONTENT: mine }));
    expect(plan.command).toBe("opencode");
    expect(plan.args).toEqual(["run", "hi"]);
    expect(JSON.parse(plan.env.OPENCODE_CONFIG_CONTENT)).toEqual({
      theme: "dark",
      mcp: {
        corp: { type: "local", command: ["corp-mcp"] },
        baton: { type: "local", command: [process.execPath, BATON_BIN, "mcp"], environment: batonEnv("opencode", "/data"), enabled: true },
      },
    });
    expect(JSON.parse(plan.env.OPENCODE_PERMISSION)).toEqual({ bash: "ask", edit: "ask", webfetch: "ask" });
    expect(() => planLaunch("opencode", [], ctx("/data", { OPENCODE_CONFIG_CONTENT: "{not json" }))).toThrow(/OPENCODE_CONFIG_CONTENT .* not a JSON object/);
  });

  it("qwen gets the server as --mcp-config JSON ahead of the user's arguments", () => {
    const plan = planLaunch("qwen", ["-p", "hi"], ctx("/data"));
    expect(plan.command).toBe("qwen");
    expect(plan.args.slice(2)).toEqual(["-p", "hi"]);
    expect(plan.args[0]).toBe("--mcp-config");
    expect(JSON.parse(plan.args[1])).toEqual({ mcpServers: { baton: { command: process.execPath, args: [BATON_BIN, "mcp"], env: batonEnv("qwen", "/data") } } });
    expect(() => planLaunch("qwen", ["--approval-mode", "auto"], ctx("/data"))).toThrow(/approvals turned off/);
  });

  it("refuses approval bypass in every spelling and unknown agents", () => {
    expect(() => planLaunch("claude", ["--permission-mode", "bypassPermissions"], ctx("/d"))).toThrow(/approvals turned off/);
    expect(() => planLaunch("claude", ["--permission-mode=bypassPermissions"], ctx("/d"))).toThrow(/approvals turned off/);
    expect(() => planLaunch("codex", ["-a", "never"], ctx("/d"))).toThrow(/approvals turned off/);
    expect(() => planLaunch("gemini", ["--approval-mode=yolo"], ctx("/d"))).toThrow(/approvals turned off/);
    expect(() => planLaunch("claude", ["--permission-mode", "plan"], ctx("/d"))).not.toThrow();
    expect(() => planLaunch("goose", [], ctx("/d"))).toThrow(/knows claude, codex, opencode, gemini, qwen, demo/);
  });
});

describe("which session a handover means", () => {
  const cwd = "/work/app";
  const sessions: SessionSummary[] = [
    { id: "sub-newest", title: "in a subdirectory", cwd: "/work/app/pkg", lastActivity: "2026-11-30T12:00:00.000Z", source: "store" },
    { id: "here-newer", title: "here", cwd, lastActivity: "2026-11-30T11:00:00.000Z", source: "store" },
    { id: "here-older", title: "here, before the launch", cwd, lastActivity: "2026-11-30T09:00:00.000Z", source: "store" },
  ];
  const agents = { listSessions: async () => sessions, displayName: (a: string) => a, findSession: async () => sessions[2], kind: () => undefined } as unknown as HandoverAgents;

  it("prefers sessions of this very directory, the newest first", async () => {
    expect((await resolveSession(agents, { agent: "claude", cwd })).session.id).toBe("here-newer");
  });

  it("under baton launch, takes the newest session active since the launch started", async () => {
    const launch = { launchId: "ln_1", pid: 1, agent: "claude", cwd, startedAt: "2026-11-30T10:00:00.000Z" };
    const found = await resolveSession(agents, { agent: "claude", cwd, launch });
    expect(found).toMatchObject({ source: "launch", session: { id: "here-newer" } });
  });

  it("says how to get a session when there is none", async () => {
    const none = { ...agents, listSessions: async () => [] } as HandoverAgents;
    await expect(resolveSession(none, { agent: "claude", cwd })).rejects.toThrow(/No claude session found/);
  });

  it("takes a full id as given for an agent whose store Baton cannot read, never for one it can", async () => {
    const unknown = {
      ...agents,
      kind: getAgentKind,
      findSession: async () => {
        throw new CommandError("No session starts with that");
      },
    } as HandoverAgents;
    expect(await lookupSession(unknown, "goose", cwd, "20261130_7")).toMatchObject({ id: "20261130_7", cwd });
    await expect(lookupSession(unknown, "goose", cwd, "2026")).rejects.toThrow(CommandError);
    await expect(lookupSession(unknown, "claude", cwd, "4f1c2d3e-0000")).rejects.toThrow(/No session/);
  });
});
