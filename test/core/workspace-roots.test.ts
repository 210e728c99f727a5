// workspaces.roots holds for every way a chat picks a directory: /workspace --switch and
// /session --switch alike. A directory a person confirmed outside them stays allowed, across restarts.
import { realpathSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { startTestBaton, type TestBaton } from "../support/harness.js";
import { TestPlatform } from "../support/test-platform.js";
import { removeTempDirs, tempDir, terminalDemoSession } from "../pickup/helpers.js";

const running: TestBaton[] = [];
afterEach(async () => {
  for (const b of running.splice(0)) await b.stop({ cleanup: true });
  removeTempDirs();
});

async function start(root: string, dataDir?: string, outside: "never" | "confirm" = "never") {
  const platform = new TestPlatform();
  const baton = await startTestBaton({ adapters: [platform], dataDir, config: { workspaces: { roots: [root], default: root, allow_outside_roots: outside } } });
  running.push(baton);
  return { platform, baton, core: baton.daemon.core, route: platform.route("c1") };
}

describe("workspace roots", () => {
  it("/session --switch refuses a session whose directory is outside every root", async () => {
    const root = tempDir("baton-ws-");
    const outside = tempDir("baton-outside-");
    const { platform, baton, core, route } = await start(root);
    const id = terminalDemoSession(baton.dataDir, outside, ["secret plans"]);
    await platform.say(route, `/session --switch ${id}`);
    await platform.waitFor(route, /outside the allowed workspace roots/);
    expect(core.registry.threadForRoute(route)).toBeUndefined();
    expect([...core.registry.all()].some((t) => t.workspace === outside)).toBe(false);
    // Inside a root it works.
    const inside = terminalDemoSession(baton.dataDir, root, ["fine"]);
    await platform.say(route, `/session --switch ${inside}`);
    await platform.waitFor(route, /continues session/);
    expect(core.registry.threadForRoute(route)?.workspace).toBe(realpathSync(root));
  });

  it("a workspace a person confirmed outside the roots stays allowed after a restart (allow_outside_roots: confirm)", async () => {
    const root = tempDir("baton-ws-");
    const outside = tempDir("baton-outside-");
    const first = await start(root, undefined, "confirm");
    await first.core.workspaces.register(outside, "scratch", "test:alice");
    const id = terminalDemoSession(first.baton.dataDir, outside, ["from the terminal"]);
    const dataDir = first.baton.dataDir;
    await first.baton.daemon.stop();
    running.length = 0;

    const { platform, core, route } = await start(root, dataDir, "confirm");
    await platform.say(route, "/workspace --switch scratch");
    await platform.waitFor(route, /📁 New thread `th_\w+` in/);
    expect(core.registry.threadForRoute(route)?.workspace).toBe(outside);
    const other = platform.route("c2");
    await platform.say(other, `/session --switch ${id}`);
    await platform.waitFor(other, /continues session/);
    expect(core.registry.threadForRoute(other)?.workspace).toBe(outside);
  });
});
