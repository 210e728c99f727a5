// The platform contract suite: what every adapter must do, checked through the real core and the
// demo agent against that platform's wire-level fake. Each adapter provides a driver (speak as a
// user at the wire, read what the platform shows, script a failure) and runs
// `runAdapterContract(name, createDriver)`. An item needs a platform feature the adapter lacks
// (buttons, failures from a remote) only where that is said, and is then skipped with the reason.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { CommonPlatformSettings, PlatformAdapter } from "../../src/platforms/contract.js";
import { startTestBaton, type TestBaton } from "../support/harness.js";
import { runFeatureItems } from "./contract-features.js";

/** The allowed user's direct chat, a group where both users are, the stranger's own direct chat. */
export type Where = "direct" | "group" | "strangerDirect";

export interface ShownMessage {
  id: string;
  /** The text as a person sees it (markup rendered away). */
  text: string;
  /** Button labels, if any. */
  buttons: string[];
}

export type ScriptedFailure = { kind: "rate_limited"; retryAfterMs: number } | { kind: "refused" } | { kind: "formatting" };

interface SayOptions {
  stranger?: boolean;
  /** Mentions the bot (in a group). */
  mention?: boolean;
  /** Files the user sends; an audio/ogg one goes as the platform's voice note where it has them. */
  files?: Array<{ name: string; data: Buffer; mimeType: string }>;
}

/** A file the bot posted, as the platform shows it. */
export interface ShownFile {
  name: string;
  mimeType?: string;
  size: number;
  /** The caption or comment shown with it. */
  caption: string;
  /** The bytes, where the fake keeps them. */
  data?: Buffer;
}

export interface ContractDriver {
  readonly adapter: PlatformAdapter;
  readonly settings?: Partial<CommonPlatformSettings>;
  /** The `access.allow` entry of the allowed user. */
  readonly allowedId: string;
  /** The largest message the platform shows, in its visible characters. */
  readonly visibleLimit: number;
  /** What the platform has; a contract item that needs what it lacks is skipped. */
  readonly features: {
    /** A remote that can rate-limit and refuse (the web chat cannot). */
    remoteFailures: boolean;
    /** Users the platform does not vouch for (the web chat's token holder is the operator). */
    strangers: boolean;
    groups: boolean;
    /** Users can send files. */
    files: boolean;
  };
  route(where: Where): string;
  userSays(where: Where, text: string, options?: SayOptions): Promise<void>;
  shown(where: Where): ShownMessage[];
  /** Presses a button; resolves with what the presser is told (an alert, an ephemeral). */
  press(where: Where, message: ShownMessage, label: string, options?: { stranger?: boolean }): Promise<{ ok: boolean; text: string }>;
  /** The next call of this kind fails so. */
  failNext(call: "send" | "edit", failure: ScriptedFailure): void;
  /** Sends and edits the platform received (failed ones included), in order, with their times. */
  calls(): Array<{ call: "send" | "edit"; at: number; failed: boolean; text: string; messageId?: string }>;
  /**
   * Calls the platform refused for going past its documented rate limits (the fake enforces them;
   * scripted failures do not count). Every item ends with none: pacing that is too eager fails it.
   */
  rateRefusals?(): unknown[];
  /** Typing indicators and turn-status changes seen on a route. */
  activity(where: Where): number;
  /** File downloads the platform served. */
  fileDownloads(): number;
  /** Files the bot posted (uploads); absent where the adapter cannot upload yet (its items are skipped). */
  uploads?(where: Where): ShownFile[];
  close(): Promise<void>;
}

const ALLOW_EXTRA = ["test:alice"];
/** Generous: every item runs a real agent process, and the machine may be busy with other tests. */
const WAIT_MS = 40_000;
/** A short answer's first send to the call that shows it whole, at most (a loaded machine included). */
const SHORT_ANSWER_WHOLE_MS = 700;
/**
 * Long enough for any platform's per-chat allowance to refill after a short answer: Telegram's burst
 * at one call a second, and Discord's window of five calls in any five seconds per channel.
 */
const CHAT_REST_MS = 5_500;
/** How long a platform may take to show what the core already sent. */
const SHOW_LAG_MS = 5_000;
export const waitUntil = async <T>(probe: () => T | undefined | false, what: string | (() => string), timeoutMs = WAIT_MS): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${typeof what === "function" ? what() : what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

export function runAdapterContract(name: string, createDriver: () => Promise<ContractDriver>): void {
  describe(`platform contract: ${name}`, { timeout: 2 * WAIT_MS }, () => {
    let driver: ContractDriver | undefined;
    let baton: TestBaton | undefined;
    afterEach(async () => {
      const refusals = driver?.rateRefusals?.() ?? [];
      await baton?.stop({ cleanup: true });
      await driver?.close();
      baton = undefined;
      driver = undefined;
      expect(refusals, "calls the platform refused for its rate limits").toEqual([]);
    });

    /** Starts the driver and Baton; `config` is merged over the suite's (rendering and agents key by key). */
    async function start(given: Record<string, any> | ((d: ContractDriver) => Record<string, any>) = {}): Promise<{ d: ContractDriver; b: TestBaton }> {
      driver = await createDriver();
      const { rendering, agents, ...rest } = typeof given === "function" ? given(driver) : given;
      baton = await startTestBaton({
        adapters: [{ adapter: driver.adapter, settings: driver.settings ?? {} }],
        config: {
          // The driver's user runs the bot (an admin: the contract schedules); the others are members.
          access: { allow: [driver.allowedId, ...ALLOW_EXTRA], roles: { admin: [driver.allowedId] } },
          rendering: { flush_debounce_ms: 50, min_edit_gap_ms: 100, show_usage: false, ...rendering },
          agents: { default: "demo", ...agents },
          ...rest,
        },
      });
      return { d: driver, b: baton };
    }
    const shownText = (d: ContractDriver, where: Where) =>
      d
        .shown(where)
        .map((m) => m.text)
        .join("\n");
    const waitShown = (d: ContractDriver, where: Where, pattern: RegExp) =>
      waitUntil(
        () => d.shown(where).find((m) => pattern.test(m.text)),
        () => `${pattern} on ${where}; shown:\n${shownText(d, where)}`,
      );

    it("answers a direct message, streamed into one message edited as it grows", async () => {
      const { d } = await start();
      await d.userSays("direct", "demo:slow");
      await waitShown(d, "direct", /step 2/);
      await d.userSays("direct", "/stop");
      await waitShown(d, "direct", /Stopped/);
      const streamed = d.shown("direct").filter((m) => /Working… step 1/.test(m.text));
      expect(streamed).toHaveLength(1);
      expect(d.calls().some((c) => c.call === "edit" && /step 2/.test(c.text))).toBe(true);
    });

    it("shows a short answer whole at once: its first send and the edit that completes it do not wait for each other", async () => {
      // No hold before the first send: the send and the edit are both made, and must not wait.
      const { d } = await start({ rendering: { first_send_hold_ms: 0 } });
      await d.userSays("direct", "warm up");
      await waitShown(d, "direct", /you said "warm up"/);
      // A person reads the answer before writing again: the chat's limits are back at rest.
      await new Promise((r) => setTimeout(r, CHAT_REST_MS));
      await d.userSays("direct", "short and quick");
      await waitShown(d, "direct", /you said "short and quick"/);
      const answer = d.calls().filter((c) => !c.failed && /Turn 2 /.test(c.text));
      const whole = answer.find((c) => c.text.includes('you said "short and quick"'))!;
      // The demo agent streams it in four chunks over ~75 ms; a fixed one-second gap per chat made this ~1 s.
      expect(whole.at - answer[0].at).toBeLessThan(SHORT_ANSWER_WHOLE_MS);
    });

    it("answers ten prompts sent one after another in one chat, within the platform's rate limits", async () => {
      const { d } = await start();
      for (let n = 1; n <= 10; n++) await d.userSays("direct", `prompt ${n}`);
      for (let n = 1; n <= 10; n++) await waitShown(d, "direct", new RegExp(`you said "prompt ${n}"`));
      // The fake refuses what goes past the limits; afterEach finds none refused.
    });

    it("five messages at once in a new chat make one thread and five answers in order", async () => {
      const { d, b } = await start();
      await Promise.all([1, 2, 3, 4, 5].map((n) => d.userSays("direct", `burst ${n}`)));
      await waitShown(d, "direct", /you said "burst 5"/);
      const threads = [...b.daemon.core.registry.all()].filter((t) => t.routes.has(d.route("direct")));
      expect(threads).toHaveLength(1);
      const answers = d
        .shown("direct")
        .map((m) => /Turn (\d) of session .*you said "burst (\d)"/.exec(m.text))
        .filter((m) => m !== null);
      expect(answers.map((m) => m![1])).toEqual(["1", "2", "3", "4", "5"]);
      expect(answers.map((m) => m![1])).toEqual(answers.map((m) => m![2]));
    });

    it("splits a long answer at the platform's limit, in order, nothing lost", async () => {
      const { d, b } = await start();
      await d.userSays("direct", "demo:long");
      await waitShown(d, "direct", /The end\./);
      // "The end." can show before an earlier piece's last edit lands: the turn's end waits for all.
      await b.daemon.core.supervisor.drained(b.daemon.core.registry.threadForRoute(d.route("direct"))!.id);
      // A platform may show the last call a moment after the core made it (the web chat's socket).
      const sectionsInOrder = () => {
        const all = d
          .shown("direct")
          .map((m) => m.text)
          .join("\n");
        return [1, 2, 3, 5, 8].reduce((at, n) => (at < 0 ? at : all.indexOf(`Section ${n}`, at)), 0) >= 0;
      };
      await waitUntil(sectionsInOrder, "every section shown", SHOW_LAG_MS).catch(() => undefined);
      const pieces = d.shown("direct").filter((m) => !/^⏳/.test(m.text));
      expect(pieces.length).toBeGreaterThan(1);
      for (const piece of pieces) expect(piece.text.length).toBeLessThanOrEqual(d.visibleLimit);
      const all = pieces.map((m) => m.text).join("\n");
      let at = 0;
      for (const section of [1, 2, 3, 5, 8]) {
        const found = all.indexOf(`Section ${section}`, at);
        expect(found, `Section ${section} in order`).toBeGreaterThan(-1);
        at = found;
      }
    });

    it("waits out a 429 and delivers, holding the next call back for retry-after", async (ctx) => {
      const { d } = await start();
      if (!d.features.remoteFailures) return ctx.skip();
      d.failNext("send", { kind: "rate_limited", retryAfterMs: 700 });
      await d.userSays("direct", "paced");
      await waitShown(d, "direct", /you said "paced"/);
      const sends = d.calls().filter((c) => c.call === "send");
      const refused = sends.find((c) => c.failed)!;
      const next = sends.find((c) => !c.failed && c.at > refused.at)!;
      expect(next.at - refused.at).toBeGreaterThanOrEqual(650);
    });

    it("never retries a refused edit", async (ctx) => {
      const { d, b } = await start();
      if (!d.features.remoteFailures) return ctx.skip();
      d.failNext("edit", { kind: "refused" });
      await d.userSays("direct", "demo:slow");
      const refused = await waitUntil(() => d.calls().find((c) => c.call === "edit" && c.failed), "a refused edit");
      await waitShown(d, "direct", /step 3/);
      await d.userSays("direct", "/stop");
      await b.daemon.core.supervisor.drained(b.daemon.core.registry.threadForRoute(d.route("direct"))!.id);
      // That message is given up (no edit of it is tried again) and the answer goes on in a new one.
      expect(d.calls().filter((c) => c.call === "edit" && c.messageId === refused.messageId)).toHaveLength(1);
    });

    it("resends as plain text when the platform refuses the formatting", async (ctx) => {
      const { d } = await start();
      if (!d.features.remoteFailures) return ctx.skip();
      d.failNext("send", { kind: "formatting" });
      await d.userSays("direct", "format me");
      await waitShown(d, "direct", /you said "format me"/);
      expect(d.calls().filter((c) => c.call === "send" && c.failed)).toHaveLength(1);
    });

    it("shows an approval and takes the allowed user's answer, not a stranger's", async () => {
      const { d } = await start();
      await d.userSays("direct", "demo:permission");
      const request = await waitShown(d, "direct", /Permission needed/);
      if (request.buttons.length > 0) {
        if (d.features.strangers) {
          const refused = await d.press("direct", request, "Allow once", { stranger: true });
          expect(refused.ok).toBe(false);
          expect(refused.text).toMatch(/not allowed/);
        }
        const accepted = await d.press("direct", request, "Allow once");
        expect(accepted.ok).toBe(true);
      } else {
        await d.userSays("direct", "1");
      }
      await waitShown(d, "direct", /Permission answer: allow-once/);
      await waitShown(d, "direct", /Allow once — by/);
    });

    it("refuses a stranger once and never writes their files", async (ctx) => {
      const { d, b } = await start();
      if (!d.features.strangers) return ctx.skip();
      const before = d.fileDownloads();
      const file = { name: "notes.txt", data: Buffer.from("secret stuff"), mimeType: "text/plain" };
      for (let i = 0; i < 3; i++) await d.userSays("strangerDirect", `upload ${i}`, { stranger: true, files: [file] });
      await waitShown(d, "strangerDirect", /not allowed to use this bot/);
      await new Promise((r) => setTimeout(r, 300));
      expect(d.shown("strangerDirect").filter((m) => /not allowed/.test(m.text))).toHaveLength(1);
      expect(d.fileDownloads()).toBe(before);
      expect(readdirSync(join(b.dataDir, "cache"))).toEqual([]);
      expect(b.daemon.core.registry.threadForRoute(d.route("strangerDirect"))).toBeUndefined();
    });

    it("passes an allowed user's file to the agent", async (ctx) => {
      const { d } = await start();
      if (!d.features.files) return ctx.skip();
      await d.userSays("direct", "see this", { files: [{ name: "notes.txt", data: Buffer.from("hello"), mimeType: "text/plain" }] });
      await waitShown(d, "direct", /you said "see this \[file notes\.txt, 5 bytes\]"/);
      expect(d.fileDownloads()).toBe(1);
    });

    it("in a group answers only when addressed", async (ctx) => {
      const { d, b } = await start();
      if (!d.features.groups) return ctx.skip();
      await d.userSays("group", "just chatting");
      await d.userSays("group", "chatter from a stranger", { stranger: true });
      await d.userSays("group", "hello bot", { mention: true });
      const answer = await waitShown(d, "group", /you said "hello bot"/);
      expect(answer.text).not.toMatch(/@/);
      expect(d.shown("group").filter((m) => /chatting|stranger|not allowed/.test(m.text))).toEqual([]);
      expect(b.daemon.core.registry.threadForRoute(d.route("group"))).toBeDefined();
    });

    runFeatureItems({ start, waitShown });

    it("shows activity while a turn runs", async () => {
      const { d } = await start();
      await d.userSays("direct", "demo:slow");
      await waitShown(d, "direct", /step 2/);
      expect(d.activity("direct")).toBeGreaterThan(0);
      await d.userSays("direct", "/stop");
      await waitShown(d, "direct", /Stopped/);
    });
  });
}
