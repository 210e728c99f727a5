// Bindings: a route matching `bindings:` starts its threads in the bound workspace with the bound
// agent; /new and /workspace --switch keep to it; /status says where it came from.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { realpathSync } from "node:fs";
import { TestPlatform } from "../support/test-platform.js";
import { startTestBaton, type TestBaton } from "../support/harness.js";
import { CLI_ENTRY } from "../../src/kernel/install.js";

const api = realpathSync(mkdtempSync(join(tmpdir(), "baton-bound-api-")));
const web = realpathSync(mkdtempSync(join(tmpdir(), "baton-bound-web-")));
let baton: TestBaton | undefined;
afterEach(async () => {
  await baton?.stop({ cleanup: true });
  baton = undefined;
});
afterAll(() => {
  for (const dir of [api, web]) rmSync(dir, { recursive: true, force: true });
});

async function setup(bindings: unknown[]) {
  const platform = new TestPlatform();
  baton = await startTestBaton({
    adapters: [platform],
    config: {
      agents: { default: "demo", custom: { codex2: { command: process.execPath, args: [CLI_ENTRY, "demo-agent"], display_name: "Bound agent", runtime: "demo" } } },
      workspaces: { roots: [tmpdir()], named: { api } },
      bindings,
    },
  });
  return { platform, core: baton.daemon.core };
}

describe("bindings", () => {
  it("choose the workspace and agent of a new thread; the first match wins", async () => {
    const { platform, core } = await setup([
      { match: "test:team/api*", workspace: "api", agent: "codex2" },
      { match: "test:team/*", workspace: web },
    ]);
    const route = platform.route("team/api-room");
    await platform.say(route, "hello");
    await platform.waitFor(route, /you said "hello"/);
    const thread = core.registry.threadForRoute(route)!;
    expect(thread).toMatchObject({ workspace: api, agent: "codex2", binding: "test:team/api*" });
    const other = platform.route("team/web");
    await platform.say(other, "hi");
    await platform.waitFor(other, /you said "hi"/);
    expect(core.registry.threadForRoute(other)).toMatchObject({ workspace: web, agent: "demo", binding: "test:team/*" });
    const free = platform.route("elsewhere");
    await platform.say(free, "hi");
    await platform.waitFor(free, /you said "hi"/);
    expect(core.registry.threadForRoute(free)!.binding).toBeUndefined();

    await platform.say(route, "/status");
    const status = await platform.waitFor(route, /\*\*Binding:\*\*/);
    expect(status.text).toContain(`**Workspace:** \`${api}\``);
    expect(status.text).toContain("**Agent:** Bound agent");
    expect(status.text).toContain("**Binding:** `test:team/api*` (bindings[0] in the config) chose this thread's workspace and agent");
  });

  it("/new and /workspace --switch keep to the binding", async () => {
    const { platform, core } = await setup([{ match: "test:bound", workspace: api, agent: "codex2" }]);
    const route = platform.route("bound");
    await platform.say(route, `/workspace --switch ${web}`);
    await platform.waitFor(route, /This chat is bound to `.*` with codex2 by `test:bound` \(bindings\[0\] in the config\), so switching to another workspace is not possible here/);
    await platform.say(route, "/new demo");
    await platform.waitFor(route, /so starting a thread with another agent is not possible/);
    await platform.say(route, "/new");
    await platform.waitFor(route, /New thread .* with Bound agent in `.*baton-bound-api-/);
    await platform.say(route, "/new codex2 api");
    await platform.waitFor(route, (m) => /New thread/.test(m.text) && platform.on(route).filter((x) => /New thread/.test(x.text)).length === 2);
    expect(core.registry.threadForRoute(route)).toMatchObject({ workspace: api, agent: "codex2", binding: "test:bound" });
  });

  it("a binding naming an unknown agent stops the daemon with the key", async () => {
    await expect(setup([{ match: "test:*", workspace: api, agent: "nope" }])).rejects.toThrow(/bindings\[0\]: Unknown agent "nope"/);
  });
});
