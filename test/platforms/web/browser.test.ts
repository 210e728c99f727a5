// The web chat end to end in a real browser: Debian's Chromium opens the URL `baton start` prints
// (bin/baton.js, the shipped bundle), talks to the demo agent (a real ACP process), and survives a
// restart of the daemon; nothing is logged at error or above on the way.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { agentMessage, launchBrowser, runStep, saveScreenshot, send, startShippedWebBaton, type Browser, type ShippedWebBaton } from "./helpers.js";

const STEP_TIMEOUT_MS = 15_000;
const TEST_TIMEOUT_MS = 120_000;
const STOP_HIDES_WITHIN_MS = 3_000;
/** Toasts fade after 4 s; the screenshot is nicer without one. */
const TOAST_GONE_MS = 4_100;

let web: ShippedWebBaton | undefined;
let browser: Browser | undefined;

beforeAll(async () => {
  web = await startShippedWebBaton();
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await web?.baton.stop();
});

const step = <T>(name: string, run: (page: Page) => Promise<T>): Promise<T> => runStep(browser!.page, "web-failure", name, run);

describe("the web chat in Chromium", () => {
  it("chats, runs commands, answers an approval, stops a turn and comes back after a restart", { timeout: TEST_TIMEOUT_MS }, async () => {
    await step("open", async (page) => {
      await page.goto(web!.url);
      // The token was traded for a cookie and dropped from the address bar.
      expect(new URL(page.url()).search).toBe("");
      await page.locator("#connection[data-state=open]").waitFor({ timeout: STEP_TIMEOUT_MS });
      await page.locator("#messages .empty").waitFor();
    });

    await step("prompt", async (page) => {
      await send(page, "hello from the browser");
      await page.locator("#messages .message.user", { hasText: "hello from the browser" }).waitFor();
      await agentMessage(page, "text", /Turn 1 of session .+: you said "hello from the browser"/).waitFor({ timeout: STEP_TIMEOUT_MS });
      // The conversation list names the agent and the state.
      await page.locator(".conversation.selected", { hasText: "hello from the browser" }).waitFor();
      await page.locator(".conversation.selected .conversation-meta", { hasText: /demo · .+ · (idle|running)/ }).waitFor();
    });

    await step("command-hint", async (page) => {
      await page.locator("#input").fill("/sta");
      await page.locator("#hints .hint-name", { hasText: "/status" }).waitFor();
      // Enter on a half-typed command completes it; the next Enter sends it.
      await page.locator("#input").press("Enter");
      expect(await page.locator("#input").inputValue()).toBe("/status ");
      await page.locator("#input").press("Enter");
      const status = agentMessage(page, "notice", "Workspace:");
      await status.waitFor({ timeout: STEP_TIMEOUT_MS });
      expect(await status.textContent()).toMatch(/Host:\s*(idle|running)/);
      // Markdown became markup, not asterisks.
      expect(await status.locator("strong", { hasText: "Session:" }).count()).toBe(1);
    });

    await step("new", async (page) => {
      await send(page, "/new");
      await agentMessage(page, "notice", /New thread .+ with/).waitFor({ timeout: STEP_TIMEOUT_MS });
      await send(page, "fresh start");
      await agentMessage(page, "text", /Turn 1 of session .+: you said "fresh start"/).waitFor({ timeout: STEP_TIMEOUT_MS });
      await page.locator(".conversation.selected", { hasText: "fresh start" }).waitFor({ timeout: STEP_TIMEOUT_MS });
    });

    await step("script-escaped", async (page) => {
      await send(page, '<script>window.pwned = true</script><img src=x onerror="window.pwned = true">');
      await agentMessage(page, "text", /you said "<script>window.pwned = true<\/script>/).waitFor({ timeout: STEP_TIMEOUT_MS });
      expect(await page.evaluate(() => (window as unknown as { pwned?: boolean }).pwned)).toBeUndefined();
      expect(await page.locator("#messages script, #messages img").count()).toBe(0);
    });

    await step("permission", async (page) => {
      // A second tab on the same conversation sees the request and the decision too.
      const other = await browser!.context.newPage();
      await other.goto(page.url());
      await other.locator("#connection[data-state=open]").waitFor({ timeout: STEP_TIMEOUT_MS });
      await send(page, "demo:permission");
      await agentMessage(other, "approval", "Permission needed").locator(".actions button", { hasText: "Reject" }).waitFor({ timeout: STEP_TIMEOUT_MS });
      const approval = agentMessage(page, "approval", "Permission needed");
      await approval.locator("button", { hasText: "Allow once" }).click({ timeout: STEP_TIMEOUT_MS });
      await page.locator(".toast", { hasText: "Allow once" }).waitFor({ timeout: STEP_TIMEOUT_MS });
      await agentMessage(page, "text", "Permission answer: allow-once.").waitFor({ timeout: STEP_TIMEOUT_MS });
      // The core edited the approval: the decision shows and the buttons are gone.
      await agentMessage(page, "approval", /Allow once — by web/).waitFor({ timeout: STEP_TIMEOUT_MS });
      expect(await agentMessage(page, "approval", "Permission needed").locator(".actions button").count()).toBe(0);
      await agentMessage(other, "approval", /Allow once — by web/).waitFor({ timeout: STEP_TIMEOUT_MS });
      expect(await agentMessage(other, "approval", "Permission needed").locator(".actions button").count()).toBe(0);
      await other.close();
    });

    await step("stop", async (page) => {
      await send(page, "demo:slow");
      // The reply streams: one message, edited in place as the steps arrive.
      const streaming = agentMessage(page, "text", "Working… step 1");
      await streaming.waitFor({ timeout: STEP_TIMEOUT_MS });
      const id = await streaming.getAttribute("data-id");
      await page.locator(`#messages .message[data-id="${id}"]`, { hasText: "Working… step 2" }).waitFor({ timeout: STEP_TIMEOUT_MS });
      await page.locator("#typing").waitFor();
      await page.locator("#stop").click({ timeout: STEP_TIMEOUT_MS });
      await agentMessage(page, "text", "⏹ Stopped.").waitFor({ timeout: STEP_TIMEOUT_MS });
      // Hidden as the turn ends, not only at the periodic refresh of the list (every 5 s).
      await page.locator("#stop").waitFor({ state: "hidden", timeout: STOP_HIDES_WITHIN_MS });
      await page.locator("#chat-state[data-state=idle]").waitFor({ timeout: STOP_HIDES_WITHIN_MS });
    });

    const conversation = new URL(browser!.page.url()).hash.slice(1);
    expect(conversation).toMatch(/^[A-Za-z0-9]{12}$/);
    await step("second-conversation", async (page) => {
      await page.locator("#new-chat").click();
      await page.locator("#messages .empty").waitFor();
      await send(page, "Add a --json flag to the status command");
      await agentMessage(page, "text", /Turn 1 of session .+: you said "Add a --json flag/).waitFor({ timeout: STEP_TIMEOUT_MS });
      await send(page, "demo:permission");
      await agentMessage(page, "approval", "Permission needed").locator("button", { hasText: "Always allow" }).click({ timeout: STEP_TIMEOUT_MS });
      await agentMessage(page, "text", "Permission answer: allow-always.").waitFor({ timeout: STEP_TIMEOUT_MS });
      await page.locator("#messages .tool-line", { hasText: "Run rm -rf build/ ✅" }).waitFor({ timeout: STEP_TIMEOUT_MS });
      await send(page, "demo:plan");
      await agentMessage(page, "text", "Here is my plan.").waitFor({ timeout: STEP_TIMEOUT_MS });
      await page.locator("#messages .plan-list li.plan-completed", { hasText: "Read the code" }).waitFor();
      // Both conversations are listed; the first one still opens with its own history.
      expect(await page.locator("#conversations .conversation").count()).toBe(2);
      await page.locator("#chat-state[data-state=idle]").waitFor({ timeout: STEP_TIMEOUT_MS });
      await page.locator("#input").focus();
      await page.waitForTimeout(TOAST_GONE_MS);
      await saveScreenshot(page, "web-chat");
      await page.emulateMedia({ colorScheme: "dark" });
      await saveScreenshot(page, "web-chat-dark");
      await page.emulateMedia({ colorScheme: "light" });
      // Another tab writes in the first conversation: this page marks it unread until it is opened.
      const other = await browser!.context.newPage();
      await other.goto(`http://127.0.0.1:${web!.port}/#${conversation}`);
      await send(other, "from another tab");
      await agentMessage(other, "text", /you said "from another tab"/).waitFor({ timeout: STEP_TIMEOUT_MS });
      await other.close();
      // Its title is its current thread's first prompt (after /new: "fresh start").
      const first = page.locator(".conversation", { hasText: "fresh start" });
      await page.locator(".conversation.unread", { hasText: "fresh start" }).waitFor({ timeout: STEP_TIMEOUT_MS });
      await first.click();
      await agentMessage(page, "text", /you said "from another tab"/).waitFor({ timeout: STEP_TIMEOUT_MS });
      await agentMessage(page, "text", "Permission answer: allow-once.").waitFor();
      expect(await page.locator(".conversation.unread").count()).toBe(0);
    });

    const port = web!.port;
    const dir = web!.baton.dir;
    await step("restart", async (page) => {
      expect(await web!.baton.stop()).toBe(0);
      expect(web!.baton.problems()).toEqual([]);
      await page.locator("#connection[data-state=closed]").waitFor({ timeout: STEP_TIMEOUT_MS });
      await page.locator("#banner", { hasText: "Reconnecting" }).waitFor();
      web = await startShippedWebBaton({ dir, port });
      await page.locator("#connection[data-state=open]").waitFor({ timeout: STEP_TIMEOUT_MS });
      await page.locator("#banner").waitFor({ state: "hidden" });
    });

    await step("reconnected", async (page) => {
      // The page that stayed open talks to the new daemon; the agent resumed the session.
      await send(page, "recall");
      // The answer streams in: wait for the whole list, not its first piece.
      await agentMessage(page, "text", /Earlier prompts of session[\s\S]*fresh start/).waitFor({ timeout: STEP_TIMEOUT_MS });
    });

    await step("restored", async (page) => {
      // A fresh load of the page (same cookie) shows the conversation from the history on disk.
      await page.goto(`http://127.0.0.1:${port}/#${conversation}`);
      await page.locator("#connection[data-state=open]").waitFor({ timeout: STEP_TIMEOUT_MS });
      await agentMessage(page, "text", /Turn 1 of session .+: you said "hello from the browser"/).waitFor({ timeout: STEP_TIMEOUT_MS });
      await agentMessage(page, "text", "Permission answer: allow-once.").waitFor();
      await agentMessage(page, "text", "⏹ Stopped.").waitFor();
      await agentMessage(page, "text", /Earlier prompts of session/).waitFor();
      expect(await page.locator("#conversations .conversation").count()).toBe(2);
    });
    expect(web!.baton.problems()).toEqual([]);
  });
});
