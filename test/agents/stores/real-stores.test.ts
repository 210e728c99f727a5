// The store readers over session files captured from the real CLIs (test/fixtures/agents, made by
// `npm run test:agents` with BATON_CAPTURE_FIXTURES=1): a chat session driven through Baton with
// one command allowed and one rejected, a prompt carrying a planted secret, and a terminal session
// continued with the CLI's own resume. No CLI is needed here.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { findSession, listSessions, shortIdLength, type StoreOptions } from "../../../src/agents/stores/index.js";
import { briefText } from "../../../src/handoff/brief/index.js";
import { formatList } from "../../../src/handoff/sessions/format.js";
import { planResume } from "../../../src/handoff/sessions/plan.js";
import { PLANTED_SECRET } from "../../fakes/stores/common.js";
import { type AgentFixtureMeta, filesUnder as findFiles, restoreFixture } from "../../support/agent-fixtures.js";

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

async function load(kind: string): Promise<{ opts: StoreOptions & { runtime: string }; meta: AgentFixtureMeta }> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), `baton-real-${kind}-`)));
  roots.push(root);
  const { home, meta } = await restoreFixture(kind, root);
  for (const dir of [meta.facts.chatCwd, meta.facts.terminalCwd]) mkdirSync(dir, { recursive: true });
  return { opts: { runtime: kind, home, env: { HOME: home } }, meta };
}

const checks = { dirExists: () => true, fileExists: () => true };

/** The brief's part between two headings. */
function section(brief: string, heading: string): string {
  const start = brief.indexOf(`## ${heading}`);
  const end = brief.indexOf("\n## ", start + 3);
  return brief.slice(start, end < 0 ? undefined : end);
}

const KINDS = [
  { kind: "claude", nativeArgs: (id: string) => ["--resume", id] },
  { kind: "codex", nativeArgs: (id: string) => ["resume", id] },
  { kind: "gemini", nativeArgs: (id: string) => ["--approval-mode", "default", "--resume", id] },
  { kind: "qwen", nativeArgs: (id: string) => ["--approval-mode", "default", "--resume", id] },
  // Its store is one SQLite database, kept as the SQL that builds it (test/support/agent-fixtures.ts).
  { kind: "opencode", nativeArgs: (id: string) => ["--session", id] },
];
// Restored before the tests are collected: each kind's test names carry its CLI's version.
const LOADED = new Map(await Promise.all(KINDS.map(async ({ kind }) => [kind, await load(kind)] as const)));

describe.each(KINDS)("$kind sessions written by the real CLI", ({ kind, nativeArgs }) => {
  const { opts, meta } = LOADED.get(kind)!;
  const { chatSession, chatCwd, terminalSession, terminalCwd } = meta.facts;
  const k = kind.toUpperCase();

  it(`lists each session once, in its directory, titled from a request without the secret (${Object.entries(meta.versions)
    .map(([p, v]) => `${p} ${v}`)
    .join(", ")})`, async () => {
    const { sessions, warnings } = await listSessions(opts);
    expect(warnings).toEqual([]);
    expect(sessions.map((s) => s.id).sort()).toEqual([chatSession, terminalSession].sort());
    const chat = sessions.find((s) => s.id === chatSession)!;
    expect(chat.cwd).toBe(chatCwd);
    expect(sessions.find((s) => s.id === terminalSession)!.cwd).toBe(terminalCwd);
    expect(chat.title).toMatch(new RegExp(`^${k}-(STORE-|NATIVE:)`));
    expect(chat.title).not.toContain(PLANTED_SECRET);
    expect(chat.counts.prompts).toBeGreaterThan(0);
    expect(chat.counts.replies).toBeGreaterThan(0);
  });

  it("finds a session by its full id and lists ids told apart", async () => {
    expect((await findSession(terminalSession, opts)).id).toBe(terminalSession);
    expect((await findSession(chatSession, { ...opts, runtime: undefined })).id).toBe(chatSession);
    const { sessions } = await listSessions(opts);
    const shown = formatList(sessions)
      .split("\n")
      .map((line) => line.split(/\s+/)[0]);
    expect(new Set(shown).size).toBe(sessions.length);
    for (const s of sessions) expect(s.id.startsWith(shown[sessions.indexOf(s)])).toBe(true);
  });

  it("writes a brief with the requests and replies, the command that ran, and the rejected one only as rejected", async () => {
    const brief = await briefText(await findSession(chatSession, opts), opts);
    expect(brief).toContain(`${k}-STORE-FIRST: fix the login bug`);
    expect(brief).not.toContain(PLANTED_SECRET);
    expect(brief).toContain("[REDACTED]");
    expect(section(brief, "Where it stood")).not.toMatch(/_\(none recorded\)_/);
    const commands = section(brief, "Recent commands");
    expect(commands).toContain("echo allowed > allowed.txt");
    expect(commands).not.toContain("echo denied > denied.txt");
    expect(brief).toContain("Looking at the login bug.");
  });

  it("reopens the session natively, in its recorded directory", async () => {
    const session = await findSession(chatSession, opts);
    const plan = planResume(session, { outputDir: join(chatCwd, "briefs") }, checks);
    expect(plan.mode).toBe("native");
    expect(plan.args).toEqual(nativeArgs(chatSession));
    expect(plan.dir).toBe(chatCwd);
  });
});

describe("codex specifics", () => {
  it("reads the directory from a session_meta longer than the listing's first read", async () => {
    const { opts, meta } = await load("codex");
    // The interactive UI's rollouts can have no later record naming the directory within the tail
    // that listing reads: only the first record (22 KB of base instructions with it) names it.
    const file = findFiles(join(opts.home!, ".codex", "sessions")).find((f) => f.endsWith(`${meta.facts.terminalSession}.jsonl`))!;
    const lines = readFileSync(file, "utf8")
      .split("\n")
      .filter((l) => l && !l.includes('"type":"turn_context"'));
    expect(lines[0].length).toBeGreaterThan(16 * 1024);
    writeFileSync(file, `${lines.join("\n")}\n`);
    const { sessions } = await listSessions({ ...opts, dir: meta.facts.terminalCwd });
    expect(sessions.map((s) => s.id)).toEqual([meta.facts.terminalSession]);
    expect(sessions[0].title).toBe("CODEX-TERM-ONE: start here");
  });

  it("shows as many id characters as it takes to tell UUIDv7 ids started the same minute apart", () => {
    const ids = ["01a22e96-881a-7620-a804-66c8543695e6", "01a22e96-9c00-7d33-9e8b-19f178593036"];
    expect(shortIdLength(ids)).toBe(10);
    expect(shortIdLength(["7f3c2a91-0000", "aa00bb11-0000"])).toBe(8);
    expect(shortIdLength(["same", "same"])).toBe(8);
  });
});

describe("store locations", () => {
  it("follow HOME of the environment given (a daemon whose agents run with another HOME reads theirs)", async () => {
    const { opts, meta } = await load("gemini");
    const { sessions } = await listSessions({ runtime: "gemini", env: { HOME: opts.home } });
    expect(sessions.map((s) => s.id)).toContain(meta.facts.chatSession);
  });
});

describe("gemini specifics", () => {
  it("reads a session that `gemini --resume` spread over two files as one, steps from both", async () => {
    const { opts, meta } = await load("gemini");
    const id = meta.facts.terminalSession;
    const chats = join(opts.home!, ".gemini", "tmp", "gemini-terminal-store", "chats");
    expect(readdirSync(chats).filter((f) => f.endsWith(`-${id.slice(0, 8)}.jsonl`))).toHaveLength(2);
    const session = await findSession(id, opts);
    const brief = await briefText(session, opts);
    expect(brief).toContain("GEMINI-TERM-ONE: start here");
    expect(brief).toContain("GEMINI-TERM-TWO: go on");
    expect(brief).not.toContain("<session_context>");
  });
});
