// Writes handoff briefs: a redacted, bounded Markdown summary of one stored session.

import { constants, promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { contextFor, findSession, loadReader, type StoreOptions } from "../../agents/stores/index.js";
import { StoreReadError } from "../../agents/stores/errors.js";
import type { StoredSession } from "../../agents/stores/types.js";
import { type BriefDigest, DigestBuilder } from "./digest.js";
import { renderBrief } from "./render.js";

export { renderBrief, BRIEF_MAX_BYTES } from "./render.js";

/** Briefs carry prompt text and command output: private directory and files. */
const BRIEF_DIR_MODE = 0o700;
const BRIEF_FILE_MODE = 0o600;

export function defaultBriefDir(opts: { dataDir?: string; env?: NodeJS.ProcessEnv; home?: string } = {}): string {
  const env = opts.env ?? process.env;
  const dataDir = opts.dataDir ?? (env.BATON_DATA_DIR || path.join(opts.home ?? os.homedir(), ".baton"));
  return path.join(dataDir, "handoffs");
}

/** Reads a session's steps through its reader into the digest a brief shows. */
async function digestSession(session: StoredSession, opts: StoreOptions = {}, warnings: string[] = []): Promise<BriefDigest> {
  const reader = await loadReader(session.runtime);
  if (!reader) throw new StoreReadError(`Baton has no reader for ${session.runtime} sessions.`);
  const builder = new DigestBuilder();
  await reader.readSteps(session, contextFor(reader, opts, warnings), builder.add);
  return builder.result();
}

/** The brief's Markdown for a session. */
export async function briefText(session: StoredSession, opts: StoreOptions = {}, now = new Date()): Promise<string> {
  return renderBrief({ session, digest: await digestSession(session, opts), generatedAt: now.toISOString() });
}

/** `<runtime>-<id>-<time>.md`; the time keeps successive briefs of one session apart. */
export function briefFileName(session: StoredSession, now = new Date()): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");
  const safeId = session.id.replace(/[^\w.-]/g, "_").slice(0, 80);
  return `${session.runtime}-${safeId}-${stamp}.md`;
}

/** Writes `text` to a new file in `dir` (0700), as 0600, never overwriting: a clash gets a suffix. */
export async function writePrivateFile(dir: string, name: string, text: string): Promise<string> {
  await fs.mkdir(dir, { recursive: true, mode: BRIEF_DIR_MODE });
  await fs.chmod(dir, BRIEF_DIR_MODE);
  const ext = path.extname(name);
  const stem = name.slice(0, name.length - ext.length);
  for (let n = 0; ; n++) {
    const file = path.join(dir, n === 0 ? name : `${stem}-${n}${ext}`);
    try {
      // O_EXCL: fails instead of replacing an existing brief, even under a race.
      const handle = await fs.open(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, BRIEF_FILE_MODE);
      try {
        await handle.writeFile(text, "utf8");
      } finally {
        await handle.close();
      }
      await fs.chmod(file, BRIEF_FILE_MODE);
      return file;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST" || n > 1000) throw err;
    }
  }
}

export interface WriteBriefOptions extends StoreOptions {
  runtime: string;
  sessionId: string;
  outputDir: string;
}

/** Finds the session, writes its brief into `outputDir`, and returns the path. */
export async function writeBrief(opts: WriteBriefOptions): Promise<{ path: string; session: StoredSession }> {
  const session = await findSession(opts.sessionId, opts);
  return { path: await writeBriefFor(session, opts.outputDir, opts), session };
}

/** Writes the brief of an already-found session. */
export async function writeBriefFor(session: StoredSession, outputDir: string, opts: StoreOptions = {}, now = new Date()): Promise<string> {
  const text = await briefText(session, opts, now);
  return writePrivateFile(outputDir, briefFileName(session, now), text);
}
