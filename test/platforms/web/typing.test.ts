// Typing as a head start in the web chat: Chromium types into the composer of a conversation whose
// agent idled out; the page tells `baton start` (the shipped bundle), which resumes the agent
// before the message is sent, and the message then finds it live.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { agentMessage, launchBrowser, runStep, send, startShippedWebBaton, type Browser, type ShippedWebBaton } from "./helpers.js";
import { eventually } from "../slack/helpers.js";

const STEP_TIMEOUT_MS = 15_000;
/** agents.idle_shutdown here: the agent idles out quickly. */
const IDLE_MS = 1_000;

let web: ShippedWebBaton | undefined;
let browser: Browser | undefined;

beforeAll(async () => {
  web = await startShippedWebBaton({ config: { agents: { idle_shutdown: IDLE_MS } } });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await web?.baton.stop();
});

describe("the web chat's typing signal", () => {
  it("typing a message resumes the idled-out agent before it is sent; a command being typed does not", { timeout: 90_000 }, async () => {
    const baton = web!.baton;
    const starts = () => baton.log().filter((l) => l.msg === "agent host started");
    await runStep(browser!.page, "web-typing", "first", async (page) => {
      await page.goto(web!.url);
      await page.locator("#connection[data-state=open]").waitFor({ timeout: STEP_TIMEOUT_MS });
      await send(page, "hello");
      await agentMessage(page, "text", /Turn 1 of session/).waitFor({ timeout: STEP_TIMEOUT_MS });
    });
    const thread = starts()[0].thread;
    await eventually(() => baton.log().find((l) => l.msg === "idle agent host shut down" && l.thread === thread), STEP_TIMEOUT_MS, "the idle-out");

    await runStep(browser!.page, "web-typing", "typing", async (page) => {
      await page.locator("#input").pressSequentially("/sta");
      await new Promise((r) => setTimeout(r, IDLE_MS));
      expect(starts()).toHaveLength(1);
      await page.locator("#input").fill("");
      await page.locator("#input").pressSequentially("back again");
      expect(await eventually(() => starts()[1], STEP_TIMEOUT_MS, "the agent started on typing")).toMatchObject({ thread, how: expect.stringMatching(/^(resume|load)$/) });
      expect(await agentMessage(page, "text", /Turn 2/).count()).toBe(0);
      await page.locator("#input").press("Enter");
      await agentMessage(page, "text", /Turn 2 of session .+: you said "back again"/).waitFor({ timeout: STEP_TIMEOUT_MS });
    });
    expect(starts()).toHaveLength(2);
    expect(baton.problems()).toEqual([]);
  });
});
