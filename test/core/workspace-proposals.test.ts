// An agent never widens its own reach: `register_workspace /etc` from a thread's agent (the demo
// agent calling Baton's MCP tool with the token Baton gave it) is refused under the default
// `workspaces.allow_outside_roots: never`, and under `confirm` becomes a proposal in the chat that
// only an allowed person's button turns into a workspace. Every tool is checked per token kind
// against the one table (src/mcp/access.ts) at the MCP wire.
import { mkdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterEach, describe, expect, it } from "vitest";
import { startTestBaton, type TestBaton } from "../support/harness.js";
import { TestPlatform } from "../support/test-platform.js";
import { auditEvents, callTool, httpClient, removeTempDirs, tempDir } from "../pickup/helpers.js";
import { TOOL_ACCESS, type TokenKind } from "../../src/mcp/access.js";
import type { McpCaller } from "../../src/core/tool-calls.js";

/** Every tool: the access table names each one (its type requires it). */
const TOOL_NAMES = Object.keys(TOOL_ACCESS) as Array<keyof typeof TOOL_ACCESS>;

const TURN_MS = 30_000;
const running: TestBaton[] = [];
const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  for (const b of running.splice(0)) await b.stop({ cleanup: true });
  removeTempDirs();
});

async function start(options: { root: string; outside?: "never" | "confirm"; dataDir?: string; edits?: boolean }) {
  const platform = new TestPlatform("test", { edits: options.edits ?? true });
  const workspaces: Record<string, unknown> = { roots: [options.root], default: options.root };
  if (options.outside) workspaces.allow_outside_roots = options.outside;
  const baton = await startTestBaton({ adapters: [platform], dataDir: options.dataDir, config: { workspaces } });
  running.push(baton);
  return { platform, baton, core: baton.daemon.core };
}

/** An MCP token of the given kind, issued the way Baton issues its agents' tokens. */
function tokenFor(baton: TestBaton, caller: McpCaller): string {
  const endpoint = (baton.daemon.core.mcp as unknown as { endpoint: { tokens: { issue(c: McpCaller): { token: string } } } }).endpoint;
  return endpoint.tokens.issue(caller).token;
}

const PROBE = `demo:mcp register_workspace ${JSON.stringify({ cwd: "/etc", name: "etcws" })}`;

describe("workspaces an agent asks for", () => {
  it("by default (allow_outside_roots: never) the thread's agent asking for /etc is refused, and nothing is allowed", async () => {
    const root = tempDir("baton-ws-");
    const { platform, core } = await start({ root });
    const route = platform.route("c1");
    await platform.say(route, PROBE);
    await platform.waitFor(route, /register_workspace error: \/etc is outside Baton's allowed workspaces .*allow_outside_roots: never/, TURN_MS);
    expect(core.registry.registeredWorkspaces()).toEqual([]);
    const other = platform.route("c2");
    await platform.say(other, "/workspace --switch etcws");
    await platform.waitFor(other, /No workspace named "etcws"/);
    await platform.say(other, "/workspace --switch /etc");
    await platform.waitFor(other, /outside the allowed workspace roots/);
    expect(core.registry.threadForRoute(other)).toBeUndefined();
  });

  it("with allow_outside_roots: confirm it is a proposal with buttons; only an allowed person's press allows it, and it stays after a restart", async () => {
    const root = tempDir("baton-ws-");
    const first = await start({ root, outside: "confirm" });
    const { platform, core, baton } = first;
    const route = platform.route("c1");
    await platform.say(route, PROBE);
    await platform.waitFor(route, /register_workspace: Proposed \/etc as workspace "etcws"/, TURN_MS);
    const proposal = await platform.waitFor(route, (m) => m.text.includes("The agent proposes a workspace") && !!m.buttons);
    const [allow, decline] = proposal.buttons![0];
    expect([allow.label, decline.label]).toEqual(["Allow", "Decline"]);

    // A proposal allows nothing yet.
    const other = platform.route("c2");
    await platform.say(other, "/workspace --switch /etc");
    await platform.waitFor(other, /outside the allowed workspace roots/);
    // A stranger's press changes nothing.
    const refused = await platform.press(route, allow.id, { id: "test:mallory", name: "Mallory" });
    expect(refused.ok).toBe(false);
    expect(await core.workspaces.isAllowed("/etc")).toBe(false);

    expect(await platform.press(route, allow.id)).toEqual({ ok: true, text: "Allowed" });
    await platform.waitFor(route, /✅ Allowed as `etcws` — by Alice/);
    expect(await platform.press(route, allow.id)).toMatchObject({ ok: false });
    await platform.say(other, "/workspace --switch etcws");
    await platform.waitFor(other, /📁 New thread `th_\w+` in/);
    expect(core.registry.threadForRoute(other)?.workspace).toBe("/etc");
    const audits = auditEvents(baton.dataDir).filter((e) => e.action === "workspace_proposal");
    expect(audits.map((e) => e.outcome)).toEqual(["proposed", "confirmed"]);
    expect(audits[1]).toMatchObject({ user: "test:alice", detail: "/etc" });

    // Kept across a restart; and a config back at `never` makes the roots a ceiling again.
    const dataDir = baton.dataDir;
    await baton.daemon.stop();
    running.length = 0;
    const again = await start({ root, outside: "confirm", dataDir });
    expect(await again.core.workspaces.isAllowed("/etc")).toBe(true);
    await again.baton.daemon.stop();
    running.length = 0;
    const strict = await start({ root, dataDir });
    expect(await strict.core.workspaces.isAllowed("/etc")).toBe(false);
  });

  it("Decline allows nothing; inside the roots the agent only names a directory", async () => {
    const root = tempDir("baton-ws-");
    const inner = join(root, "api");
    mkdirSync(inner);
    const { platform, core } = await start({ root, outside: "confirm", edits: false });
    const route = platform.route("c1");
    await platform.say(route, PROBE);
    const proposal = await platform.waitFor(route, (m) => !!m.buttons && m.text.includes("proposes"), TURN_MS);
    expect(await platform.press(route, proposal.buttons![0][1].id, { id: "test:bob", name: "Bob" })).toEqual({ ok: true, text: "Declined" });
    // Without edits the decision follows as a message of its own.
    await platform.waitFor(route, /🚫 Declined — by Bob/);
    expect(await core.workspaces.isAllowed("/etc")).toBe(false);

    await platform.say(route, `demo:mcp register_workspace ${JSON.stringify({ cwd: inner, name: "api" })}`);
    await platform.waitFor(route, /register_workspace: Named .*api" /, TURN_MS);
    const other = platform.route("c2");
    await platform.say(other, "/workspace --switch api");
    await platform.waitFor(other, /📁 New thread `th_\w+` in/);
    expect(core.registry.threadForRoute(other)?.workspace).toBe(realpathSync(inner));
  });
});

describe("what each token kind may call", () => {
  const KINDS: Array<{ kind: TokenKind; caller: (thread: string) => McpCaller | "terminal" }> = [
    { kind: "thread", caller: (thread) => ({ machine: "local", thread }) },
    { kind: "subagent", caller: (thread) => ({ machine: "local", thread, subagent: "alpha" }) },
    { kind: "terminal", caller: () => "terminal" },
  ];

  it("lists exactly the tools of the table per kind, and refuses every other tool when called anyway", async () => {
    const root = tempDir("baton-ws-");
    const { baton } = await start({ root });
    for (const { kind, caller } of KINDS) {
      const c = caller("th_nothread");
      const client = await httpClient(baton.dataDir, ...(c === "terminal" ? [] : [tokenFor(baton, c)]));
      clients.push(client);
      const listed = (await client.listTools()).tools.map((t) => t.name).sort();
      const expected = TOOL_NAMES.filter((name) => TOOL_ACCESS[name][kind] !== "no").sort();
      expect({ kind, listed }).toEqual({ kind, listed: expected });
      for (const name of TOOL_NAMES.filter((n) => TOOL_ACCESS[n][kind] === "no")) {
        const answer = await callTool(client, name, name === "prepare_handover" ? { cwd: root, agent_kind: "demo" } : name === "register_workspace" ? { cwd: root } : {});
        expect({ kind, name, isError: answer.isError }).toEqual({ kind, name, isError: true });
      }
    }
  });

  it("register_workspace outside the roots widens nothing for any kind: a terminal is told to use the config, a subagent is refused", async () => {
    const root = tempDir("baton-ws-");
    const outside = tempDir("baton-outside-");
    const { baton, core } = await start({ root, outside: "confirm" });
    const terminal = await httpClient(baton.dataDir);
    clients.push(terminal);
    const fromTerminal = await callTool(terminal, "register_workspace", { cwd: outside, name: "scratch" });
    expect(fromTerminal.isError).toBe(true);
    expect(fromTerminal.text).toContain("An agent cannot allow it");
    expect(fromTerminal.text).toContain("workspaces.roots");
    // Inside a root a terminal names it, as before.
    const inside = await callTool(terminal, "register_workspace", { cwd: root, name: "home" });
    expect(inside.data).toMatchObject({ status: "registered", name: "home" });

    const sub = await httpClient(baton.dataDir, tokenFor(baton, { machine: "local", thread: "th_x", subagent: "alpha" }));
    clients.push(sub);
    expect((await callTool(sub, "register_workspace", { cwd: outside })).isError).toBe(true);
    // A thread's agent whose thread has no chat to ask is refused too.
    const orphan = await httpClient(baton.dataDir, tokenFor(baton, { machine: "local", thread: "th_gone" }));
    clients.push(orphan);
    const fromOrphan = await callTool(orphan, "register_workspace", { cwd: outside });
    expect(fromOrphan.isError).toBe(true);
    expect(fromOrphan.text).toContain("no chat of this thread has buttons");
    expect(await core.workspaces.isAllowed(outside)).toBe(false);
  });
});
