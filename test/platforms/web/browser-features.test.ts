// The web chat's newer parts in a real browser (Debian's Chromium): a file attached on the page
// reaches the agent, the agent's image shows inline (loaded from Baton behind the cookie), /mode
// offers buttons that switch the session, the usage line, and a schedule made on the page fires
// again after a restart of the daemon. Baton runs as `baton start` (bin/baton.js, the shipped bundle).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { agentMessage, launchBrowser, runStep, saveScreenshot, send, startShippedWebBaton, type Browser, type ShippedWebBaton } from "./helpers.js";

const STEP_TIMEOUT_MS = 15_000;
const TEST_TIMEOUT_MS = 120_000;

let web: ShippedWebBaton | undefined;
let browser: Browser | undefined;

beforeAll(async () => {
  web = await startShippedWebBaton({ config: { rendering: { show_usage: true } } });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await web?.baton.stop();
});

const step = <T>(name: string, run: (page: Page) => Promise<T>): Promise<T> => runStep(browser!.page, "web-features-failure", name, run);

describe("the web chat's files, modes, usage and schedules in Chromium", () => {
  it("attaches a file, shows the agent's image, switches the mode by button, and keeps a schedule across a restart", { timeout: TEST_TIMEOUT_MS }, async () => {
    await step("open", async (page) => {
      await page.goto(web!.url);
      await page.locator("#connection[data-state=open]").waitFor({ timeout: STEP_TIMEOUT_MS });
    });

    await step("attach", async (page) => {
      await page.locator("#file-input").setInputFiles({ name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("twelve bytes") });
      await page.locator("#attachments .attachment-chip", { hasText: "notes.txt · 12 B" }).waitFor();
      await send(page, "see the notes");
      await page.locator("#messages .message.user .file", { hasText: "notes.txt" }).waitFor({ timeout: STEP_TIMEOUT_MS });
      await agentMessage(page, "text", 'you said "see the notes [file notes.txt, 12 bytes]"').waitFor({ timeout: STEP_TIMEOUT_MS });
      expect(await page.locator("#attachments").isHidden()).toBe(true);
      await agentMessage(page, "usage", /📊 \d+ tokens/).waitFor({ timeout: STEP_TIMEOUT_MS });
    });

    await step("image", async (page) => {
      await send(page, "demo:image");
      const image = page.locator("#messages .file-image img[alt='demo-squares.png']");
      await image.waitFor({ timeout: STEP_TIMEOUT_MS });
      await page.waitForFunction((el) => (el as HTMLImageElement).complete && (el as HTMLImageElement).naturalWidth === 2, await image.elementHandle(), { timeout: STEP_TIMEOUT_MS });
      await agentMessage(page, "text", "Here is an image.").waitFor({ timeout: STEP_TIMEOUT_MS });
      await send(page, "demo:file ../../etc/passwd");
      await agentMessage(page, "notice", /Not sent: .*outside this thread's workspace/).waitFor({ timeout: STEP_TIMEOUT_MS });
    });

    await step("mode", async (page) => {
      await send(page, "/mode");
      const menu = agentMessage(page, "notice", "Switch to:");
      await menu.locator("button", { hasText: "Plan" }).click({ timeout: STEP_TIMEOUT_MS });
      await page.locator(".toast", { hasText: "Mode: Plan" }).waitFor({ timeout: STEP_TIMEOUT_MS });
      await agentMessage(page, "notice", /Mode: Plan \(plan\) ✓ — by web/).waitFor({ timeout: STEP_TIMEOUT_MS });
      await send(page, "/status");
      await agentMessage(page, "notice", /Mode:\s*Plan \(plan\)/).waitFor({ timeout: STEP_TIMEOUT_MS });
      await saveScreenshot(page, "web-chat-features");
    });

    await step("schedule", async (page) => {
      await send(page, '/schedule add "*/2 * * * * *" scheduled hello');
      await agentMessage(page, "notice", /Scheduled \w{5}/).waitFor({ timeout: STEP_TIMEOUT_MS });
      await agentMessage(page, "text", 'you said "scheduled hello"').waitFor({ timeout: STEP_TIMEOUT_MS });
    });

    const { port } = web!;
    const dir = web!.baton.dir;
    await step("restart", async (page) => {
      expect(await web!.baton.stop()).toBe(0);
      expect(web!.baton.problems()).toEqual([]);
      await page.locator("#connection[data-state=closed]").waitFor({ timeout: STEP_TIMEOUT_MS });
      const before = await page.locator("#messages .message.agent", { hasText: 'you said "scheduled hello"' }).count();
      web = await startShippedWebBaton({ dir, port, config: { rendering: { show_usage: true } } });
      await page.locator("#connection[data-state=open]").waitFor({ timeout: STEP_TIMEOUT_MS });
      await page.waitForFunction(
        (n) =>
          document.querySelectorAll("#messages .message.agent").length > 0 &&
          [...document.querySelectorAll("#messages .message.agent")].filter((m) => m.textContent?.includes('you said "scheduled hello"')).length > n,
        before,
        { timeout: STEP_TIMEOUT_MS },
      );
      await send(page, "demo:whoami");
      await agentMessage(page, "text", "mode=plan").waitFor({ timeout: STEP_TIMEOUT_MS });
    });
    expect(web!.baton.problems()).toEqual([]);
  });
});
