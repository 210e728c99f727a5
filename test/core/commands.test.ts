import { afterEach, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { TestPlatform } from "../support/test-platform.js";
import { startTestBaton, type TestBaton } from "../support/harness.js";
import { CLI_ENTRY } from "../../src/kernel/install.js";

let baton: TestBaton | undefined;
afterEach(async () => {
  await baton?.stop({ cleanup: true });
  baton = undefined;
});

async function setup(config: Record<string, unknown> = {}) {
  const platform = new TestPlatform();
  baton = await startTestBaton({
    adapters: [platform],
    config: {
      agents: {
        default: "demo",
        profiles: { quick: { agent: "demo", env: { DEMO_PROFILE: "quick" } }, plain: { agent: "echo", env: { BATON_DEMO_EMBEDDED: "0" } } },
        // A second ACP agent product (the demo agent under another name) for cross-agent switches.
        custom: { echo: { command: process.execPath, args: [CLI_ENTRY, "demo-agent"], display_name: "Echo agent", runtime: "demo" } },
      },
      ...config,
    },
  });
  return { platform, route: platform.route("c1"), core: baton.daemon.core };
}

describe("chat commands", () => {
  it("/help lists the commands and unknown commands never reach the agent", async () => {
    const { platform, route, core } = await setup();
    await platform.say(route, "/help");
    await platform.waitFor(route, /\/pickup CODE/);
    await platform.say(route, "/frobnicate now");
    await platform.waitFor(route, /Unknown command: \/frobnicate — try \/help/);
    expect(core.registry.threadForRoute(route)).toBeUndefined();
  });

  it("// escapes, /agent passes a slash command, /cmd@bot works", async () => {
    const { platform, route } = await setup();
    await platform.say(route, "//compact please");
    await platform.waitFor(route, /you said "\/compact please"/);
    await platform.say(route, "/agent review src");
    await platform.waitFor(route, /you said "\/review src"/);
    await platform.say(route, "/status@baton_bot");
    await platform.waitFor(route, /\*\*Session:\*\* `[0-9a-f-]{36}`/);
  });

  it("/status shows workspace, thread, agent, session, host, routes, approvals and queue", async () => {
    const { platform, route } = await setup();
    await platform.say(route, "/status");
    await platform.waitFor(route, /No thread here yet/);
    await platform.say(route, "hi");
    await platform.waitFor(route, /Turn 1/);
    await baton!.daemon.core.supervisor.drained(baton!.daemon.core.registry.threadForRoute(route)!.id);
    await platform.say(route, "/status");
    const status = await platform.waitFor(route, /\*\*Workspace:\*\*/);
    for (const part of ["**Thread:** `th_", "**Agent:** Baton demo agent", "**Session:** `", "**Host:** idle", `**Routes:** \`${route}\``, "**Approvals pending:** 0", "**Queued prompts:** 0"]) {
      expect(status.text).toContain(part);
    }
  });

  it("queues a prompt sent during a turn and says so", async () => {
    const { platform, route } = await setup();
    await platform.say(route, "demo:tool");
    await platform.say(route, "after the tools");
    await platform.waitFor(route, /Queued behind 1 turn/);
    await platform.waitFor(route, /Both tools ran/);
    await platform.waitFor(route, /Turn 2 of session .*after the tools/);
  });

  it("says so in one notice for prompts sent in a burst, updated as the queue grows (each message spends the chat's rate limit)", async () => {
    const { platform, route, core } = await setup();
    await platform.say(route, "demo:tool");
    for (const n of [1, 2, 3]) await platform.say(route, `queued ${n}`);
    const notice = await platform.waitFor(route, /Queued behind 3 turns/);
    expect(platform.on(route).filter((m) => /Queued behind/.test(m.text))).toEqual([notice]);
    await platform.waitFor(route, /Turn 4 of session .*queued 3/);
    // The answer shows before its turn ends: wait for the end, or the next prompt queues behind it too.
    await core.supervisor.drained(core.registry.threadForRoute(route)!.id);
    // Once turns have run, a prompt queued later gets a notice of its own, below them.
    await platform.say(route, "demo:tool");
    await platform.say(route, "later");
    await platform.waitFor(route, (m) => m !== notice && /Queued behind 1 turn/.test(m.text));
  });

  it("/new closes the thread and starts a fresh session; /close ends it", async () => {
    const { platform, route, core } = await setup();
    await platform.say(route, "one");
    await platform.waitFor(route, /Turn 1/);
    const first = core.registry.threadForRoute(route)!;
    await platform.say(route, "/new");
    await platform.waitFor(route, /New thread `th_/);
    expect(core.registry.get(first.id)!.open).toBe(false);
    await platform.say(route, "two");
    const reply = await platform.waitFor(route, /you said "two"/);
    expect(reply.text).toMatch(/^Turn 1 of session/);
    await platform.say(route, "/close");
    await platform.waitFor(route, /Closed thread/);
    expect(core.registry.threadForRoute(route)).toBeUndefined();
  });

  it("/session lists sessions; --switch takes a 6-char prefix and resumes; an ambiguous prefix lists candidates", async () => {
    const { platform, route, core } = await setup();
    await platform.say(route, "first session prompt");
    await platform.waitFor(route, /Turn 1/);
    const firstSession = core.registry.threadForRoute(route)!.session!;
    await platform.say(route, "/new");
    await platform.waitFor(route, /New thread/);
    await platform.say(route, "second session prompt");
    await platform.waitFor(route, /second session prompt/);
    await platform.say(route, "/session");
    const list = await platform.waitFor(route, /sessions in/);
    expect(list.text).toContain(firstSession.slice(0, 8));

    await platform.say(route, `/session --switch ${firstSession.slice(0, 6)}`);
    await platform.waitFor(route, new RegExp(`continues session \`${firstSession.slice(0, 8)}\``));
    await platform.say(route, "recall");
    await platform.waitFor(route, /Earlier prompts of session[\s\S]*1\. first session prompt/);

    // Two sessions whose ids share a prefix: make them by writing demo sessions with chosen ids.
    const { DemoSessionStore, demoSessionsDir } = await import("../../src/agents/demo/store.js");
    const store = new DemoSessionStore(demoSessionsDir(baton!.dataDir));
    store.create("abcdef01-0000-4000-8000-000000000001", process.cwd());
    store.create("abcdef02-0000-4000-8000-000000000002", process.cwd());
    await platform.say(route, "/session --switch abcdef");
    const ambiguous = await platform.waitFor(route, /matches 2 sessions/);
    expect(ambiguous.text).toContain("abcdef01-0000-4000-8000-000000000001");
    expect(ambiguous.text).toContain("abcdef02-0000-4000-8000-000000000002");
    await platform.say(route, "/session --switch abc");
    await platform.waitFor(route, /at least 6 characters/);
  });

  it("/switch to another profile keeps the thread and the session", async () => {
    const { platform, route, core } = await setup();
    await platform.say(route, "remember me");
    await platform.waitFor(route, /Turn 1/);
    const thread = core.registry.threadForRoute(route)!;
    await platform.say(route, "/switch host demo+quick");
    await platform.waitFor(route, /Switched to Baton demo agent \(profile quick\); the session continues/);
    expect(core.registry.threadForRoute(route)!.id).toBe(thread.id);
    expect(core.registry.get(thread.id)!.profile).toBe("quick");
    await platform.say(route, "recall");
    await platform.waitFor(route, /1\. remember me/);
  });

  it("/switch to another agent starts a new thread from a brief of the old session", async () => {
    const { platform, route, core } = await setup();
    await platform.say(route, "build the parser");
    await platform.waitFor(route, /Turn 1/);
    const old = core.registry.threadForRoute(route)!;
    await platform.say(route, "/switch echo");
    await platform.waitFor(route, /New thread with Echo agent, starting from a brief/);
    const fresh = core.registry.threadForRoute(route)!;
    expect(fresh.id).not.toBe(old.id);
    expect(core.registry.get(old.id)!.open).toBe(true);
    expect(core.registry.get(old.id)!.routes.has(route)).toBe(false);
    expect(fresh.contextTransfers).toHaveLength(1);
    const transfer = fresh.contextTransfers[0];
    expect(transfer.fromSession).toBe(old.session);
    // The new agent's first message carries the brief itself (an embedded resource: an agent whose
    // file tools may not read the brief's path still gets it), names its path, and has the marker.
    const marker = `[baton-handoff from=demo session=${old.session}]`;
    const reply = await platform.waitFor(route, (m) => m.text.startsWith("Turn 1") && m.text.includes(marker));
    expect(reply.text).toContain(transfer.briefPath);
    const { readFileSync } = await import("node:fs");
    const brief = readFileSync(transfer.briefPath, "utf8");
    expect(brief).toContain("build the parser");
    expect(reply.text).toContain(`[embedded ${pathToFileURL(transfer.briefPath).href}, ${brief.length} characters]`);
  });

  it("/switch to another agent waits for a transcript its agent writes a moment after the turn", async () => {
    const { platform, route, core } = await setup();
    await platform.say(route, "rename the config loader");
    await platform.waitFor(route, /Turn 1/);
    const old = core.registry.threadForRoute(route)!;
    await core.supervisor.drained(old.id);
    // Claude Code queues its transcript writes: the file may be missing right after an answer.
    const transcript = join(baton!.dataDir, "demo-agent", "sessions", `${old.session}.jsonl`);
    renameSync(transcript, `${transcript}.later`);
    const writtenLater = setTimeout(() => renameSync(`${transcript}.later`, transcript), 1_000);
    try {
      await platform.say(route, "/switch echo");
      await platform.waitFor(route, /New thread with Echo agent, starting from a brief/);
    } finally {
      clearTimeout(writtenLater);
      if (existsSync(`${transcript}.later`)) renameSync(`${transcript}.later`, transcript);
    }
    const transfer = core.registry.threadForRoute(route)!.contextTransfers[0];
    expect(readFileSync(transfer.briefPath, "utf8")).toContain("rename the config loader");
  });

  it("/switch to an agent without embedded-context support gives it the brief as text", async () => {
    const { platform, route, core } = await setup();
    await platform.say(route, "write the changelog");
    await platform.waitFor(route, /Turn 1/);
    await platform.say(route, "/switch echo plain");
    await platform.waitFor(route, /starting from a brief/);
    const transfer = core.registry.threadForRoute(route)!.contextTransfers[0];
    const reply = await platform.waitFor(route, (m) => m.text.startsWith("Turn 1") && m.text.includes("Contents of file://"));
    expect(reply.text).toContain(`Contents of ${pathToFileURL(transfer.briefPath).href}:`);
    expect(reply.text).toContain("# Handoff brief: write the changelog");
    expect(reply.text).not.toContain("[embedded");
  });

  it("starts Codex's ACP adapter in a mode where the user, not a model, answers approvals", async () => {
    const { core } = await setup();
    const spec = await core.agents.launchSpec({ id: "th_x", agent: "codex", workspace: process.cwd() } as Parameters<typeof core.agents.launchSpec>[0]);
    expect(spec.command).toBe("codex-acp");
    expect(spec.env.INITIAL_AGENT_MODE).toBe("workspace-write");
  });

  it("/workspace lists and switches to a new thread in another directory", async () => {
    const dir = mkdtempSync(join(tmpdir(), "baton-ws-"));
    try {
      const { platform, route, core } = await setup({ workspaces: { roots: [tmpdir()], default: process.cwd(), named: { scratch: dir } } });
      await platform.say(route, "/workspace");
      await platform.waitFor(route, /\*\*scratch\*\*/);
      await platform.say(route, "/workspace --switch scratch");
      await platform.waitFor(route, /New thread `th_\w+` in/);
      expect(core.registry.threadForRoute(route)!.workspace).toContain("baton-ws-");
      await platform.say(route, "/workspace --switch /etc");
      await platform.waitFor(route, /outside the allowed workspace roots/);
      await platform.say(route, "/workspace --switch nowhere");
      await platform.waitFor(route, /No workspace named "nowhere"/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("an error reply never echoes a secret the user typed", async () => {
    const { platform, route } = await setup();
    const token = "ghp_" + "ZyXwVuTsRqPoNmLkJiHgFeDcBa9876543210";
    await platform.say(route, `/session --switch ${token}`);
    const reply = await platform.waitFor(route, /No .* session starts with/);
    expect(reply.text).not.toContain(token);
    expect(reply.text).toContain("[REDACTED]");
  });

  it("/stop ends a demo:slow turn within a second", async () => {
    const { platform, route } = await setup();
    await platform.say(route, "demo:slow");
    await platform.waitFor(route, /Working… step 1/);
    const started = Date.now();
    await platform.say(route, "/stop");
    await platform.waitFor(route, /⏹ Stopped\./);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it("with agents.default auto and no agent CLI on PATH, the demo agent stands in and says so", async () => {
    const platform = new TestPlatform();
    baton = await startTestBaton({ adapters: [platform], config: { agents: { default: "auto" } }, env: { PATH: "/nonexistent" } });
    const route = platform.route("auto");
    await platform.say(route, "hi");
    const reply = await platform.waitFor(route, /you said "hi"/);
    expect(reply.text).toMatch(/^_You are talking to Baton's \*\*demo agent\*\*: no agent CLI/);
    await platform.say(route, "again");
    const second = await platform.waitFor(route, /you said "again"/);
    expect(second.text).not.toContain("demo agent");
  });
});
