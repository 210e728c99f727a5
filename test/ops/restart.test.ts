// Restart without losing work, in-process: a stop drains (running turns get shutdown_grace and
// finish as usual), what is still running then is cancelled and said so, its approvals expire in
// the chat, and prompts that were waiting run after the next start. Reload applies live sections.
import { stringify } from "yaml";
import { afterEach, describe, expect, it } from "vitest";
import { parseConfigText } from "../../src/config/load.js";
import { startTestBaton, ALLOWED_TEST_USERS, type TestBaton } from "../support/harness.js";
import { TestPlatform } from "../support/test-platform.js";

const running: TestBaton[] = [];
afterEach(async () => {
  for (const b of running.splice(0)) await b.stop({ cleanup: true }).catch(() => undefined);
});

async function start(platform: TestPlatform, config: Record<string, unknown> = {}, dataDir?: string): Promise<TestBaton> {
  const baton = await startTestBaton({ adapters: [platform], config, dataDir });
  running.push(baton);
  return baton;
}

const bob = { id: "test:bob", name: "Bob" };

describe("stopping with a grace period", () => {
  it("lets a running turn finish; a prompt sent during the drain is kept and runs after the restart", async () => {
    const platform = new TestPlatform();
    const baton = await start(platform, { shutdown_grace: "20s" });
    const route = platform.route("drain");
    const other = platform.route("drain-other");
    await platform.say(route, "demo:slow 2");
    await platform.waitFor(route, /step 1/);
    const startedAt = Date.now();
    const stopping = baton.daemon.stop();
    await platform.say(other, "sent during the drain", bob);
    await platform.waitFor(other, /Baton is restarting\. Your message is kept/);
    await stopping;
    expect(Date.now() - startedAt).toBeLessThan(20_000);
    expect(platform.transcript(route)).toMatch(/Done after \d+ steps\./);
    expect(platform.transcript(route)).not.toMatch(/cancelled|Stopped/);
    expect(platform.transcript(other)).not.toMatch(/you said/);
    running.splice(running.indexOf(baton), 1);

    const again = new TestPlatform();
    await start(again, {}, baton.dataDir);
    await again.waitFor(other, /Baton is back: running the message queued before it restarted/);
    await again.waitFor(other, /Turn 1 of session .*: you said "sent during the drain"/, 20_000);
  });

  it("a queued prompt survives a restart; after the grace the running turn is cancelled and its approval expires", async () => {
    const platform = new TestPlatform();
    const baton = await start(platform, { shutdown_grace: "1s" });
    const route = platform.route("cut");
    await platform.say(route, "demo:permission");
    const approval = await platform.waitFor(route, (m) => !!m.buttons);
    await platform.say(route, "kept for later");
    await platform.waitFor(route, /Queued behind 1 turn/);
    const thread = baton.daemon.core.registry.threadForRoute(route)!;
    // Kept in the registry once its event is on disk.
    for (let waited = 0; thread.queued.length === 0 && waited < 5_000; waited += 20) await new Promise((r) => setTimeout(r, 20));
    expect(thread.queued.map((q) => q.prompt)).toEqual([[{ type: "text", text: "kept for later" }]]);
    await baton.daemon.stop();
    expect(approval.text).toMatch(/Expired: Baton restarted before this was answered/);
    expect(approval.buttons ?? []).toEqual([]);
    expect(platform.transcript(route)).toMatch(/the running turn did not finish within 1 s and was cancelled/);
    expect(platform.transcript(route)).not.toMatch(/you said "kept for later"/);
    // A button pressed after the restart finds nothing to answer.
    running.splice(running.indexOf(baton), 1);

    const again = new TestPlatform();
    const restarted = await start(again, {}, baton.dataDir);
    await again.waitFor(route, /you said "kept for later"/, 20_000);
    const outcome = await again.press(route, approval.buttons?.[0]?.[0]?.id ?? `ap:gone:0`);
    expect(outcome.ok).toBe(false);
    await restarted.daemon.core.supervisor.drained(thread.id);
    expect(restarted.daemon.core.registry.get(thread.id)!.queued).toEqual([]);
  });
});

describe("reload", () => {
  it("applies the access list, agents and rendering live and names what needs a restart", async () => {
    const platform = new TestPlatform();
    const baton = await start(platform, { access: { allow: ["test:alice"] } });
    const route = platform.route("reload");
    await platform.say(route, "hello", bob);
    await platform.waitFor(route, /not allowed.*test:bob/);
    const next = {
      agents: { default: "demo", profiles: { quick: { agent: "demo" } } },
      access: { allow: [...ALLOWED_TEST_USERS] },
      rendering: { flush_debounce_ms: 20, min_edit_gap_ms: 50 },
      workspaces: { roots: ["/tmp"], default: process.cwd() },
      handover: { code_ttl: "30s" },
      ops: { listen: "off" },
      platforms: { web: { listen: "127.0.0.1:0" } },
    };
    const report = baton.daemon.reload(() => parseConfigText(stringify(next), "reloaded.yaml", {}));
    expect(report).toMatchObject({ ok: true, restartNeeded: ["handover", "platforms.web"] });
    expect(report.applied).toEqual(expect.arrayContaining(["access", "agents", "rendering", "workspaces", "shutdown_grace"]));
    await platform.say(route, "hello again", bob);
    await platform.waitFor(route, /you said "hello again"/, 20_000);
    expect(baton.daemon.core.agents.isHostName("quick")).toBe(true);

    const broken = baton.daemon.reload(() => parseConfigText("access:\n  allow: nobody\n", "broken.yaml", {}));
    expect(broken).toMatchObject({ ok: false, applied: [] });
    expect(broken.error).toMatch(/broken\.yaml:2: access\.allow/);
    // Nothing changed: bob is still let in.
    const before = platform.on(route).length;
    await platform.say(route, "/status", bob);
    const answer = await platform.waitFor(route, (m) => platform.on(route).indexOf(m) >= before);
    expect(answer.text).not.toMatch(/not allowed/);
    expect(baton.daemon.snapshot().lastReload).toMatchObject({ ok: false });
  });
});
