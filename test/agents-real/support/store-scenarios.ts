// The store-reader scenarios for one real CLI: sessions written by the CLI itself (one through
// Baton's chat, with a command allowed and one rejected; one in the terminal, continued there with
// the CLI's own resume), then Baton's reader over those files: list, find, export a brief, and the
// native resume command run in a terminal (tmux) actually continuing the session. With
// BATON_CAPTURE_FIXTURES=1 the files become the fixtures of the fast tests.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { findSession, listSessions } from "../../../src/agents/stores/index.js";
import { briefText } from "../../../src/handoff/brief/index.js";
import { formatList } from "../../../src/handoff/sessions/format.js";
import { PLANTED_SECRET } from "../../fakes/stores/common.js";
import { captureFixtures, capturing } from "./capture.js";
import { Chat } from "./chat.js";
import type { KindProfile } from "./kinds.js";
import { Sandbox } from "./sandbox.js";
import { untilNextMinute } from "./scenarios.js";
import { baton, run, Tmux } from "./terminal.js";

export interface StoreProfile {
  profile: KindProfile;
  /** Store paths (relative to HOME) to capture as fixtures (a SQLite database becomes the SQL that builds it). */
  storePaths: string[];
  /** A one-shot terminal run of the CLI itself (not through Baton) answering `prompt`. */
  terminalRun(prompt: string): string[];
  /** The same, continuing session `id` natively. */
  terminalResume(id: string, prompt: string): string[];
  /** Versions of what wrote the files, for the fixture's record. */
  versions: Record<string, string>;
  /** Text the interactive UI shows once it is ready for input. */
  readyScreen: RegExp;
  /**
   * Resume in a later minute than the session started: Gemini names its files by the minute, so a
   * later resume writes a second file for the same session (the case the reader must merge).
   */
  resumeInAnotherMinute?: boolean;
}

export function describeStoreScenarios(sp: StoreProfile): void {
  const { profile } = sp;
  const k = profile.kind.toUpperCase();
  const facts: Record<string, string> = {};
  let box: Sandbox;
  let tmux: Tmux;
  const fake = () => profile.fake(box).brain;
  const env = () => ({ env: box.env(), runtime: profile.kind });

  describe(`${profile.label}'s session store, as the CLI wrote it`, () => {
    // Inside the describe: hooks outside it would run for every kind's tests in the file.
    beforeAll(async () => {
      box = await Sandbox.create();
      tmux = new Tmux(box);
    });
    afterEach((ctx) => {
      if (ctx.task.result?.state !== "fail") return;
      console.log(
        `last requests:\n${fake()
          .requests.slice(-4)
          .map((r) => `${r.path} ${JSON.stringify(r.conversation)} -> ${r.error ?? JSON.stringify(r.reply)}`)
          .join("\n")}`,
      );
    });
    afterAll(async () => {
      tmux?.killServer();
      await box?.stop();
      await box?.remove();
    });

    it("records a chat session with an allowed and a rejected command", async () => {
      const ws = box.workspace(`${profile.kind}-store`);
      const chat = await Chat.start(box, profile.kind, ws);
      try {
        fake().on(`${k}-STORE-FIRST`, { text: "Looking at the login bug." });
        fake().on(`${k}-STORE-ALLOW`, profile.shell("echo allowed > allowed.txt"), { text: "Ran it." });
        fake().on(`${k}-STORE-DENY`, profile.shell("echo denied > denied.txt"), { text: "Did not run it." });
        await chat.say(`${k}-STORE-FIRST: fix the login bug; the token is ${PLANTED_SECRET}`);
        await chat.waitFor(/Looking at the login bug\./);
        await chat.idle();
        await chat.say(`${k}-STORE-ALLOW: run it`);
        await chat.answerApproval(1, "/allow");
        await chat.waitFor(/Ran it\./);
        await chat.idle();
        await chat.say(`${k}-STORE-DENY: delete it`);
        await chat.answerApproval(2, "/deny");
        await chat.idle();
        facts.chatSession = chat.thread()!.session!;
        facts.chatCwd = ws;
      } finally {
        await chat.baton.stop({ cleanup: true });
      }
    });

    it("records a terminal session continued with the CLI's own resume", async () => {
      const ws = box.workspace(`${profile.kind}-terminal-store`);
      fake().on(`${k}-TERM-ONE`, { text: "First terminal answer." });
      fake().on(`${k}-TERM-TWO`, { text: "Second terminal answer." });
      const first = await run(box, sp.profile.kind, sp.terminalRun(`${k}-TERM-ONE: start here`), { cwd: ws });
      expect(first.stdout, first.stderr).toContain("First terminal answer.");
      const { sessions } = await listSessions({ ...env(), dir: ws });
      expect(sessions).toHaveLength(1);
      facts.terminalSession = sessions[0].id;
      facts.terminalCwd = ws;
      if (sp.resumeInAnotherMinute) await untilNextMinute();
      const second = await run(box, sp.profile.kind, sp.terminalResume(sessions[0].id, `${k}-TERM-TWO: go on`), { cwd: ws });
      expect(second.stdout, second.stderr).toContain("Second terminal answer.");
      // The CLI continued the same conversation.
      expect(fake().requestFor(`${k}-TERM-TWO`)!.text).toContain(`${k}-TERM-ONE`);
    });

    it("lists each session once, with its directory, a title and a unique short id", async () => {
      const { sessions, warnings } = await listSessions(env());
      expect(warnings).toEqual([]);
      const chat = sessions.filter((s) => s.id === facts.chatSession);
      const terminal = sessions.filter((s) => s.id === facts.terminalSession);
      expect(chat).toHaveLength(1);
      expect(terminal).toHaveLength(1);
      expect(chat[0].cwd).toBe(facts.chatCwd);
      expect(terminal[0].cwd).toBe(facts.terminalCwd);
      // The first or the latest request, as the runtime's title rules say.
      expect(chat[0].title).toContain(`${k}-STORE-`);
      expect(chat[0].title).not.toContain(PLANTED_SECRET);
      // Listing reads the head and tail of big transcripts only: counts are then marked approximate.
      expect(chat[0].counts.prompts).toBeGreaterThanOrEqual(chat[0].counts.approximate ? 1 : 3);
      expect(terminal[0].counts.prompts).toBeGreaterThanOrEqual(terminal[0].counts.approximate ? 1 : 2);
      expect((await findSession(facts.terminalSession, env())).id).toBe(facts.terminalSession);
      const shortIds = formatList(sessions)
        .split("\n")
        .map((line) => line.split(/\s+/)[0]);
      expect(new Set(shortIds).size).toBe(sessions.length);
    });

    it("exports a brief with the requests, the command that ran and not the one rejected", async () => {
      const session = await findSession(facts.chatSession, env());
      const text = await briefText(session, env());
      expect(text).toContain(`${k}-STORE-FIRST`);
      expect(text).not.toContain(PLANTED_SECRET);
      const commands = text.slice(text.indexOf("## Recent commands"), text.indexOf("## Recent activity"));
      expect(commands).toContain("echo allowed > allowed.txt");
      expect(commands).not.toContain("echo denied > denied.txt");
      expect(text).toContain("Looking at the login bug.");
    });

    it("reopens the session with the CLI's own resume command, in a terminal", async () => {
      fake().on(`${k}-NATIVE`, { text: "Resumed natively." });
      const dataDir = box.workspace("baton-data");
      const resumed = await baton(box, ["handoff", "resume", facts.chatSession, "--harness", profile.kind, "--launch", "tmux", "--yes"], { cwd: facts.chatCwd, dataDir });
      expect(resumed.code, `${resumed.stdout}\n${resumed.stderr}`).toBe(0);
      expect(resumed.stdout).toMatch(/natively/);
      const session = tmux.sessions().find((s) => s.startsWith("baton-handoff-"))!;
      await tmux.waitForScreen(session, sp.readyScreen);
      await tmux.type(session, `${k}-NATIVE: carry on`, () => !!fake().requestFor(`${k}-NATIVE`));
      await tmux.waitForScreen(session, /Resumed natively\./);
      expect(fake().requestFor(`${k}-NATIVE`)!.text).toContain(`${k}-STORE-FIRST`);
      tmux.killServer();
    });

    it("keeps the files as fixtures when asked", async () => {
      if (!capturing() || sp.storePaths.length === 0) return;
      const written = await captureFixtures(box, { kind: profile.kind, versions: sp.versions, facts }, sp.storePaths);
      expect(written.length).toBeGreaterThan(0);
    });
  });
}
