// The private, expiring launch specification of a detached launch. The caller writes it; the
// trampoline in the new terminal claims it by renaming it (so exactly one side wins), starts the
// runtime and writes a confirmation file. Prompt and brief text never reach a shell command line.

import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import type { LaunchCommand } from "../../agents/runtimes/index.js";
import { writePrivateFile } from "../brief/index.js";

/** How long the caller waits for the runtime to confirm it started. */
const CONFIRM_TIMEOUT_MS = 15_000;
/** How often the caller looks for the confirmation. */
const CONFIRM_POLL_MS = 100;

/**
 * Variables that locate a runtime's configuration and sessions. A new terminal starts from its own
 * environment, so these are carried; nothing else is (credentials stay out of the spec file).
 */
const CARRIED_ENV = [
  "CLAUDE_CONFIG_DIR",
  "CLINE_DIR",
  "CODEX_HOME",
  "COPILOT_HOME",
  "CURSOR_CONFIG_DIR",
  "GEMINI_CLI_HOME",
  "HERMES_DATA_DIR_SUFFIX",
  "HERMES_HOME",
  "KIRO_HOME",
  "OH_PERSISTENCE_DIR",
  "OMP_PROFILE",
  "OPENCLAW_STATE_DIR",
  "OPENCODE_DB",
  "PI_CODING_AGENT_DIR",
  "PI_CONFIG_DIR",
  "PI_PROFILE",
  "PRIME_AGENT_CODING_AGENT_DIR",
  "QWEN_HOME",
  "XDG_CONFIG_HOME",
  "XDG_DATA_HOME",
  "XDG_STATE_HOME",
] as const;

export interface LaunchSpec {
  version: 1;
  executable: string;
  args: string[];
  dir: string;
  /** Variables to set in the runtime's environment. */
  set: Record<string, string>;
  /** Variables to remove (approval overrides). */
  unset: string[];
  /** Epoch ms after which the trampoline refuses to start anything. */
  expiresAt: number;
}

export function specFromCommand(cmd: LaunchCommand, env: NodeJS.ProcessEnv, now = Date.now()): LaunchSpec {
  const set: Record<string, string> = {};
  for (const name of CARRIED_ENV) if (env[name]) set[name] = env[name] as string;
  const unset: string[] = [];
  for (const [k, v] of Object.entries(cmd.env)) {
    if (v === null) unset.push(k);
    else set[k] = v;
  }
  return { version: 1, executable: cmd.executable, args: cmd.args, dir: cmd.dir, set, unset, expiresAt: now + CONFIRM_TIMEOUT_MS };
}

export async function writeSpec(dir: string, spec: LaunchSpec): Promise<string> {
  return writePrivateFile(dir, `launch-${randomBytes(8).toString("hex")}.json`, JSON.stringify(spec));
}

export const confirmPathOf = (specPath: string): string => `${specPath}.started`;
export const failurePathOf = (specPath: string): string => `${specPath}.failed`;

export type ConfirmOutcome = { state: "started"; pid: number } | { state: "failed"; message: string } | { state: "cancelled" } | { state: "claimed-late" };

/** Waits for the trampoline's confirmation; on timeout removes the spec so a late terminal starts nothing. */
export async function awaitConfirmation(specPath: string, timeoutMs = CONFIRM_TIMEOUT_MS): Promise<ConfirmOutcome> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const started = await readIf(confirmPathOf(specPath));
    if (started !== undefined) {
      await fs.rm(confirmPathOf(specPath), { force: true });
      return { state: "started", pid: Number.parseInt(started, 10) || 0 };
    }
    const failed = await readIf(failurePathOf(specPath));
    if (failed !== undefined) {
      await fs.rm(failurePathOf(specPath), { force: true });
      return { state: "failed", message: failed };
    }
    if (Date.now() >= deadline) break;
    await new Promise((r) => setTimeout(r, CONFIRM_POLL_MS));
  }
  try {
    await fs.unlink(specPath);
    return { state: "cancelled" };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return { state: "claimed-late" };
    throw err;
  }
}

async function readIf(file: string): Promise<string | undefined> {
  try {
    return await fs.readFile(file, "utf8");
  } catch {
    return undefined;
  }
}

/** Claims the spec by renaming it; undefined when the caller already withdrew it (or another claimed it). */
export async function claimSpec(specPath: string): Promise<LaunchSpec | undefined> {
  const claimed = path.join(path.dirname(specPath), `${path.basename(specPath)}.claimed-${process.pid}`);
  try {
    await fs.rename(specPath, claimed);
  } catch {
    return undefined;
  }
  try {
    return JSON.parse(await fs.readFile(claimed, "utf8")) as LaunchSpec;
  } finally {
    await fs.rm(claimed, { force: true });
  }
}
