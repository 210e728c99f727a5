// Adding an agent product touches one folder: here a fictional product, "Acme Agent", is one
// descriptor object (what its src/agents/products/acme/index.ts would export) added to the one list,
// and Baton finds it everywhere it reads products: the chat kinds, /handover in a running Baton,
// `baton launch` and `baton setup`, the handoff CLI's stores, the session-id rules and the product
// contract every real product runs. A guard keeps it that way: no file outside src/agents/products/
// names a product by its id.
import { mkdirSync, readdirSync, readFileSync, renameSync } from "node:fs";
import path from "node:path";
import { Command } from "commander";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { agentKinds, getAgentKind, PRODUCTS, type AgentProduct } from "../../../src/agents/products/index.js";
import { UUID_ID } from "../../../src/agents/products/kit/ids.js";
import { batonEnv, batonMcpServer } from "../../../src/agents/products/kit/launch.js";
import { jsoncStep, markdownCommand, mcpCommand, writeFileStep } from "../../../src/agents/products/kit/setup.js";
import { isValidSessionId } from "../../../src/agents/runtimes/session-ids.js";
import { listSessions } from "../../../src/agents/stores/index.js";
import type { StoreReading } from "../../../src/agents/stores/types.js";
import { DEMO_AGENT_ENTRY } from "../../../src/kernel/install.js";
import { registerHandoverCommands } from "../../../src/handoff/cli.js";
import { registerHandoffCommand } from "../../../src/handoff/sessions/cli.js";
import { planLaunch } from "../../../src/handoff/launch/plan.js";
import { planSetup } from "../../../src/handoff/setup/plan.js";
import { demoFixture } from "../../fakes/stores/jsonl-stores.js";
import { startTestBaton, type TestBaton } from "../../support/harness.js";
import { TestPlatform } from "../../support/test-platform.js";
import { testTempDir } from "../../support/temp.js";
import { runProductContract } from "./contract.js";

vi.setConfig({ testTimeout: 30_000 });

const SESSION = "0190c0de-1234-7abc-8def-0123456789ab";

/** Acme keeps its sessions in the demo agent's format (so the test can reuse a reader), in its own place. */
async function acmeReader(): Promise<StoreReading> {
  const { demoReader } = await import("../../../src/agents/products/demo/store.js");
  return { ...demoReader, list: async (ctx) => (await demoReader.list(ctx)).map((s) => ({ ...s, runtime: "acme", native: undefined })) };
}

const acme: AgentProduct = {
  id: "acme",
  label: "Acme Agent",
  aliases: ["acme-cli"],
  executable: "acme",
  installHint: "npm install -g acme-agent",
  unsafeEnv: ["ACME_AUTO_APPROVE"],
  askEnv: { ACME_MODE: "ask" },
  approvalBypass: ["--no-ask", ["--mode", "auto-approve"]],
  sessionId: UUID_ID,
  // Its ACP side is the bundled demo agent, so a running Baton can drive it.
  chat: { acpCommand: () => ({ command: process.execPath, args: [DEMO_AGENT_ENTRY] }), autoOrder: 99 },
  terminal: { resumeArgs: (s) => ["--resume", s.id], newArgs: (p) => ["--ask", p] },
  store: { location: (env, home) => path.join(env.ACME_HOME || path.join(home, ".acme"), "sessions"), load: acmeReader },
  launch: (userArgs, ctx) => ({ command: "acme", args: ["--mcp-server", JSON.stringify(batonMcpServer("acme", ctx)), ...userArgs], env: batonEnv("acme", ctx), files: [] }),
  setup: async (ctx) => {
    const dir = path.join(ctx.home, ".acme");
    const mcp = mcpCommand(ctx);
    return [
      jsoncStep(path.join(dir, "settings.json"), "mcpServers", "baton", { command: mcp.command, args: mcp.args }),
      writeFileStep(path.join(dir, "commands", "handover.md"), markdownCommand("acme")),
    ];
  },
};

/** The demo agent's fixture store, moved to where Acme keeps its sessions. */
function acmeFixture() {
  const f = demoFixture();
  const home = f.opts.home!;
  mkdirSync(path.join(home, ".acme"), { recursive: true });
  renameSync(path.join(home, ".baton", "demo-agent", "sessions"), path.join(home, ".acme", "sessions"));
  return { ...f, runtime: "acme", nativeArgs: ["--resume", f.main.id] };
}

beforeAll(() => {
  PRODUCTS.push(acme);
});
afterAll(() => {
  PRODUCTS.splice(PRODUCTS.indexOf(acme), 1);
});

describe("a fictional product added as one descriptor", () => {
  it("is a chat kind, with its unsafe environment and asking mode", () => {
    expect(agentKinds().map((k) => k.id)).toContain("acme");
    expect(getAgentKind("acme")).toMatchObject({ displayName: "Acme Agent", unsafeEnv: ["ACME_AUTO_APPROVE"], askEnv: { ACME_MODE: "ask" } });
  });

  it("is offered by `baton launch`, `baton setup` and the handoff CLI, which take it", async () => {
    const program = new Command();
    registerHandoverCommands(program);
    registerHandoffCommand(program);
    const help = (name: string) => program.commands.find((c) => c.name() === name)!;
    expect(help("launch").helpInformation()).toContain("claude, codex, opencode, gemini, qwen, demo or acme");
    expect(help("setup").helpInformation()).toContain("claude, codex, gemini or acme");
    const list = help("handoff").commands.find((c) => c.name() === "list")!;
    expect(list.helpInformation().replace(/\s+/g, " ")).toContain("demo, acme)");

    const ctx = { dataDir: testTempDir("baton-acme-data-"), launchId: "ln_0123abcd", env: {} };
    expect(planLaunch("acme", ["--verbose"], ctx)).toMatchObject({ command: "acme", env: { BATON_AGENT_KIND: "acme" } });
    expect(() => planLaunch("acme", ["--mode=auto-approve"], ctx)).toThrow(/approvals turned off/);
    const home = testTempDir("baton-acme-home-");
    for (const step of await planSetup("acme", { home, env: { HOME: home, PATH: "/usr/bin:/bin" } })) step.apply();
    expect(JSON.parse(readFileSync(path.join(home, ".acme", "settings.json"), "utf8")).mcpServers.baton.args.at(-1)).toBe("mcp");
  });

  it("has its stores listed and its ids checked, by its id or its alias", async () => {
    const f = acmeFixture();
    const { sessions } = await listSessions({ ...f.opts, runtime: "acme-cli" });
    expect(sessions.map((s) => s.id)).toEqual([f.main.id, f.other.id]);
    expect(isValidSessionId("acme", SESSION)).toBe(true);
    expect(isValidSessionId("acme", "--no-ask")).toBe(false);
  });

  describe("meets the product contract", () => runProductContract(acme, { store: acmeFixture, settings: { ".acme/settings.json": '{\n  // mine\n  "theme": "dark"\n}\n' }, keeps: ["// mine"] }));

  describe("in a running Baton", () => {
    let baton: TestBaton | undefined;
    afterAll(async () => baton?.stop({ cleanup: true }));

    it("/handover shows its own resume command and the same under `baton launch`", async () => {
      const root = testTempDir("baton-acme-ws-");
      const platform = new TestPlatform();
      baton = await startTestBaton({ adapters: [platform], config: { workspaces: { roots: [root], default: root } } });
      const route = platform.route("phone");
      await baton.daemon.core.registry.create({ workspace: root, agent: "acme", session: SESSION }, route);
      await platform.say(route, "/handover");
      const answer = await platform.waitFor(route, /Continue this session in a terminal/);
      expect(answer.text).toContain(`cd ${root} && env -u ACME_AUTO_APPROVE ACME_MODE=ask acme --resume ${SESSION}`);
      expect(answer.text).toContain(`baton launch acme -- --resume ${SESSION}`);
    });
  });
});

describe("one folder per product", () => {
  it("no file outside src/agents/products/ names a product by its id", () => {
    const src = path.resolve(import.meta.dirname, "../../../src");
    const ids = PRODUCTS.filter((p) => p !== acme && p.id !== "demo").map((p) => p.id);
    const named = new RegExp(`["'\`](${ids.join("|")})["'\`]`);
    const hits: string[] = [];
    const walk = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) {
          if (full !== path.join(src, "agents", "products")) walk(full);
        } else if (entry.name.endsWith(".ts")) {
          readFileSync(full, "utf8")
            .split("\n")
            .forEach((line, i) => {
              if (named.test(line) && !/^\s*(\/\/|\/?\*)/.test(line)) hits.push(`${path.relative(src, full)}:${i + 1}: ${line.trim()}`);
            });
        }
      }
    };
    walk(src);
    expect(hits).toEqual([]);
  });
});
