// Approvals belong to a live turn of the host and session that asked: a dead agent's request is
// expired (and audited so), never answered later; a request naming another session is refused; a typed answer
// answers the oldest open request; a number typed after the turn ended is a prompt again.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { TestPlatform } from "../support/test-platform.js";
import { startTestBaton, type TestBaton } from "../support/harness.js";
import { askedFor } from "../../src/core/approvals.js";
import { readJsonlAudit } from "../../src/threads/audit-read.js";

let baton: TestBaton | undefined;
afterEach(async () => {
  await baton?.stop({ cleanup: true });
  baton = undefined;
});

async function start(): Promise<{ platform: TestPlatform; route: string }> {
  // No buttons: answers are typed, the path where a stale request could swallow a prompt.
  const platform = new TestPlatform("ap", { buttons: false });
  baton = await startTestBaton({ adapters: [platform] });
  return { platform, route: platform.route("r") };
}

/** The demo agents this test process started (the daemon runs in-process). */
function demoAgentPids(): number[] {
  try {
    return execFileSync("pgrep", ["-P", String(process.pid), "-f", "agents/demo/main.js|demo-agent"], { encoding: "utf8" })
      .trim()
      .split("\n")
      .map(Number);
  } catch {
    return [];
  }
}

async function until<T>(probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("approvals belong to a live turn", () => {
  it("expires the request of an agent that died; a later 1 is a prompt, not an answer", async () => {
    const { platform, route } = await start();
    await platform.say(route, "demo:permission");
    const request = await platform.waitFor(route, /Permission needed/);
    for (const pid of demoAgentPids()) process.kill(pid, "SIGKILL");
    await platform.waitFor(route, /Agent exited unexpectedly/);
    await platform.waitFor(route, (m) => m.id === request.id && /Expired: the turn ended/.test(m.text));
    expect(baton!.daemon.core.approvals.pendingCount(baton!.daemon.core.registry.threadForRoute(route)!.id)).toBe(0);
    // Audited as an answer is: whose turn asked, what, and that it expired unanswered.
    const audited = await until(async () => (await readJsonlAudit(join(baton!.dataDir, "threads", "events.jsonl"), {})).find((e) => e.action === "approval"));
    expect(audited).toMatchObject({ outcome: "expired", user: "test:alice", requester: "test:alice", agent: "demo", command: "rm -rf build/", detail: "the turn ended before an answer" });
    await platform.say(route, "1");
    await platform.waitFor(route, /you said "1"/);
  });

  it("refuses a request that names another session, without showing it", async () => {
    const { platform, route } = await start();
    await platform.say(route, "demo:foreign-permission");
    await platform.waitFor(route, /Foreign permission answer: cancelled\./);
    expect(platform.on(route).some((m) => /Permission needed/.test(m.text))).toBe(false);
  });

  it("a typed answer answers the oldest open request", async () => {
    const { platform, route } = await start();
    await platform.say(route, "demo:two-permissions");
    // The requests themselves, not the tool lines (those can show before the requests are open).
    await platform.waitFor(route, (m) => /Permission needed/.test(m.text) && /make a/.test(m.text));
    await platform.waitFor(route, (m) => /Permission needed/.test(m.text) && /make b/.test(m.text));
    await platform.say(route, "3");
    await platform.waitFor(route, (m) => /make a/.test(m.text) && /Reject — by/.test(m.text));
    await platform.say(route, "1");
    await platform.waitFor(route, /Permission answers: a=reject, b=allow-once\./);
  });
});

describe("what a rejected request asked for, in one line", () => {
  const asking = (rawInput: unknown, title = "Run a command") => askedFor({ sessionId: "s", options: [], toolCall: { toolCallId: "t", title, rawInput } });

  it("quotes the command in a code span, the first line of a long one, with a longer fence around a backtick", () => {
    expect(asking({ command: "rm -rf dist/" })).toBe("`rm -rf dist/`");
    expect(asking({ command: "set -e\nmake all" })).toBe("`set -e …`");
    expect(asking({ command: `echo ${"x".repeat(200)}` })).toBe(`\`echo ${"x".repeat(115)}…\``);
    expect(asking({ command: "echo `date`" })).toBe("`` echo `date` ``");
  });

  it("is the title where the agent names no command", () => {
    expect(asking({ path: "a.txt" }, "Write a.txt")).toBe("Write a.txt");
    expect(asking(undefined, "")).toBe("a tool call");
  });
});
