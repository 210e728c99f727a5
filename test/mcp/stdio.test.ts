// Terminal → chat over the real path: the official MCP client spawns `baton mcp`, which forwards
// to the running daemon; /pickup on the test platform then continues the same demo session.
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { INVALID_CODE_TEXT } from "../../src/pickup/service.js";
import { auditEvents, callTool, codeIn, serviceOf, stdioClient, tempDir, terminalDemoSession, AGENT_TURN_MS, handoverTestBaton } from "../pickup/helpers.js";

// These tests drive real agent and CLI processes; a machine busy with other test runs is slow.
vi.setConfig({ testTimeout: 90_000 });

const t = handoverTestBaton();

describe("terminal → chat handover through `baton mcp`", () => {
  it("prepare_handover, then /pickup continues the same session; used, expired and wrong codes all fail alike", async () => {
    const root = tempDir("baton-ws-");
    const platform = await t.start(root);
    const session = terminalDemoSession(t.baton!.dataDir, root, ["alpha", "beta"]);
    t.client = await stdioClient(t.baton!.dataDir, { cwd: root });

    // No session id given: the newest demo session in this cwd is found.
    const prepared = await callTool(t.client, "prepare_handover", { cwd: root, agent_kind: "demo" });
    expect(prepared.isError).toBe(false);
    expect(prepared.text).toMatch(/\/pickup [A-Z2-9]{4}/);
    expect(prepared.text).toContain("within 2 minutes");
    expect(prepared.data).toMatchObject({ session_id: session, agent_kind: "demo", cwd: root });
    const code = codeIn(prepared.text);

    const route = platform.route("phone");
    const earlier = await t.baton!.daemon.core.registry.create({ workspace: root, agent: "demo" }, route);
    await platform.say(route, `/pickup ${code.toLowerCase()}`);
    const notice = await platform.waitFor(route, new RegExp(`Picked up Baton demo agent session \`${session.slice(0, 8)}\` in \`${root}\`\\. Send a message to continue\\.`));
    expect(notice.text).toContain(`This chat left thread \`${earlier.id}\`; it stays open`);
    expect(t.baton!.daemon.core.registry.get(earlier.id)?.open).toBe(true);
    expect(t.baton!.daemon.core.registry.threadForRoute(route)?.session).toBe(session);

    await platform.say(route, "recall");
    await platform.waitFor(route, new RegExp(`Earlier prompts of session ${session}:\\n1\\. alpha\\n2\\. beta`), AGENT_TURN_MS);

    // The same code again, from another chat: one-shot.
    const other = platform.route("laptop");
    await platform.say(other, `/pickup ${code}`, { id: "test:bob", name: "Bob" });
    await platform.waitFor(other, (m) => m.text.includes(INVALID_CODE_TEXT));
    expect(t.baton!.daemon.core.registry.threadForRoute(other)).toBeUndefined();

    // Expired: the service's clock moves past the TTL.
    const late = codeIn((await callTool(t.client, "prepare_handover", { cwd: root, agent_kind: "demo", session_id: session.slice(0, 8) })).text);
    const clock = serviceOf(t.baton!).codes.clock;
    const realNow = clock.now();
    vi.spyOn(clock, "now").mockReturnValue(realNow + 121_000);
    await platform.say(other, `/pickup ${late}`, { id: "test:bob", name: "Bob" });
    await platform.waitFor(other, (m) => m.text.includes(INVALID_CODE_TEXT) && platform.on(other).filter((x) => x.text.includes(INVALID_CODE_TEXT)).length === 2);
    vi.restoreAllMocks();

    // Wrong: a code nobody issued.
    await platform.say(other, "/pickup ZZZZ", { id: "test:bob", name: "Bob" });
    await platform.waitFor(other, () => platform.on(other).filter((x) => x.text.includes(INVALID_CODE_TEXT)).length === 3);
    expect(platform.transcript(other)).not.toMatch(/Picked up/);

    // Every attempt is audited with platform, user, route and outcome.
    const audits = auditEvents(t.baton!.dataDir).filter((e) => e.action === "pickup");
    expect(audits.map((e) => e.outcome)).toEqual(["attached", "invalid", "invalid", "invalid"]);
    expect(audits[0]).toMatchObject({ platform: "test", user: "test:alice", route, session });
    expect(audits[1]).toMatchObject({ platform: "test", user: "test:bob", route: other });
  });

  it("get_session_id resolves prefixes and finds the newest session; refusals say what to do", async () => {
    const root = tempDir("baton-ws-");
    const outside = tempDir("baton-outside-");
    const platform = await t.start(root);
    const older = terminalDemoSession(t.baton!.dataDir, root, ["old"]);
    await new Promise((r) => setTimeout(r, 20));
    const newer = terminalDemoSession(t.baton!.dataDir, root, ["new"]);
    t.client = await stdioClient(t.baton!.dataDir, { cwd: root, env: { BATON_AGENT_KIND: "demo" } });

    // agent_kind and cwd come from the environment `baton launch` sets and the working directory.
    expect((await callTool(t.client, "get_session_id", {})).data).toMatchObject({ session_id: newer, source: "newest" });
    expect((await callTool(t.client, "get_session_id", { session_id: older.slice(0, 6) })).data).toMatchObject({ session_id: older, source: "given" });
    const tooShort = await callTool(t.client, "get_session_id", { session_id: older.slice(0, 3) });
    expect(tooShort.isError).toBe(true);

    const refused = await callTool(t.client, "prepare_handover", { cwd: outside, agent_kind: "demo" });
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain("outside Baton's allowed workspaces");
    expect(refused.text).toContain("An agent cannot allow it");
    expect(refused.text).toContain("workspaces.roots");
    expect((await callTool(t.client, "prepare_handover", { cwd: root, agent_kind: "demo" })).isError).toBe(false);
    expect((await callTool(t.client, "prepare_handover", { cwd: root, agent_kind: "nope" })).text).toContain('Unknown agent kind "nope"');

    // A terminal's agent cannot widen the roots either; inside them it names a directory.
    const outsideAsked = await callTool(t.client, "register_workspace", { cwd: outside, name: "scratch" });
    expect(outsideAsked.isError).toBe(true);
    expect(outsideAsked.text).toContain("workspaces.roots");
    const inner = join(root, "scratch");
    mkdirSync(inner);
    const registered = await callTool(t.client, "register_workspace", { cwd: inner, name: "scratch" });
    expect(registered.isError).toBe(false);
    expect(registered.data).toMatchObject({ cwd: inner, name: "scratch" });
    // The name works in chat too.
    const desk = platform.route("desk");
    await platform.say(desk, "/workspace");
    await platform.waitFor(desk, /\*\*scratch\*\* `[^`]*`/);
    await platform.say(desk, "/workspace --switch scratch");
    await platform.waitFor(desk, /📁 New thread `th_\w+` in `[^`]*`/);
    expect(t.baton!.daemon.core.registry.threadForRoute(desk)!.workspace).toBe(inner);
    terminalDemoSession(t.baton!.dataDir, inner, ["elsewhere"]);
    const prepared = await callTool(t.client, "prepare_handover", { cwd: inner, agent_kind: "demo" });
    expect(prepared.isError).toBe(false);

    // The directory disappears before the pickup: nothing is resumed anywhere else.
    rmSync(inner, { recursive: true });
    const route = platform.route("phone");
    await platform.say(route, `/pickup ${codeIn(prepared.text)}`);
    await platform.waitFor(route, /no longer exists, so it was not picked up and nothing was resumed elsewhere/);
    expect(t.baton!.daemon.core.registry.threadForRoute(route)).toBeUndefined();
  });

  it("answers with how to start Baton when no daemon runs", async () => {
    const empty = tempDir("baton-nodaemon-");
    t.client = await stdioClient(empty, { cwd: empty });
    const tools = await t.client.listTools();
    expect(tools.tools.map((t) => t.name).sort()).toEqual(["get_session_id", "prepare_handover", "register_workspace"]);
    const answer = await callTool(t.client, "prepare_handover", { cwd: empty, agent_kind: "demo" });
    expect(answer.isError).toBe(true);
    expect(answer.text).toContain("Baton is not running");
    expect(answer.text).toContain("baton start");
  });
});
