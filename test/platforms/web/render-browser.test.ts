// The rendered XSS vectors in a real browser: Debian's Chromium gets each one as innerHTML (the way
// the web chat's client shows a message, and the way a Matrix client shows `formatted_body`), every
// element is poked with the events a reader causes, and nothing may run (an alert) or load (a request).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { markdownToHtml, type HtmlProfile } from "../../../src/render/html.js";
import { XSS_VECTORS } from "../../render/xss-vectors.js";
import { launchBrowser, type Browser } from "./helpers.js";

const TEST_TIMEOUT_MS = 60_000;
/** Events a reader's mouse and keyboard cause (clicks on links would only open a tab). */
const POKED_EVENTS = ["mouseover", "mouseenter", "focus", "toggle", "animationstart", "load", "error"];

let browser: Browser | undefined;

beforeAll(async () => {
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
});

interface Seen {
  alerts: string[];
  requests: string[];
  /** What the reader sees, and how many dangerous elements made it into the page. */
  text: string;
  dangerous: number;
}

/**
 * Shows each piece of HTML in its own <div> of a fresh page, pokes every element, lets queued tasks
 * run (until `expectAlerts` alerts came, for the control), then closes the page so nothing it
 * started can be counted against the next one.
 */
async function show(html: string[], expectAlerts = 0): Promise<Seen> {
  const page = await browser!.context.newPage();
  const alerts: string[] = [];
  const requests: string[] = [];
  try {
    // Nothing leaves the page: every request is noted and refused before it is sent.
    await page.route("**/*", (route) => {
      requests.push(route.request().url());
      return route.abort();
    });
    page.on("dialog", (dialog) => {
      alerts.push(dialog.message());
      void dialog.dismiss();
    });
    await page.setContent("<!doctype html><main id=out></main>");
    await page.evaluate(
      ({ html, events }) => {
        const out = document.getElementById("out")!;
        for (const piece of html) {
          const div = document.createElement("div");
          div.innerHTML = piece;
          out.append(div);
        }
        for (const el of out.querySelectorAll("*")) for (const type of events) el.dispatchEvent(new Event(type, { bubbles: true }));
      },
      { html, events: POKED_EVENTS },
    );
    // Error and load events of anything that tried to load arrive as tasks: let a few rounds run.
    await page.evaluate(() => new Promise((done) => setTimeout(() => requestAnimationFrame(() => setTimeout(done, 50)), 0)));
    if (expectAlerts) await expect.poll(() => alerts.length).toBeGreaterThanOrEqual(expectAlerts);
    // biome-ignore lint/performance/useDomNodeTextContent: the text as rendered (line breaks of blocks included) is what is checked
    const text = await page.locator("#out").innerText();
    const dangerous = await page.locator("#out :is(script, img, svg, math, iframe, object, embed, form, style, [onerror], [onload], [style])").count();
    return { alerts, requests, text, dangerous };
  } finally {
    await page.close();
  }
}

describe("rendered markdown in Chromium", () => {
  it("the check sees a script that runs and a request that goes out (it can fail)", { timeout: TEST_TIMEOUT_MS }, async () => {
    const seen = await show(['<img src="http://127.0.0.1:9/x.png" onerror="alert(\'control-1\')">', "<p onmouseover=\"alert('control-2')\">x</p>"], 2);
    expect(new Set(seen.alerts)).toEqual(new Set(["control-1", "control-2"]));
    expect(seen.requests).toEqual(["http://127.0.0.1:9/x.png"]);
    expect(seen.dangerous).toBe(1);
  });

  for (const profile of ["web", "matrix"] as HtmlProfile[]) {
    it(`${profile}: no vector runs a script or makes a request`, { timeout: TEST_TIMEOUT_MS }, async () => {
      const seen = await show(XSS_VECTORS.map((vector) => markdownToHtml(vector.markdown, { profile })));
      expect({ alerts: seen.alerts, requests: seen.requests, dangerous: seen.dangerous }).toEqual({ alerts: [], requests: [], dangerous: 0 });
      // The raw HTML arrived as text the reader can see.
      expect(seen.text).toContain("<img src=x onerror=alert(1)>");
    });
  }
});
