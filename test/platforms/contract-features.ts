// Contract items for what the chat does beyond answering (issue: models and modes, bindings, files
// back, usage, schedules, voice), run by every adapter through its wire-level fake like the rest
// of the contract (contract.ts). An item needs what the driver declares: uploads(), users' files.
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, it } from "vitest";
import { DEMO_PNG_BASE64 } from "../../src/agents/demo/extras.js";
import { FakeTranscriptionServer } from "../fakes/transcription/server.js";
import type { TestBaton } from "../support/harness.js";
import { waitUntil, type ContractDriver, type ShownMessage, type Where } from "./contract.js";
import { CLI_ENTRY } from "../../src/kernel/install.js";

/** An idle agent stops this soon in the mode item, so the test sees a new process resume the session. */
const IDLE_SHUTDOWN_MS = 1_500;

type Config = Record<string, any>;

export interface FeatureContext {
  start(config?: Config | ((d: ContractDriver) => Config)): Promise<{ d: ContractDriver; b: TestBaton }>;
  waitShown(d: ContractDriver, where: Where, pattern: RegExp): Promise<ShownMessage>;
}

export function runFeatureItems({ start, waitShown }: FeatureContext): void {
  it("switches the mode by button and keeps it across an idle shutdown and resume", async () => {
    const { d, b } = await start({ agents: { idle_shutdown: IDLE_SHUTDOWN_MS } });
    await d.userSays("direct", "/mode");
    const first = await waitShown(d, "direct", /Mode\W+Code/);
    // Platforms whose buttons are added after the message (Matrix reactions) show them a moment later.
    const menu = first.buttons.length > 0 ? await waitUntil(() => d.shown("direct").find((m) => m.id === first.id && m.buttons.length === 3), "the menu's three buttons") : first;
    if (menu.buttons.length > 0) {
      expect(menu.buttons).toEqual(["Ask", "✓ Code", "Plan"]);
      expect((await d.press("direct", menu, "Plan")).ok).toBe(true);
      await waitShown(d, "direct", /Mode\W+Plan \W*plan\W* ✓ — by/);
    } else {
      await d.userSays("direct", "/mode plan");
      await waitShown(d, "direct", /Mode\W+Plan/);
    }
    const core = b.daemon.core;
    const thread = core.registry.threadForRoute(d.route("direct"))!;
    await waitUntil(() => core.supervisor.state(thread.id).host === "stopped", "the idle agent to stop");
    await d.userSays("direct", "demo:whoami");
    await waitShown(d, "direct", /mode=plan model=demo-small/);
  });

  it("shows the usage at the end of a turn and the thread's totals in /status", async () => {
    const { d } = await start({ rendering: { show_usage: true } });
    await d.userSays("direct", "count me");
    const usage = await waitShown(d, "direct", /📊 \d+ tokens \(8 in · \d+ out\) · context 0% of 200k · \$0\.0012 so far/);
    // The answer's last line, not a message of its own (where the platform does not style it apart).
    if (!d.adapter.capabilities.usageApart) expect(usage.text).toMatch(/you said "count me"\s+📊 [^\n]+$/);
    await d.userSays("direct", "/status");
    await waitShown(d, "direct", /Usage\W+1 turn reported · [\d,]+ tokens \(8 in · [\d,]+ out\) · \$0\.0012/);
  });

  it("starts a new thread in the workspace and with the agent a binding names", async () => {
    const workspace = realpathSync(mkdtempSync(join(tmpdir(), "baton-contract-bound-")));
    try {
      const { d, b } = await start((driver) => ({
        agents: { custom: { bound: { command: process.execPath, args: [CLI_ENTRY, "demo-agent"], display_name: "Bound agent", runtime: "demo" } } },
        workspaces: { roots: [tmpdir(), process.cwd()] },
        bindings: [{ match: driver.route("direct"), workspace, agent: "bound" }],
      }));
      await d.userSays("direct", "hello there");
      await waitShown(d, "direct", /you said "hello there"/);
      expect(b.daemon.core.registry.threadForRoute(d.route("direct"))).toMatchObject({ workspace, agent: "bound" });
      await d.userSays("direct", "/status");
      const status = await waitShown(d, "direct", /Binding\W/);
      expect(status.text).toContain("Bound agent");
      expect(status.text).toContain(workspace);
      expect(status.text).toMatch(/bindings\[0\] in the config\) chose this thread's workspace and agent/);
    } finally {
      rmSync(workspace, { recursive: true, force: true });
    }
  });

  it("uploads the agent's image and a workspace file, and refuses a path outside the workspace", async (ctx) => {
    const { d } = await start();
    if (!d.uploads) return ctx.skip();
    const uploads = d.uploads;
    await d.userSays("direct", "demo:image");
    const image = await waitUntil(() => uploads("direct").find((f) => f.name === "demo-squares.png"), "the image upload");
    expect(image.size).toBe(74);
    if (image.data) expect(image.data.toString("base64")).toBe(DEMO_PNG_BASE64);
    if (image.mimeType) expect(image.mimeType).toBe("image/png");
    await waitShown(d, "direct", /Here is an image\./);
    await d.userSays("direct", "demo:file /etc/hostname");
    await waitShown(d, "direct", /Not sent: \W*\/etc\/hostname\W* is outside this thread's workspace/);
    await d.userSays("direct", "/file package.json");
    const file = await waitUntil(() => uploads("direct").find((f) => f.name === "package.json"), "the /file upload");
    expect(file.caption).toContain("package.json");
    if (file.data) expect(file.data.toString()).toBe(readFileSync("package.json", "utf8"));
    expect(uploads("direct").some((f) => f.name === "hostname")).toBe(false);
  });

  it("fires a schedule into the chat's thread", async () => {
    const { d } = await start();
    await d.userSays("direct", '/schedule add "*/2 * * * * *" tick tock');
    await waitShown(d, "direct", /⏰ Scheduled \W*\w{5}\W*: .*tick tock/);
    await waitShown(d, "direct", /⏰ Schedule \W*\w{5}\W*: tick tock/);
    await waitShown(d, "direct", /you said "tick tock"/);
  });

  it("transcribes a voice note through the configured endpoint and sends the transcript", async (ctx) => {
    const server = await new FakeTranscriptionServer().start();
    try {
      server.transcripts.push("what changed today");
      const { d } = await start({ voice: { transcription: { url: server.url } } });
      if (!d.features.files) return ctx.skip();
      await d.userSays("direct", "", { files: [{ name: "voice.ogg", data: Buffer.from("OggS fake opus voice"), mimeType: "audio/ogg" }] });
      await waitShown(d, "direct", /🎙️[\W_]*what changed today/);
      await waitShown(d, "direct", /you said "what changed today"/);
      expect(server.received).toHaveLength(1);
      expect(server.received[0]).toMatchObject({ bytes: 20, model: "whisper-1" });
      expect(server.received[0].mimeType).toMatch(/^audio\//);
    } finally {
      await server.stop();
    }
  });
}
