// Five details of the web chat in a real browser (Debian's Chromium), against `baton start` (the
// shipped bundle): the sidebar's title follows the thread after /new, /close and /pickup; the
// composer's placeholder fits a 390 px phone; the phone's conversation list has a backdrop that
// closes it; "waiting for your approval" instead of "working" while an approval is open; a scheduled
// prompt's notice comes after the running answer and its usage line, not between them.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { callTool, codeIn, stdioClient, terminalDemoSession } from "../../pickup/helpers.js";
import { testTempDir } from "../../support/temp.js";
import { agentMessage, launchBrowser, runStep, saveScreenshot, send, startShippedWebBaton, type Browser, type ShippedWebBaton } from "./helpers.js";

const STEP_TIMEOUT_MS = 15_000;
const TEST_TIMEOUT_MS = 90_000;
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

let web: ShippedWebBaton | undefined;
let browser: Browser | undefined;
let workspace: string;

beforeAll(async () => {
  const dir = testTempDir("baton-web-nits-");
  workspace = join(dir, "workspace");
  mkdirSync(workspace);
  web = await startShippedWebBaton({ dir, config: { rendering: { show_usage: true }, workspaces: { roots: [workspace], default: workspace } } });
  browser = await launchBrowser();
  await browser.page.goto(web.url);
  await browser.page.locator("#connection[data-state=open]").waitFor({ timeout: STEP_TIMEOUT_MS });
}, TEST_TIMEOUT_MS);

afterAll(async () => {
  await browser?.close();
  await web?.baton.stop();
});

const step = <T>(name: string, run: (page: Page) => Promise<T>): Promise<T> => runStep(browser!.page, "web-nits-failure", name, run);

async function newConversation(page: Page): Promise<void> {
  await page.setViewportSize(DESKTOP);
  await page.locator("#new-chat").click();
  await page.locator("#messages .empty").waitFor({ timeout: STEP_TIMEOUT_MS });
}

const sidebarTitle = (page: Page) => page.locator("#conversations .conversation.selected .conversation-title");

async function titleBecomes(page: Page, title: string): Promise<void> {
  await expect.poll(() => sidebarTitle(page).textContent(), { timeout: STEP_TIMEOUT_MS }).toBe(title);
  expect(await page.locator("#chat-title").textContent()).toBe(title);
}

describe("web chat details in Chromium", () => {
  it("the sidebar's title is the current thread's: after /new, /close and a new prompt, and /pickup", { timeout: TEST_TIMEOUT_MS }, async () => {
    await step("first thread", async (page) => {
      await newConversation(page);
      await send(page, "first topic");
      await agentMessage(page, "text", 'you said "first topic"').waitFor({ timeout: STEP_TIMEOUT_MS });
      await titleBecomes(page, "first topic");
    });
    await step("/new", async (page) => {
      await send(page, "/new");
      await titleBecomes(page, "New chat");
      await send(page, "second topic");
      await agentMessage(page, "text", /Turn 1 of session .*you said "second topic"/).waitFor({ timeout: STEP_TIMEOUT_MS });
      await titleBecomes(page, "second topic");
    });
    await step("/close", async (page) => {
      await send(page, "/close");
      await agentMessage(page, "notice", /closed/i).waitFor({ timeout: STEP_TIMEOUT_MS });
      await titleBecomes(page, "second topic"); // a closed thread keeps its title
      await send(page, "third topic");
      await agentMessage(page, "text", /Turn 1 of session .*you said "third topic"/).waitFor({ timeout: STEP_TIMEOUT_MS });
      await titleBecomes(page, "third topic");
    });
    await step("/pickup", async (page) => {
      const session = terminalDemoSession(join(web!.baton.dir, "data"), workspace, ["from the terminal"]);
      const client = await stdioClient(join(web!.baton.dir, "data"), { cwd: workspace });
      let code: string;
      try {
        code = codeIn((await callTool(client, "prepare_handover", { cwd: workspace, agent_kind: "demo", session_id: session })).text);
      } finally {
        await client.close();
      }
      await send(page, `/pickup ${code}`);
      await titleBecomes(page, `Picked up: ${code}`);
      // A code that does not work moves nothing: the title stays.
      await send(page, "/pickup ZZZZ");
      await page
        .locator("#messages .message.agent", { hasText: /code is invalid or expired/ })
        .last()
        .waitFor({ timeout: STEP_TIMEOUT_MS });
      await titleBecomes(page, `Picked up: ${code}`);
    });
  });

  it("the composer's placeholder fits a 390 px phone whole, and the long one shows on a desktop", { timeout: TEST_TIMEOUT_MS }, async () => {
    await step("placeholder", async (page) => {
      const fits = () =>
        page.evaluate(() => {
          const input = document.querySelector<HTMLTextAreaElement>("#input")!;
          const style = getComputedStyle(input);
          const context = document.createElement("canvas").getContext("2d")!;
          context.font = style.font;
          const room = input.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
          return { text: input.placeholder, needed: Math.ceil(context.measureText(input.placeholder).width), room };
        });
      await page.setViewportSize(PHONE);
      await expect.poll(async () => (await fits()).text).toBe("Message, or / for commands");
      const phone = await fits();
      expect(phone.needed, JSON.stringify(phone)).toBeLessThanOrEqual(phone.room);
      await page.setViewportSize(DESKTOP);
      await expect.poll(async () => (await fits()).text).toBe("Message the agent, or type / for commands");
      const desktop = await fits();
      expect(desktop.needed).toBeLessThanOrEqual(desktop.room);
    });
  });

  it("on a phone, the open conversation list has a backdrop over the chat, and a tap on it closes the list", { timeout: TEST_TIMEOUT_MS }, async () => {
    await step("backdrop", async (page) => {
      await page.setViewportSize(PHONE);
      await page.locator("#toggle-sidebar").click();
      await expect.poll(() => page.evaluate(() => document.getElementById("app")!.classList.contains("sidebar-open"))).toBe(true);
      await expect.poll(() => page.evaluate(() => getComputedStyle(document.getElementById("backdrop")!).opacity)).toBe("1");
      // Beside the list (it takes 80 % of the width) the backdrop is what a tap meets, not the chat.
      const beside = { x: PHONE.width - 20, y: PHONE.height / 2 };
      expect(await page.evaluate(({ x, y }) => document.elementFromPoint(x, y)?.id, beside)).toBe("backdrop");
      await saveScreenshot(page, "web-chat-phone-sidebar");
      await page.mouse.click(beside.x, beside.y);
      await expect.poll(() => page.evaluate(() => document.getElementById("app")!.classList.contains("sidebar-open"))).toBe(false);
      await expect.poll(() => page.evaluate(() => getComputedStyle(document.getElementById("backdrop")!).opacity)).toBe("0");
      await page.setViewportSize(DESKTOP);
      expect(await page.evaluate(() => getComputedStyle(document.getElementById("backdrop")!).display)).toBe("none");
    });
  });

  it("while an approval waits for an answer, the line says so instead of 'Agent is working…'", { timeout: TEST_TIMEOUT_MS }, async () => {
    await step("approval", async (page) => {
      await newConversation(page);
      await send(page, "demo:permission");
      const approval = agentMessage(page, "approval", "Permission needed");
      await approval.locator(".actions button", { hasText: "Allow once" }).waitFor({ timeout: STEP_TIMEOUT_MS });
      await page.locator("#typing:not([hidden])").waitFor({ timeout: STEP_TIMEOUT_MS });
      await expect.poll(() => page.locator("#typing-label").textContent(), { timeout: STEP_TIMEOUT_MS }).toBe("Waiting for your approval…");
      await approval.locator(".actions button", { hasText: "Allow once" }).click();
      await agentMessage(page, "approval", /Allow once — by web/).waitFor({ timeout: STEP_TIMEOUT_MS });
      // Answered: the agent works again (or is done), never "waiting" any more.
      await expect
        .poll(async () => ((await page.locator("#typing").isHidden()) ? "hidden" : await page.locator("#typing-label").textContent()), { timeout: STEP_TIMEOUT_MS })
        .not.toBe("Waiting for your approval…");
    });
  });

  it("a schedule firing during an answer: its notice comes after that answer and its usage line", { timeout: TEST_TIMEOUT_MS }, async () => {
    await step("schedule", async (page) => {
      await newConversation(page);
      // Timed so that the schedule fires once, about 2 s into a 5 s answer: it starts when the
      // clock's seconds are 4 past a multiple of 6 and the pattern fires at every multiple of 6.
      await page.waitForFunction(() => new Date().getSeconds() % 6 === 4, undefined, { timeout: STEP_TIMEOUT_MS, polling: 50 });
      await send(page, "demo:slow 5");
      await send(page, '/schedule add "*/6 * * * * *" tick');
      const made = await agentMessage(page, "notice", /Scheduled \w{5}/).textContent({ timeout: STEP_TIMEOUT_MS });
      const id = /Scheduled (\w{5})/.exec(made ?? "")![1];
      await agentMessage(page, "notice", new RegExp(`⏰ Schedule ${id}: tick`)).waitFor({ timeout: STEP_TIMEOUT_MS });
      await send(page, `/schedule rm ${id}`);
      // The notice came after the answer had finished: no skipped run in between.
      expect(await page.locator("#messages .message.agent", { hasText: "Skipping schedule" }).count()).toBe(0);
      const order = await page.evaluate(() => {
        const all = [...document.querySelectorAll("#messages .message.agent")];
        const index = (test: (m: Element) => boolean) => all.findIndex(test);
        const answer = index((m) => m.classList.contains("kind-text") && /Done after \d+ steps/.test(m.textContent ?? ""));
        return {
          answer,
          usage: all.findIndex((m, i) => i > answer && m.classList.contains("kind-usage")),
          notice: index((m) => m.classList.contains("kind-notice") && /⏰ Schedule \w{5}: tick/.test(m.textContent ?? "")),
        };
      });
      expect(order.answer, JSON.stringify(order)).toBeGreaterThanOrEqual(0);
      expect(order.usage, JSON.stringify(order)).toBeGreaterThan(order.answer);
      expect(order.notice, JSON.stringify(order)).toBeGreaterThan(order.usage);
    });
    expect(web!.baton.problems()).toEqual([]);
  });
});
