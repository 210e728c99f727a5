// The actions behind `baton handoff list | export | resume`. Loaded lazily by cli.ts.

import { existsSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { Command } from "commander";
import { BatonError } from "../../kernel/errors.js";
import { findSession, listSessions, type StoreOptions, type StoredSession } from "../../agents/stores/index.js";
import { displayCommand } from "../../agents/runtimes/index.js";
import { briefText, defaultBriefDir, writeBriefFor, writePrivateFile } from "../brief/index.js";
import { planJson, planResume, type ResumePlan } from "./plan.js";
import { formatList } from "./format.js";

interface StoreFlags {
  harness?: string;
  storeDir?: string[];
  claudeProjectsDir?: string;
  codexDir?: string;
  opencodeDir?: string;
  clineDir?: string;
  dataDir?: string;
}

/** Store options from the shared flags; each `--*-dir` wins over `--store-dir` for its runtime. */
export function storeOptions(flags: StoreFlags): StoreOptions {
  const storeDirs: Record<string, string> = {};
  for (const pair of flags.storeDir ?? []) {
    const eq = pair.indexOf("=");
    if (eq <= 0 || eq === pair.length - 1) throw new BatonError(`--store-dir takes <runtime>=<path>, not "${pair}".`);
    storeDirs[pair.slice(0, eq)] = path.resolve(pair.slice(eq + 1));
  }
  const specific: Array<[string, string | undefined]> = [
    ["claude", flags.claudeProjectsDir],
    ["codex", flags.codexDir],
    ["opencode", flags.opencodeDir],
    ["cline", flags.clineDir],
  ];
  for (const [rt, dir] of specific) if (dir) storeDirs[rt] = path.resolve(dir);
  return { runtime: flags.harness, storeDirs, ...(flags.dataDir ? { dataDir: path.resolve(flags.dataDir) } : {}) };
}

/** The subcommand's flags over the main CLI's global ones (`baton --data-dir D handoff …`). */
function withGlobals<T extends object>(opts: T, cmd: Command): T {
  return { ...(cmd.optsWithGlobals() as object), ...opts } as T;
}

function out(cmd: Command, text: string): void {
  cmd.configureOutput().writeOut?.(text.endsWith("\n") ? text : `${text}\n`);
}

function errOut(cmd: Command, text: string): void {
  cmd.configureOutput().writeErr?.(text.endsWith("\n") ? text : `${text}\n`);
}

/** Runs an action, turning a BatonError into a short message and exit code 1. */
async function guarded(cmd: Command, fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof BatonError) cmd.error(err.userMessage, { exitCode: 1, code: "baton.handoff" });
    throw err;
  }
}

export async function runList(opts: StoreFlags & { here?: boolean; dir?: string; subagents?: boolean; limit?: string; json?: boolean }, cmd: Command): Promise<void> {
  await guarded(cmd, async () => {
    const limit = Number.parseInt(opts.limit ?? "25", 10);
    if (!Number.isFinite(limit) || limit < 0) throw new BatonError(`--limit takes a number ≥ 0, not "${opts.limit}".`);
    const dir = opts.here ? process.cwd() : opts.dir;
    const { sessions, warnings } = await listSessions({ ...storeOptions(withGlobals(opts, cmd)), dir, includeSubagents: !!opts.subagents, limit });
    if (opts.json) {
      out(cmd, JSON.stringify({ sessions, warnings }, null, 2));
      return;
    }
    for (const w of warnings) errOut(cmd, `warning: ${w}`);
    out(cmd, formatList(sessions));
  });
}

export async function runExport(id: string, opts: StoreFlags & { print?: boolean; outputDir?: string; json?: boolean }, cmd: Command): Promise<void> {
  await guarded(cmd, async () => {
    const store = storeOptions(withGlobals(opts, cmd));
    const session = await findSession(id, store);
    if (opts.print) {
      const text = await briefText(session, store);
      out(cmd, opts.json ? JSON.stringify({ path: null, from: "session_store", session, brief: text }, null, 2) : text);
      return;
    }
    const dir = opts.outputDir ? path.resolve(opts.outputDir) : defaultBriefDir(store);
    const file = await writeBriefFor(session, dir, store);
    // The text too: Baton on another machine asks for a brief this way and sends it in a first prompt.
    out(cmd, opts.json ? JSON.stringify({ path: file, from: "session_store", session, brief: await readFile(file, "utf8") }, null, 2) : `Brief written to ${file}`);
  });
}

type ResumeFlags = StoreFlags & { agent?: string; new?: boolean; cwd?: string; launch?: string; print?: boolean; json?: boolean; yes?: boolean; outputDir?: string };

export async function runResume(id: string, opts: ResumeFlags, cmd: Command): Promise<void> {
  await guarded(cmd, async () => {
    const store = storeOptions(withGlobals(opts, cmd));
    const session = await findSession(id, store);
    const outputDir = opts.outputDir ? path.resolve(opts.outputDir) : defaultBriefDir(store);
    const plan = planResume(session, { agent: opts.agent, new: opts.new, cwd: opts.cwd, outputDir }, { dirExists: isDir, fileExists: existsSync });
    if (opts.print) {
      out(cmd, opts.json ? JSON.stringify(planJson(plan), null, 2) : describePlan(plan));
      return;
    }
    const launch = (opts.launch ?? "current") as import("./launch.js").LaunchMode;
    out(cmd, describePlan(plan));
    const { confirm, launchPlan } = await import("./launch.js");
    if (!opts.yes && !(await confirm("Continue? [Y/n] "))) {
      if (!process.stdin.isTTY) throw new BatonError("Not launching: there is no terminal to ask in. Pass --yes (with --launch auto or tmux from an agent harness).");
      out(cmd, "Cancelled.");
      return;
    }
    if (plan.mode === "brief" && plan.brief_path) {
      // Write the brief now and point the prompt at the file actually written (a clash adds a suffix).
      const text = await briefText(session, store);
      const written = await writePrivateFile(path.dirname(plan.brief_path), path.basename(plan.brief_path), text);
      if (written !== plan.brief_path) {
        plan.args = plan.args.map((a) => a.split(plan.brief_path as string).join(written));
        plan.brief_path = written;
      }
      out(cmd, `Brief written to ${written}`);
    }
    const result = await launchPlan(plan, launch, { specDir: outputDir });
    out(cmd, result.message);
    if (result.exitCode !== undefined) process.exitCode = result.exitCode;
  });
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

export function describePlan(plan: ResumePlan): string {
  const s: StoredSession = plan.session;
  const how = plan.mode === "native" ? `Reopen ${s.runtime} session ${s.id} natively` : `Start a new ${plan.target} session from a brief of ${s.runtime} session ${s.id}`;
  return [
    `${how}: ${plan.reason}.`,
    `  in:  ${plan.dir}`,
    `  run: ${displayCommand(plan)}`,
    ...(plan.brief_path ? [`  brief: ${plan.brief_path}`] : []),
  ].join("\n");
}
