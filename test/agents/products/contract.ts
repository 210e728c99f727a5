// The contract every agent product meets (src/agents/products/<id>/): its chat launch carries no
// approval bypass and removes its unsafe environment; its terminal commands are argument vectors
// (never a shell string) that refuse ids shaped like options; its store reader passes the shared
// reader contract over a store written in its format; `baton setup` run twice over the user's own
// settings files leaves the same files; `baton launch` refuses its bypass flags.
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { AgentProduct } from "../../../src/agents/products/index.js";
import { getAgentKind } from "../../../src/agents/products/index.js";
import { refuseFlags } from "../../../src/agents/products/kit/launch.js";
import { nativeResumeCommand, newSessionCommand, RuntimeRefusal, type LaunchCommand } from "../../../src/agents/runtimes/index.js";
import { loadReader, type StoredSession } from "../../../src/agents/stores/index.js";
import { planInBatonLaunch, planLaunch } from "../../../src/handoff/launch/plan.js";
import type { StoreFixture } from "../../fakes/stores/common.js";
import { runStoreReaderContract } from "../stores/contract.js";
import { testTempDir } from "../../support/temp.js";

/** Flags and values known to turn some agent's approvals off, checked in every vector besides the product's own list. */
const KNOWN_BYPASS: Array<string | [string, string]> = [
  "--yolo",
  "--dangerously-skip-permissions",
  "--allow-dangerously-skip-permissions",
  "--dangerously-bypass-approvals-and-sandbox",
  "--full-auto",
  "--allow-all-tools",
  "--allow-all",
  "--force",
  ["--permission-mode", "bypassPermissions"],
  ["--approval-mode", "yolo"],
  ["--auto-approve", "true"],
  ["--permission-mode", "dangerous"],
];

export interface ProductFixtures {
  /** A store written in the product's format; required when it has a store. */
  store?: () => StoreFixture | Promise<StoreFixture>;
  /** The user's settings files as they may already be (paths relative to HOME), before `baton setup`. */
  settings?: Record<string, string>;
  /** Text of those files that `baton setup` must keep (comments, other servers). */
  keeps?: string[];
  /** Stand-ins for CLIs its setup runs (name → Node script), editing the files the real CLI does. */
  clis?: Record<string, string>;
}

function hasBypass(product: AgentProduct, args: string[]): boolean {
  try {
    refuseFlags([...KNOWN_BYPASS, ...(product.approvalBypass ?? [])], args);
    return false;
  } catch {
    return true;
  }
}

/** A session id the product's own format accepts. */
function sampleId(product: AgentProduct): string {
  const candidates = ["0190c0de-1234-7abc-8def-0123456789ab", "ses_01ABCdef", "session-01"];
  const format = product.sessionId?.pattern;
  return candidates.find((id) => !format || format.test(id)) ?? expect.fail(`${product.id}: add a sample id of its format to the contract`);
}

function sampleSession(product: AgentProduct, id = sampleId(product)): StoredSession {
  return {
    id,
    runtime: product.id,
    title: "Fix the login bug",
    cwd: "/work/project",
    lastActivity: "2026-11-20T10:00:00.000Z",
    file: "/work/store/session",
    counts: { prompts: 1, replies: 1, tools: 0 },
  };
}

/** The environment a command gets: every unsafe variable removed unless an asking mode sets it. */
function expectSafeEnv(product: AgentProduct, cmd: LaunchCommand): void {
  for (const name of product.unsafeEnv ?? []) expect(cmd.env[name], name).toBe(product.askEnv?.[name] ?? null);
  for (const [name, value] of Object.entries(product.askEnv ?? {})) expect(cmd.env[name], name).toBe(value);
}

function expectVector(product: AgentProduct, cmd: LaunchCommand): void {
  expect(cmd.executable).toBe(product.executable);
  expect(cmd.args.every((a) => typeof a === "string")).toBe(true);
  expect(hasBypass(product, cmd.args), cmd.args.join(" ")).toBe(false);
  expectSafeEnv(product, cmd);
}

function filesUnder(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const full = path.join(d, name);
      if (statSync(full).isDirectory()) walk(full);
      else out[path.relative(dir, full)] = readFileSync(full, "utf8");
    }
  };
  walk(dir);
  return out;
}

export function runProductContract(product: AgentProduct, fixtures: ProductFixtures): void {
  descriptorContract(product);
  chatContract(product);
  terminalContract(product);
  storeContract(product, fixtures);
  setupContract(product, fixtures);
  launchContract(product);
  inBatonLaunchContract(product);
}

function descriptorContract(product: AgentProduct): void {
  it("has a descriptor of its own: id, label, executable, install hint when it chats", () => {
    expect(product.id).toMatch(/^[a-z][a-z0-9-]*$/);
    expect(product.label.trim()).not.toBe("");
    expect(product.executable).toMatch(/^[A-Za-z0-9._-]+$/);
    if (product.chat) expect(product.installHint?.trim()).toBeTruthy();
  });
}

function chatContract(product: AgentProduct): void {
  if (product.chat) {
    it("starts over ACP without an approval bypass, its unsafe environment removed and its asking modes set", () => {
      const kind = getAgentKind(product.id)!;
      expect(kind.displayName).toBe(product.label);
      const acp = kind.acpCommand();
      expect(hasBypass(product, acp.args), acp.args.join(" ")).toBe(false);
      expect(kind.unsafeEnv ?? []).toEqual(product.unsafeEnv ?? []);
      for (const [name, value] of Object.entries(product.askEnv ?? {})) expect(kind.askEnv?.[name]).toBe(value);
      const model = kind.modelArgs?.("some-model");
      expect(hasBypass(product, model?.args ?? [])).toBe(false);
    });
  }
}

function terminalContract(product: AgentProduct): void {
  it("reopens and starts sessions with argument vectors (a prompt stays one argument), refusing ids shaped like options", () => {
    const session = sampleSession(product);
    const prompt = 'fix it; rm -rf ~ && echo $(whoami) "quoted" `x`';
    const { notStartable, resumeArgs, newArgs } = product.terminal;
    if (notStartable) {
      expect(() => nativeResumeCommand(session)).toThrow(RuntimeRefusal);
      expect(() => newSessionCommand(product.id, prompt, "/work/project")).toThrow(RuntimeRefusal);
      return;
    }
    if (resumeArgs) {
      const cmd = nativeResumeCommand(session);
      expectVector(product, cmd);
      expect(cmd.args.some((a) => a.includes(session.id))).toBe(true);
      expect(cmd.dir).toBe(session.cwd);
      expect(() => nativeResumeCommand(sampleSession(product, "--dangerously-skip-permissions"))).toThrow(RuntimeRefusal);
      expect(() => nativeResumeCommand({ ...session, native: { ok: true, ref: "--yolo" } })).toThrow(RuntimeRefusal);
    } else {
      expect(() => nativeResumeCommand(session)).toThrow(RuntimeRefusal);
    }
    if (newArgs) {
      const cmd = newSessionCommand(product.id, prompt, "/work/project", ["/data/briefs"]);
      expectVector(product, cmd);
      expect(cmd.args).toContain(prompt);
    } else {
      expect(() => newSessionCommand(product.id, prompt, "/work/project")).toThrow(RuntimeRefusal);
    }
  });
}

function storeContract(product: AgentProduct, fixtures: ProductFixtures): void {
  if (product.store) {
    const store = product.store;
    it("reads its store from a location of its own, its reader in the store registry under its name", async () => {
      expect(fixtures.store, `${product.id} has a store: give it a fixture store (test/fakes/stores)`).toBeDefined();
      expect(path.isAbsolute(store.location({}, "/home/user"))).toBe(true);
      const reader = await loadReader(product.id);
      expect(reader).toMatchObject({ runtime: product.id, label: product.label });
      expect(typeof reader?.list).toBe("function");
    });
    if (fixtures.store) describe("its store reader", () => runStoreReaderContract({ create: fixtures.store! }));
  }
}

function setupContract(product: AgentProduct, fixtures: ProductFixtures): void {
  if (product.setup) {
    it("`baton setup` over the user's own settings: run twice, the same files, their own entries kept", async () => {
      expect(fixtures.settings, `${product.id} has a setup: give the settings files it edits`).toBeDefined();
      const home = testTempDir("baton-product-home-");
      const bin = path.join(home, "bin");
      mkdirSync(bin);
      for (const [name, script] of Object.entries(fixtures.clis ?? {})) writeFileSync(path.join(bin, name), `#!${process.execPath}\n${script}`, { mode: 0o755 });
      for (const [file, text] of Object.entries(fixtures.settings ?? {})) {
        mkdirSync(path.dirname(path.join(home, file)), { recursive: true });
        writeFileSync(path.join(home, file), text);
      }
      const ctx = { home, env: { HOME: home, PATH: `${bin}:/usr/bin:/bin` } };
      const run = async () => {
        for (const step of await product.setup!(ctx)) step.apply();
        return filesUnder(home);
      };
      const once = await run();
      const twice = await run();
      expect(twice).toEqual(once);
      const written = Object.values(once).join("\n");
      for (const kept of fixtures.keeps ?? []) expect(written).toContain(kept);
      expect(written).toContain("prepare_handover");
      expect(Object.keys(once).some((f) => /handover\.(md|toml)$/.test(f))).toBe(true);
    });
  }
}

function launchContract(product: AgentProduct): void {
  if (product.launch) {
    it("`baton launch` refuses its approval-bypass flags and hands its CLI Baton's MCP server", () => {
      const dataDir = testTempDir("baton-product-data-");
      const ctx = { dataDir, launchId: "ln_0123abcd", env: { HOME: dataDir }, geminiSkips: () => undefined };
      expect(product.approvalBypass?.length, `${product.id}: name the flags that turn its approvals off`).toBeGreaterThan(0);
      for (const flag of product.approvalBypass ?? []) {
        expect(() => planLaunch(product.id, typeof flag === "string" ? [flag] : flag, ctx)).toThrow(/approvals turned off/);
      }
      const plan = planLaunch(product.id, ["--user-arg"], ctx);
      expect(plan.command).toBe(product.executable);
      expect(plan.args.at(-1)).toBe("--user-arg");
      expect(hasBypass(product, plan.args)).toBe(false);
      expect(plan.env.BATON_AGENT_KIND).toBe(product.id);
      for (const [name, value] of Object.entries(product.askEnv ?? {})) expect(plan.env[name], name).toBe(value);
      for (const name of product.unsafeEnv ?? []) expect(name in (product.askEnv ?? {}) || plan.unsetEnv?.includes(name), name).toBe(true);
      expect(plan.files.every((f) => f.path.startsWith(dataDir))).toBe(true);
      // In an argument, a per-run file, or a variable the CLI reads its config from.
      expect([...plan.args, ...Object.values(plan.env), ...plan.files.map((f) => f.content)].join("\n")).toContain("mcp");
    });
  }
}

function inBatonLaunchContract(product: AgentProduct): void {
  if (product.launchInBaton) {
    it("`baton launch` in Baton's own terminal refuses arguments it does not take", () => {
      const ctx = { dataDir: "/nonexistent", launchId: "ln_0123abcd", env: {} };
      expect(() => planInBatonLaunch(product.id, ["--yolo"], ctx)).toThrow();
      expect(typeof planInBatonLaunch(product.id, [], ctx)).toBe("function");
    });
  }
}
