// Files into the chat through the real core and the demo agent: an image in the answer arrives as
// an upload, a file link inside the workspace too, one outside (by `..`, by a symlink, absolute)
// is refused with the reason, /file fetches a workspace file, and the usage line and totals
// (the usage_update that carries them taken off the wire before the SDK's schema).
import { linkSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { DEMO_PNG_BASE64 } from "../../src/agents/demo/extras.js";
import { TestPlatform } from "../support/test-platform.js";
import { startTestBaton, type TestBaton } from "../support/harness.js";

const started: TestBaton[] = [];
const outside = mkdtempSync(join(tmpdir(), "baton-outside-"));
const workspace = mkdtempSync(join(tmpdir(), "baton-files-ws-"));
writeFileSync(join(outside, "secret.txt"), "not for the chat");
mkdirSync(join(workspace, "docs"));
writeFileSync(join(workspace, "docs", "notes.md"), "# Notes\nhello");
writeFileSync(join(workspace, "big.bin"), Buffer.alloc(3000));
symlinkSync(join(outside, "secret.txt"), join(workspace, "link.txt"));
// A hard link: inside the workspace by path, the same file as one outside it.
writeFileSync(join(outside, "passwd"), "root:x:0:0\n");
linkSync(join(outside, "passwd"), join(workspace, "hard.txt"));

afterEach(async () => {
  for (const b of started.splice(0)) await b.stop({ cleanup: true });
});
afterAll(() => {
  rmSync(outside, { recursive: true, force: true });
  rmSync(workspace, { recursive: true, force: true });
});

async function boot(config: Record<string, unknown> = {}, platform = new TestPlatform()) {
  const baton = await startTestBaton({ adapters: [platform], config: { workspaces: { roots: [tmpdir()], default: workspace }, ...config }, cwd: workspace });
  started.push(baton);
  return { platform, baton, core: baton.daemon.core };
}

describe("files from the agent and /file", () => {
  it("uploads the agent's image and workspace files, refuses paths outside the workspace", async () => {
    const { platform, baton } = await boot({ files: { max_upload_bytes: 2048 } });
    const route = platform.route("files");
    await platform.say(route, "demo:image");
    await platform.waitFor(route, /Here is an image\./);
    await platform.waitFor(route, /\[upload demo-squares\.png\]/);
    expect(platform.uploads[0]).toMatchObject({ name: "demo-squares.png", mimeType: "image/png", size: 74 });
    expect(platform.uploads[0].data.toString("base64")).toBe(DEMO_PNG_BASE64);
    // The upload comes before the words that followed it in the answer.
    const texts = platform.on(route).map((m) => m.text);
    expect(texts.indexOf("[upload demo-squares.png]")).toBeLessThan(texts.findIndex((t) => t.includes("Here is an image.")));

    await platform.say(route, "demo:file docs/notes.md");
    await platform.waitFor(route, /\[upload notes\.md\]/);
    expect(platform.uploads[1]).toMatchObject({ name: "notes.md", mimeType: "text/markdown" });
    expect(platform.uploads[1].data.toString()).toBe("# Notes\nhello");

    for (const path of [`../${outside.split("/").at(-1)}/secret.txt`, join(outside, "secret.txt"), "link.txt"]) {
      await platform.say(route, `demo:file ${path}`);
      await platform.waitFor(
        route,
        (m) => m.text.startsWith("🚫 Not sent:") && m.text.includes("outside this thread's workspace") && platform.on(route).filter((x) => x.text.startsWith("🚫")).length >= 1,
      );
    }
    await platform.say(route, "demo:file big.bin");
    await platform.waitFor(route, /big\.bin` is 0\.0 MB, over the 0\.0 MB limit/);
    await platform.say(route, "demo:file missing.txt");
    await platform.waitFor(route, /`.*missing\.txt` does not exist in the workspace/);
    expect(platform.on(route).filter((m) => m.text.includes("outside this thread's workspace"))).toHaveLength(3);
    expect(platform.uploads).toHaveLength(2);
    // Baton's staged copies are gone once uploaded.
    expect(readdirSync(join(baton.dataDir, "outbound"))).toEqual([]);

    await platform.say(route, "/file docs/notes.md");
    await platform.waitFor(route, /\[upload notes\.md\] `docs\/notes\.md`/);
    await platform.say(route, "/file ../../etc/passwd");
    await platform.waitFor(route, /⚠️ `\.\.\/\.\.\/etc\/passwd` is outside this thread's workspace/);
    await platform.say(route, "/file hard.txt");
    await platform.waitFor(route, /⚠️ `hard\.txt` has 2 hard links: its other names may be outside the workspace, so Baton does not send it/);
    await platform.say(route, "demo:file hard.txt");
    await platform.waitFor(route, /🚫 Not sent: `[^`]*\/hard\.txt` has 2 hard links/);
    expect(platform.uploads.map((u) => u.name)).toEqual(["demo-squares.png", "notes.md", "notes.md"]);
  });

  it("says where a platform cannot take files", async () => {
    const platform = new TestPlatform("nofiles");
    (platform as { upload?: unknown }).upload = undefined;
    await boot({}, platform);
    const route = platform.route("r");
    await platform.say(route, "demo:image");
    await platform.waitFor(route, /📎 demo-squares\.png \(1 KB\): this chat cannot receive files from Baton\./);
  });
});

describe("usage", () => {
  it("shows one quiet line at the end of each turn, as the answer's last line, and the totals in /status", async () => {
    const { platform } = await boot({ rendering: { flush_debounce_ms: 50, min_edit_gap_ms: 100, show_usage: true } });
    const route = platform.route("usage");
    await platform.say(route, "hello");
    const answer = await platform.waitFor(route, /📊/);
    const [said, blank, line] = answer.text.split("\n");
    expect(said).toMatch(/you said "hello"$/);
    expect(blank).toBe("");
    // "hello" in, the answer out; a character counts as a token in the demo agent.
    const out = said.length;
    expect(line).toBe(`📊 ${5 + out} tokens (5 in · ${out} out) · context 0% of 200k · $0.0012 so far`);
    // Not a message of its own: the answer's message carries it.
    expect(platform.on(route).filter((m) => m.text.includes("📊"))).toHaveLength(1);
    expect(platform.on(route).some((m) => m.text.startsWith("📊"))).toBe(false);
    await platform.say(route, "again");
    await platform.waitFor(route, /📊 .* · \$0\.0024 so far/);
    await platform.say(route, "/status");
    const status = await platform.waitFor(route, /\*\*Usage:\*\*/);
    expect(status.text).toMatch(/\*\*Usage:\*\* 2 turns reported · [\d,]+ tokens \(10 in · [\d,]+ out\) · \$0\.0024 · context 0% of 200k/);
  });

  it("is a message of its own where the answer's last message is already at the length limit", async () => {
    const { platform } = await boot({ rendering: { flush_debounce_ms: 50, min_edit_gap_ms: 100, show_usage: true } });
    const route = platform.route("usage-full");
    platform.capabilities.maxMessageLength = 40;
    await platform.say(route, "a prompt long enough to fill the message");
    const usage = await platform.waitFor(route, /^📊/);
    expect(usage.kind).toBe("usage");
    expect(platform.on(route).filter((m) => m.text.includes("📊"))).toHaveLength(1);
  });

  it("comes in without the SDK's schema (a turn's usage_update is checked by hand)", async () => {
    // The SDK's schema of the notification, from the installed SDK (a module its package does not export).
    const schemas = await import(new URL("../schema/zod.gen.js", import.meta.resolve("@agentclientprotocol/sdk")).href);
    const schema = schemas.zSessionNotification as { parse(params: unknown): unknown };
    const parse = schema.parse;
    const parsedKinds: unknown[] = [];
    schema.parse = (params: unknown) => {
      parsedKinds.push((params as { update?: { sessionUpdate?: unknown } }).update?.sessionUpdate);
      return parse.call(schema, params);
    };
    try {
      const { platform } = await boot({ rendering: { flush_debounce_ms: 50, min_edit_gap_ms: 100, show_usage: true } });
      const route = platform.route("usage-fast");
      await platform.say(route, "hello");
      await platform.waitFor(route, /📊 .* · \$0\.0012 so far/);
      expect(parsedKinds).not.toContain("usage_update");
    } finally {
      schema.parse = parse;
    }
  });
});
