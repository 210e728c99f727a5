// /mode and /model through the real core and the demo agent: listed with buttons, switched by a
// press or by name on the running session, kept across an idle shutdown and a restart, in /status.
import { afterEach, describe, expect, it } from "vitest";
import { TestPlatform } from "../support/test-platform.js";
import { startTestBaton, type TestBaton } from "../support/harness.js";

const started: TestBaton[] = [];
afterEach(async () => {
  for (const b of started.splice(0)) await b.stop({ cleanup: true });
});

async function boot(config: Record<string, unknown> = {}, options: { dataDir?: string; env?: NodeJS.ProcessEnv; platform?: TestPlatform } = {}) {
  const platform = options.platform ?? new TestPlatform();
  const baton = await startTestBaton({ adapters: [platform], config, dataDir: options.dataDir, env: options.env });
  started.push(baton);
  return { platform, baton, core: baton.daemon.core };
}

const waitUntil = async (probe: () => boolean, timeoutMs = 15_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe("/mode and /model", () => {
  it("lists modes as buttons, switches by a press, and keeps the mode across an idle shutdown", async () => {
    const { platform, core } = await boot({ agents: { default: "demo", idle_shutdown: 400 } });
    const route = platform.route("modes");
    await platform.say(route, "/mode");
    const menu = await platform.waitFor(route, /Mode:\*\* Code/);
    expect(menu.buttons!.flat().map((b) => b.label)).toEqual(["Ask", "✓ Code", "Plan"]);
    const plan = menu.buttons!.flat().find((b) => b.label === "Plan")!;
    const outcome = await platform.press(route, plan.id);
    expect(outcome).toEqual({ ok: true, text: "Mode: Plan" });
    // The menu now shows the choice, its buttons gone.
    await waitUntil(() => /Plan \(`plan`\) ✓ — by Alice/.test(menu.text) && !menu.buttons);
    await platform.say(route, "demo:whoami");
    await platform.waitFor(route, /mode=plan model=demo-small/);

    const thread = core.registry.threadForRoute(route)!;
    await core.supervisor.drained(thread.id);
    await waitUntil(() => core.supervisor.state(thread.id).host === "stopped");
    await platform.say(route, "/status");
    await platform.waitFor(route, /\*\*Mode:\*\* `plan` — applied when the agent starts/);
    await platform.say(route, "demo:whoami");
    // A new process starts with the demo's default mode; Baton switched it back.
    const answers = await platform.waitFor(route, (m) => m.text.includes("mode=") && platform.on(route).filter((x) => x.text.includes("mode=")).length === 2);
    expect(answers).toBeDefined();
    expect(
      platform
        .on(route)
        .filter((m) => m.text.includes("mode="))
        .map((m) => m.text),
    ).toEqual(["mode=plan model=demo-small", "mode=plan model=demo-small"]);
    await platform.say(route, "/status");
    await platform.waitFor(route, /\*\*Mode:\*\* Plan \(`plan`\)\n/);
  });

  it("switches the model by name through the session's config option, and after a restart", async () => {
    const first = await boot();
    const route = first.platform.route("models");
    await first.platform.say(route, "/model");
    const menu = await first.platform.waitFor(route, /Model:\*\* Demo Small/);
    expect(menu.buttons!.flat().map((b) => b.label)).toEqual(["✓ Demo Small", "Demo Large"]);
    await first.platform.say(route, "/model demo large");
    await first.platform.waitFor(route, /🔀 Model: \*\*Demo Large\*\* \(`demo-large`\)/);
    await first.platform.say(route, "/model gpt-9");
    await first.platform.waitFor(route, /No model "gpt-9". Choose one of: `demo-small`, `demo-large`/);
    const dataDir = first.baton.dataDir;
    await first.baton.daemon.stop();
    started.length = 0;

    const second = await boot({}, { dataDir });
    await second.platform.say(route, "demo:whoami");
    await second.platform.waitFor(route, /mode=code model=demo-large/);
  });

  it("speaks the older models + session/set_model, and says so when an agent offers nothing", async () => {
    const { platform } = await boot({}, { env: { BATON_DEMO_LEGACY_MODELS: "1" } });
    const route = platform.route("legacy");
    await platform.say(route, "/model");
    const menu = await platform.waitFor(route, /Model:\*\* Demo Small/);
    await platform.press(route, menu.buttons!.flat().find((b) => b.label === "Demo Large")!.id);
    await platform.say(route, "demo:whoami");
    await platform.waitFor(route, /model=demo-large/);

    const bare = await boot({}, { env: { BATON_DEMO_NO_SETTINGS: "1" }, platform: new TestPlatform("bare") });
    const other = bare.platform.route("nothing");
    await bare.platform.say(other, "/mode");
    await bare.platform.waitFor(other, /does not offer a mode to choose over ACP. A profile can run it with other settings/);
  });

  it("follows a switch the agent makes by itself, and tells the chat", async () => {
    const { platform, core } = await boot({ agents: { default: "demo", idle_shutdown: 400 } });
    const route = platform.route("self");
    await platform.say(route, "/mode plan");
    await platform.waitFor(route, /Mode: \*\*Plan\*\*/);
    await platform.say(route, "demo:mode ask");
    await platform.waitFor(route, /🔀 The agent switched its mode to \*\*Ask\*\* \(`ask`\)\./);
    // Baton's own switch was not reported as the agent's.
    expect(platform.on(route).filter((m) => m.text.includes("The agent switched"))).toHaveLength(1);
    const thread = core.registry.threadForRoute(route)!;
    await core.supervisor.drained(thread.id);
    await waitUntil(() => core.supervisor.state(thread.id).host === "stopped");
    expect(core.registry.get(thread.id)!.settings.mode).toBe("ask");
    await platform.say(route, "demo:whoami");
    await platform.waitFor(route, /mode=ask/);
  });

  it("lists choices to type where the platform has no buttons", async () => {
    const platform = new TestPlatform("plain", { buttons: false });
    await boot({}, { platform });
    const route = platform.route("no-buttons");
    await platform.say(route, "/mode");
    const menu = await platform.waitFor(route, /Switch with `\/mode <id>`/);
    expect(menu.text).toMatch(/• `code` Code — reads and writes code ✓/);
    expect(menu.buttons).toBeUndefined();
    await platform.say(route, "/mode ask");
    await platform.waitFor(route, /Mode: \*\*Ask\*\*/);
  });
});
