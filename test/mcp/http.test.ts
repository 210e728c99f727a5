// The daemon's Streamable HTTP endpoint with its bearer token, brute force against /pickup, and
// one thread shared by two chats.
import { readFileSync, statSync } from "node:fs";
import { describe, expect, it, vi } from "vitest";
import { waitUntil } from "../support/harness.js";
import { generateCode } from "../../src/pickup/codes.js";
import { endpointPath, readEndpoint, tokenPath } from "../../src/handoff/discovery.js";
import { INVALID_CODE_TEXT } from "../../src/pickup/service.js";
import { callTool, codeIn, httpClient, tempDir, terminalDemoSession, AGENT_TURN_MS, handoverTestBaton } from "../pickup/helpers.js";

// These tests drive real agent and CLI processes; a machine busy with other test runs is slow.
vi.setConfig({ testTimeout: 90_000 });

const t = handoverTestBaton();

describe("handover over Streamable HTTP", () => {
  it("works with the token from the data dir and is refused without it", async () => {
    const root = tempDir("baton-ws-");
    const platform = await t.start(root);
    const endpoint = readEndpoint(t.baton!.dataDir)!;
    expect(endpoint.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(statSync(tokenPath(t.baton!.dataDir)).mode & 0o777).toBe(0o600);
    expect(statSync(endpointPath(t.baton!.dataDir)).mode & 0o777).toBe(0o600);

    await expect(httpClient(t.baton!.dataDir, null)).rejects.toThrow();
    await expect(httpClient(t.baton!.dataDir, "not-the-token")).rejects.toThrow();
    const raw = await fetch(endpoint.url, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(raw.status).toBe(401);
    const token = readFileSync(tokenPath(t.baton!.dataDir), "utf8").trim();
    expect((await fetch(endpoint.url, { headers: { authorization: `Bearer ${token}` } })).status).toBe(405); // stateless: POST only
    expect((await fetch(endpoint.url.replace(/\/mcp$/, "/other"), { method: "POST", headers: { authorization: `Bearer ${token}` } })).status).toBe(404);

    const session = terminalDemoSession(t.baton!.dataDir, root, ["over http"]);
    t.client = await httpClient(t.baton!.dataDir);
    const prepared = await callTool(t.client, "prepare_handover", { cwd: root, agent_kind: "demo", session_id: session });
    expect(prepared.isError).toBe(false);
    const route = platform.route("phone");
    await platform.say(route, `/pickup ${codeIn(prepared.text)}`);
    await platform.waitFor(route, /Picked up Baton demo agent session/);
    await platform.say(route, "recall");
    await platform.waitFor(route, /1\. over http/, AGENT_TURN_MS);
  });
});

describe("concurrent pickups", () => {
  it("of one code from two chats at once: exactly one wins", async () => {
    const root = tempDir("baton-ws-");
    const platform = await t.start(root);
    const session = terminalDemoSession(t.baton!.dataDir, root, ["race"]);
    t.client = await httpClient(t.baton!.dataDir);
    for (let round = 0; round < 5; round++) {
      const code = codeIn((await callTool(t.client, "prepare_handover", { cwd: root, agent_kind: "demo", session_id: session })).text);
      const a = platform.route(`a${round}`);
      const b = platform.route(`b${round}`);
      await Promise.all([platform.say(a, `/pickup ${code}`), platform.say(b, `/pickup ${code}`, { id: "test:bob", name: "Bob" })]);
      // Both answers are on their way once both messages were handled.
      await waitUntil(() => platform.on(a).length > 0 && platform.on(b).length > 0);
      const won = [a, b].filter((r) => /Picked up/.test(platform.transcript(r)));
      const lost = [a, b].filter((r) => platform.transcript(r).includes(INVALID_CODE_TEXT));
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(1);
    }
  });
});

describe("daemon restart", () => {
  it("clears every pickup code (memory store), while the token stays the same", async () => {
    const root = tempDir("baton-ws-");
    let platform = await t.start(root);
    const dataDir = t.baton!.dataDir;
    const token = readFileSync(tokenPath(dataDir), "utf8");
    const session = terminalDemoSession(dataDir, root, ["before the restart"]);
    t.client = await httpClient(dataDir);
    const code = codeIn((await callTool(t.client, "prepare_handover", { cwd: root, agent_kind: "demo", session_id: session })).text);
    await t.client.close();
    await t.baton!.stop();

    platform = await t.start(root, dataDir);
    expect(readFileSync(tokenPath(dataDir), "utf8")).toBe(token);
    const route = platform.route("phone");
    await platform.say(route, `/pickup ${code}`);
    await platform.waitFor(route, (m) => m.text.includes(INVALID_CODE_TEXT));
    t.client = await httpClient(dataDir);
    expect((await callTool(t.client, "get_session_id", { cwd: root, agent_kind: "demo" })).data).toMatchObject({ session_id: session });
  });
});

describe("pickup brute force", () => {
  it("refuses 1,000 random wrong codes from one sender after 5, while another sender's correct code works", async () => {
    const root = tempDir("baton-ws-");
    const platform = await t.start(root);
    const session = terminalDemoSession(t.baton!.dataDir, root, ["real"]);
    t.client = await httpClient(t.baton!.dataDir);
    const code = codeIn((await callTool(t.client, "prepare_handover", { cwd: root, agent_kind: "demo", session_id: session })).text);

    const attacker = platform.route("attacker");
    const mallory = { id: "test:bob", name: "Mallory" };
    let sent = 0;
    while (sent < 1000) {
      const guess = generateCode();
      if (guess === code) continue;
      await platform.say(attacker, `/pickup ${guess}`, mallory);
      sent++;
    }
    await waitUntil(() => platform.on(attacker).length >= 1000);
    const replies = platform.on(attacker).map((m) => m.text);
    expect(replies).toHaveLength(1000);
    expect(replies.slice(0, 5).every((t) => t.includes(INVALID_CODE_TEXT))).toBe(true);
    expect(replies.slice(5).every((t) => /Too many failed pickups\. Try again in \d+ s\./.test(t))).toBe(true);
    expect(t.baton!.daemon.core.registry.threadForRoute(attacker)).toBeUndefined();

    // Even the right code is refused to the blocked sender; the code stays valid for its owner.
    await platform.say(attacker, `/pickup ${code}`, mallory);
    // Its own answer, the 1,001st (the last one shown before it comes says the same).
    await waitUntil(() => platform.on(attacker).length > 1000);
    expect(platform.on(attacker)[1000].text).toMatch(/Too many failed pickups/);
    const phone = platform.route("phone");
    await platform.say(phone, `/pickup ${code}`);
    await platform.waitFor(phone, /Picked up Baton demo agent session/);
  });
});

describe("one thread, two chats", () => {
  it("a pickup of a session open in one chat attaches a second; both get the output; /close in one leaves the other", async () => {
    const root = tempDir("baton-ws-");
    const platform = await t.start(root);
    const desk = platform.route("desk");
    await platform.say(desk, "hello from the desk");
    await platform.waitFor(desk, /Turn 1 of session/, AGENT_TURN_MS);
    const thread = t.baton!.daemon.core.registry.threadForRoute(desk)!;

    t.client = await httpClient(t.baton!.dataDir);
    const prepared = await callTool(t.client, "prepare_handover", { cwd: root, agent_kind: "demo", session_id: thread.session });
    const phone = platform.route("phone");
    await platform.say(phone, `/pickup ${codeIn(prepared.text)}`);
    const notice = await platform.waitFor(phone, /Picked up/);
    expect(notice.text).toContain(`Also attached: \`${desk}\``);
    expect(t.baton!.daemon.core.registry.threadForRoute(phone)?.id).toBe(thread.id);

    await platform.say(phone, "from the phone");
    await platform.waitFor(phone, /Turn 2 of session .*"from the phone"/, AGENT_TURN_MS);
    await platform.waitFor(desk, /Turn 2 of session .*"from the phone"/, AGENT_TURN_MS);

    await platform.say(desk, "/close");
    await platform.waitFor(desk, /Left thread .* stays open for the 1 other chat/);
    expect(t.baton!.daemon.core.registry.threadForRoute(desk)).toBeUndefined();
    await platform.say(phone, "still here");
    await platform.waitFor(phone, /Turn 3 of session .*"still here"/, AGENT_TURN_MS);
    expect(platform.transcript(desk)).not.toContain("still here");

    // The last chat's /close closes the thread itself.
    await platform.say(phone, "/close");
    await platform.waitFor(phone, /Closed thread/);
    expect(t.baton!.daemon.core.registry.get(thread.id)?.open).toBe(false);
  });
});
