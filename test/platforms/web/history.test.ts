// The web chat's history on disk: what survives a restart, how much is kept, and that a damaged
// file does not stop the page from loading.
import { afterEach, describe, expect, it } from "vitest";
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "../../../src/kernel/log.js";
import { ConversationHistory, type StoredMessage } from "../../../src/platforms/web/history.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "baton-web-history-"));
  dirs.push(dir);
  return join(dir, "web");
}

function message(id: string, text: string, at = Date.now()): StoredMessage {
  return { id, role: "agent", kind: "text", text, at };
}

const CONVERSATION = "conv-abcdef";

describe("web chat history", () => {
  it("keeps sends and the latest edit across a restart, in 0600 files", async () => {
    const dir = freshDir();
    const history = new ConversationHistory(dir, silentLogger());
    history.load();
    history.append(CONVERSATION, { ...message("u1", "hi"), role: "user", kind: "user" });
    history.append(CONVERSATION, message("a1", "Hel"));
    history.update(CONVERSATION, message("a1", "Hello"));
    history.update(CONVERSATION, message("a1", "Hello there"));
    await history.flush();

    const file = join(dir, `${CONVERSATION}.jsonl`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    // The two edits were coalesced into one line.
    expect(readFileSync(file, "utf8").trim().split("\n")).toHaveLength(3);

    const reloaded = new ConversationHistory(dir, silentLogger());
    reloaded.load();
    expect(reloaded.ids()).toEqual([CONVERSATION]);
    expect(reloaded.messages(CONVERSATION).map((m) => [m.id, m.text])).toEqual([
      ["u1", "hi"],
      ["a1", "Hello there"],
    ]);
  });

  it("keeps only the newest messages and compacts the file", async () => {
    const dir = freshDir();
    const limit = 5;
    const history = new ConversationHistory(dir, silentLogger(), limit);
    history.load();
    for (let i = 1; i <= 40; i++) history.append(CONVERSATION, message(`m${i}`, `message ${i}`));
    await history.flush();
    expect(history.messages(CONVERSATION).map((m) => m.id)).toEqual(["m36", "m37", "m38", "m39", "m40"]);
    const lines = readFileSync(join(dir, `${CONVERSATION}.jsonl`), "utf8")
      .trim()
      .split("\n");
    expect(lines.length).toBeLessThanOrEqual(limit * 3);

    const reloaded = new ConversationHistory(dir, silentLogger(), limit);
    reloaded.load();
    expect(reloaded.messages(CONVERSATION).map((m) => m.id)).toEqual(["m36", "m37", "m38", "m39", "m40"]);
  });

  it("keeps at most its characters of text too (a huge answer), always the newest message, and the file follows", async () => {
    const dir = freshDir();
    const history = new ConversationHistory(dir, silentLogger(), 500, undefined, 50_000);
    history.load();
    for (let i = 1; i <= 100; i++) history.append(CONVERSATION, message(`m${i}`, "x".repeat(20_000)));
    await history.flush();
    expect(history.messages(CONVERSATION).map((m) => m.id)).toEqual(["m99", "m100"]);
    const reloaded = new ConversationHistory(dir, silentLogger(), 500, undefined, 50_000);
    reloaded.load();
    expect(reloaded.messages(CONVERSATION).map((m) => m.id)).toEqual(["m99", "m100"]);
    expect(
      readFileSync(join(dir, `${CONVERSATION}.jsonl`), "utf8")
        .trim()
        .split("\n").length,
    ).toBeLessThanOrEqual(15);
    const huge = new ConversationHistory(freshDir(), silentLogger(), 500, undefined, 50_000);
    huge.load();
    huge.append(CONVERSATION, message("big", "y".repeat(80_000)));
    expect(huge.messages(CONVERSATION).map((m) => m.id)).toEqual(["big"]);
  });

  it("skips a torn last line and ignores files that are not conversations", async () => {
    const dir = freshDir();
    const history = new ConversationHistory(dir, silentLogger());
    history.load();
    history.append(CONVERSATION, message("a1", "kept"));
    await history.flush();
    appendFileSync(join(dir, `${CONVERSATION}.jsonl`), '{"id":"a2","te');
    appendFileSync(join(dir, "../web/notes.txt"), "hello");
    const warnings: unknown[] = [];
    const log = { debug() {}, info() {}, error() {}, warn: (obj: unknown) => void warnings.push(obj) };
    const reloaded = new ConversationHistory(dir, log);
    reloaded.load();
    expect(reloaded.ids()).toEqual([CONVERSATION]);
    expect(reloaded.messages(CONVERSATION).map((m) => m.text)).toEqual(["kept"]);
    expect(warnings).toHaveLength(1);
  });

  it("forgets a conversation and its file", async () => {
    const dir = freshDir();
    const history = new ConversationHistory(dir, silentLogger());
    history.load();
    history.append(CONVERSATION, message("a1", "bye"));
    await history.forget(CONVERSATION);
    expect(history.has(CONVERSATION)).toBe(false);
    expect(existsSync(join(dir, `${CONVERSATION}.jsonl`))).toBe(false);
  });
});
