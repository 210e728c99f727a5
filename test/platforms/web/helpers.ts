// Shared by the web chat tests: a Baton with the web adapter on loopback, the URL it prints, and
// Debian's Chromium driven by playwright-core.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { createWebAdapter, webConfigSchema, type WebAdapter } from "../../../src/platforms/web/index.js";
import { startTestBaton, type TestBaton } from "../../support/harness.js";
import { shippedConfig, startShippedBaton, type ShippedBaton } from "../../support/shipped-baton.js";

const CHROMIUM_PATH = process.env.BATON_CHROMIUM ?? "/usr/bin/chromium";
const ARTIFACTS_DIR = join(process.cwd(), "test", "artifacts");
const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

export interface WebBaton {
  baton: TestBaton;
  adapter: WebAdapter;
  /** The line `baton start` prints for the web platform. */
  description: string;
  url: string;
  port: number;
}

/**
 * Starts Baton in-process (see test/support/harness.ts for why) with only the web chat; `port` 0
 * picks a free one, a fixed one serves restarts. The browser tests use startShippedWebBaton.
 */
export async function startWebBaton(options: { dataDir?: string; port?: number; token?: string; config?: Record<string, unknown>; web?: Record<string, unknown> } = {}): Promise<WebBaton> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), "baton-web-"));
  const config = webConfigSchema.parse({ listen: `127.0.0.1:${options.port ?? 0}`, token: options.token, ...options.web });
  const adapter = createWebAdapter("web", config, { dataDir, cacheDir: join(dataDir, "cache") });
  const baton = await startTestBaton({ adapters: [adapter], dataDir, config: options.config });
  const description = adapter.startInfo?.description ?? "";
  const url = /^Web chat: (http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)$/.exec(description)?.[1];
  if (!url) throw new Error(`unexpected start line: ${description}`);
  return { baton, adapter, description, url, port: Number(new URL(url).port) };
}

export interface ShippedWebBaton {
  baton: ShippedBaton;
  /** The address `baton start` printed for the web chat (it carries the token). */
  url: string;
  port: number;
}

/**
 * `baton start` (bin/baton.js, the shipped bundle) with only the web chat on loopback (`config`: more
 * of the config, see shippedConfig). `port` 0 picks a free one; a restart passes the port and the
 * folder (`dir`) of the Baton it replaces.
 */
export async function startShippedWebBaton(options: { dir?: string; port?: number; config?: Record<string, unknown> } = {}): Promise<ShippedWebBaton> {
  const config = shippedConfig({ ...options.config, platforms: { web: { listen: `127.0.0.1:${options.port ?? 0}` } } });
  const baton = await startShippedBaton(config, { dir: options.dir, prefix: "baton-web-e2e-" });
  const url = /^Web chat: (http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)$/m.exec(baton.stdout())?.[1];
  if (!url) {
    await baton.stop();
    throw new Error(`no web chat line in what baton start printed:\n${baton.stdout()}`);
  }
  return { baton, url, port: Number(new URL(url).port) };
}

export interface Browser {
  context: BrowserContext;
  page: Page;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`Chromium not found at ${CHROMIUM_PATH}: apt-get install -y chromium`);
  const userDataDir = mkdtempSync(join(tmpdir(), "baton-chromium-"));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 800 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  return {
    context,
    page,
    async close() {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/** Saves a screenshot of the page under test/artifacts/ (git-ignored) and returns its path. */
export async function saveScreenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const path = join(ARTIFACTS_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: false });
  return path;
}

/** Runs one named step of a browser test on `page`; a failure saves the page as `<prefix>-<name>.png` and names the step. */
export async function runStep<T>(page: Page, prefix: string, name: string, run: (page: Page) => Promise<T>): Promise<T> {
  try {
    return await run(page);
  } catch (error) {
    const path = await saveScreenshot(page, `${prefix}-${name}`).catch(() => "(no screenshot)");
    throw new Error(`web chat step "${name}" failed (screenshot: ${path}): ${String(error)}`, { cause: error });
  }
}

/** Types `text` into the composer and sends it with Enter, as a user does. */
export async function send(page: Page, text: string): Promise<void> {
  await page.locator("#input").fill(text);
  await page.locator("#input").press("Enter");
}

/** The newest agent message of a kind (`text`, `notice`, `approval`, …) with that text. */
export function agentMessage(page: Page, kind: string, text: RegExp | string) {
  return page.locator(`#messages .message.agent.kind-${kind}`, { hasText: text }).last();
}
