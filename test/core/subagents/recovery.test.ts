// A subagent may run another agent kind than the thread's own. When Baton stops while it runs, it
// is `interrupted`; if it cannot be resumed when the thread's agent starts again (here its agent
// CLI is gone), the agent's next wait_for_subagents reports it as interrupted: never lost.
import { chmodSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { CLI_ENTRY } from "../../../src/kernel/install.js";
import { TestPlatform } from "../../support/test-platform.js";
import { bootSubagents, cleanup, MULTI_AGENT_MS, tempDir } from "./helpers.js";

vi.setConfig({ testTimeout: 240_000 });
afterEach(cleanup);

describe("subagents across a restart", () => {
  it("a subagent of another kind, interrupted by a shutdown and not resumable after it, is reported as interrupted", async () => {
    const bin = tempDir("baton-sub-bin-");
    const helper = join(bin, "helper-acp");
    writeFileSync(helper, `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI_ENTRY)} demo-agent "$@"\n`);
    chmodSync(helper, 0o755);
    const config = { agents: { default: "demo", custom: { helper: { command: helper, display_name: "Helper" } } } };
    const first = await bootSubagents({ config });
    const route = first.platform.route("other-kind");
    const args = { mode: "parallel", subagents: [{ name: "gamma", agent: "helper", task: "demo:slow=400 Name a stone" }] };
    await first.platform.say(route, `demo:subagents ${JSON.stringify(args)}`);
    await first.platform.waitFor(route, /`gamma` · helper · running · Working/, MULTI_AGENT_MS);
    const session = first.core.registry.threadForRoute(route)!.subagents[0].session;
    expect(session).toBeTruthy();

    await first.baton.daemon.stop();
    rmSync(helper);

    const platform = new TestPlatform();
    const second = await bootSubagents({ config, platform, cwd: first.cwd, dataDir: first.baton.dataDir });
    const gamma = second.core.registry.threadForRoute(route)!.subagents[0];
    expect([gamma.state, gamma.recovery, gamma.session]).toEqual(["interrupted", "pending", session]);

    await platform.say(route, `demo:mcp wait_for_subagents ${JSON.stringify({ timeout_s: 120 })}`);
    const report = await platform.waitFor(route, /wait_for_subagents: 1 of 1 subagent finished\./, MULTI_AGENT_MS);
    expect(report.text).toContain(`## gamma — interrupted (could not be resumed) (helper, session ${session})`);
    expect(report.text).toMatch(/Note: it could not be resumed: Helper is not installed/);
    await platform.say(route, "/status");
    await platform.waitFor(route, /- `gamma` · helper · interrupted/);
  });
});
