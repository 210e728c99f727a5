// Shared pieces of the fixture-store generators: a private temp home, two working directories,
// JSONL writing with an optional torn last line, and the facts each fixture promises the tests.

import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { StoreOptions } from "../../../src/agents/stores/index.js";
import { testTempDir } from "../../support/temp.js";

/** A token-shaped string planted in prompts; no brief may show it. */
export const PLANTED_SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";

interface FixtureSession {
  id: string;
  title: string;
  cwd: string;
  firstPrompt: string;
}

export interface StoreFixture {
  runtime: string;
  root: string;
  /** Options that point every reader at this fixture's private home, never the real one. */
  opts: StoreOptions;
  /** The newest top-level session. */
  main: FixtureSession;
  /** An older top-level session in another directory. */
  other: FixtureSession;
  subagent?: { id: string; parent: string };
  /** Args of the native reopen of `main`, when the runtime's CLI can reopen it. */
  nativeArgs?: string[];
}

/** What a title taken from the planted first prompt looks like: the secret redacted. */
export const MAIN_PROMPT_TITLE = "Fix the login bug; the token is [REDACTED]";

export const T_OLD = "2026-11-10T09:00:00.000Z";
export const T_MAIN = "2026-11-20T10:00:00.000Z";
export const T_MAIN_LATER = "2026-11-20T10:05:00.000Z";
export const T_SUB = "2026-11-20T10:02:00.000Z";

export interface Base {
  root: string;
  home: string;
  cwdA: string;
  cwdB: string;
  opts: StoreOptions;
}

export function makeBase(runtime: string): Base {
  const root = testTempDir(`baton-store-${runtime}-`);
  const home = path.join(root, "home");
  const cwdA = path.join(root, "work", "alpha");
  const cwdB = path.join(root, "work", "beta");
  for (const d of [home, cwdA, cwdB]) mkdirSync(d, { recursive: true });
  return { root, home, cwdA, cwdB, opts: { home, env: {}, dataDir: path.join(home, ".baton") } };
}

/** Writes records as JSONL; `torn` appends half a record with no newline, as a crash leaves it. */
export function writeJsonl(file: string, records: unknown[], opts: { torn?: boolean } = {}): void {
  mkdirSync(path.dirname(file), { recursive: true });
  let text = `${records.map((r) => JSON.stringify(r)).join("\n")}\n`;
  if (opts.torn) text += '{"type":"user","message":{"content":"this line was cut off by a cra';
  writeFileSync(file, text);
}

export function writeJson(file: string, value: unknown): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(value));
}

export const uuid = (n: number): string => `${String(n).padStart(8, "0")}-1111-4222-8333-${String(n).padStart(12, "0")}`;
