import { afterEach, describe, expect, it } from "vitest";
import { TestPlatform } from "../support/test-platform.js";
import { startTestBaton, type TestBaton } from "../support/harness.js";
import { testTempDir } from "../support/temp.js";

const started: TestBaton[] = [];
afterEach(async () => {
  for (const b of started.splice(0)) await b.stop({ cleanup: true });
});

async function boot(platform: TestPlatform, config: Record<string, unknown> = {}, env: NodeJS.ProcessEnv = {}) {
  const baton = await startTestBaton({ adapters: [platform], config, env });
  started.push(baton);
  return baton.daemon.core;
}

describe("rendering a turn", () => {
  it("shows tool calls as one compact line each and plans as a checklist", async () => {
    const platform = new TestPlatform();
    const core = await boot(platform);
    const route = platform.route("r");
    await platform.say(route, "demo:tool");
    await platform.waitFor(route, /Both tools ran/);
    await core.supervisor.drained(core.registry.threadForRoute(route)!.id);
    const tools = platform.on(route).find((m) => m.kind === "tool")!;
    expect(tools.text).toBe("📖 Read src/index.ts ✅\n▶️ Run npm test ✅");
    await platform.say(route, "demo:plan");
    await platform.waitFor(route, /Here is my plan/);
    const plan = platform.on(route).find((m) => m.kind === "plan")!;
    expect(plan.text).toBe("**Plan**\n☑ Read the code\n▶ Write the change\n☐ Run the tests");
  });

  it("splits a 20 KB reply at the platform limit, in order, with code fences closed and reopened", async () => {
    const platform = new TestPlatform("small", { maxMessageLength: 2000 });
    const core = await boot(platform);
    const route = platform.route("r");
    await platform.say(route, "demo:long");
    await platform.waitFor(route, /The end\./, 20_000);
    await core.supervisor.drained(core.registry.threadForRoute(route)!.id);
    const parts = platform.on(route).filter((m) => m.kind === "text");
    expect(parts.length).toBeGreaterThanOrEqual(10);
    for (const p of parts) {
      expect(p.text.length).toBeLessThanOrEqual(2000);
      expect((p.text.match(/^```/gm) ?? []).length % 2).toBe(0);
    }
    const joined = parts.map((p) => p.text).join("\n");
    const sections = [...joined.matchAll(/## Section (\d+)/g)].map((m) => Number(m[1]));
    expect(sections).toEqual(sections.map((_, i) => i + 1));
    expect(joined.startsWith("# A long answer")).toBe(true);
  });

  it("on a platform without edits, sends each block once, complete", async () => {
    const platform = new TestPlatform("noedit", { edits: false });
    const core = await boot(platform);
    const route = platform.route("r");
    await platform.say(route, "hello");
    await platform.waitFor(route, /you said "hello"/);
    await core.supervisor.drained(core.registry.threadForRoute(route)!.id);
    const reply = platform.on(route).find((m) => m.text.startsWith("Turn 1"))!;
    expect(reply.history).toHaveLength(1);
    expect(reply.text).toMatch(/^Turn 1 of session [0-9a-f-]+: you said "hello"$/);
  });

  it("resumes by session/load when the agent has no resume, without re-sending the replayed history", async () => {
    const platform = new TestPlatform();
    const core = await boot(platform, { agents: { default: "demo", idle_shutdown: 200 } }, { BATON_DEMO_NO_RESUME: "1" });
    const route = platform.route("r");
    await platform.say(route, "only once");
    await platform.waitFor(route, /you said "only once"/);
    const thread = core.registry.threadForRoute(route)!;
    await core.supervisor.drained(thread.id);
    const before = platform.on(route).length;
    while (core.supervisor.state(thread.id).host !== "stopped") await new Promise((r) => setTimeout(r, 20));
    await platform.say(route, "recall");
    await platform.waitFor(route, /1\. only once/);
    await core.supervisor.drained(thread.id);
    const after = platform.on(route).slice(before);
    expect(after).toHaveLength(1);
    expect(after[0].text).toMatch(/^Earlier prompts of session/);
  });

  it("on daemon shutdown, cancels the running turn and says so; the thread stays open", async () => {
    const platform = new TestPlatform();
    const baton = await startTestBaton({ adapters: [platform] });
    const route = platform.route("r");
    await platform.say(route, "demo:slow");
    await platform.waitFor(route, /step 1/);
    const thread = baton.daemon.core.registry.threadForRoute(route)!;
    await baton.daemon.stop();
    expect(platform.transcript(route)).toMatch(/Baton is restarting; the running turn did not finish within 0 s and was cancelled/);
    expect(platform.transcript(route)).toMatch(/⏹ Stopped\./);
    expect(baton.daemon.core.registry.get(thread.id)!.open).toBe(true);
    started.push({ ...baton, stop: async () => baton.stop({ cleanup: true }).catch(() => undefined) } as TestBaton);
  });
});

describe("files from the chat", () => {
  it("passes a file as a resource link, and an image inline to an agent that accepts images", async () => {
    const { writeFileSync } = await import("node:fs");
    const { join } = await import("node:path");
    const dir = testTempDir("baton-files-");
    const doc = join(dir, "notes.txt");
    const png = join(dir, "shot.png");
    writeFileSync(doc, "hello");
    writeFileSync(png, Buffer.alloc(300, 1));
    for (const [images, expected] of [
      ["0", /\[file shot\.png, 300 bytes\]/],
      ["1", /\[image image\/png, 300 bytes\]/],
    ] as const) {
      const platform = new TestPlatform(`files${images}`);
      const baton = await startTestBaton({ adapters: [platform], env: { BATON_DEMO_IMAGES: images } });
      started.push(baton);
      const route = platform.route("r");
      await platform.say(route, "look at these", undefined, {
        files: [
          { name: "notes.txt", path: doc, size: 5, mimeType: "text/plain" },
          { name: "shot.png", path: png, size: 300, mimeType: "image/png" },
        ],
      });
      const reply = await platform.waitFor(route, /you said "look at these \[file notes\.txt, 5 bytes\]/);
      await baton.daemon.core.supervisor.drained(baton.daemon.core.registry.threadForRoute(route)!.id);
      expect(platform.on(route).find((m) => m.id === reply.id)!.text).toMatch(expected);
    }
  });
});
