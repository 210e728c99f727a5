// The actions behind `baton handoff list | export | resume`. Loaded lazily by cli.ts.

import { existsSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import type { Command } from "commander";
import { BatonError } from "../../kernel/errors.js";
import { findSession, type StoredSession } from "../../agents/stores/index.js";
import { displayCommand } from "../../agents/runtimes/index.js";
import { briefText, defaultBriefDir, writeBriefFor, writePrivateFile } from "../brief/index.js";
import { planJson, planResume, type ResumePlan } from "./plan.js";
import { guarded, out, storeOptions, type StoreFlags, withGlobals } from "./options.js";

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

function describePlan(plan: ResumePlan): string {
  const s: StoredSession = plan.session;
  const how = plan.mode === "native" ? `Reopen ${s.runtime} session ${s.id} natively` : `Start a new ${plan.target} session from a brief of ${s.runtime} session ${s.id}`;
  return [`${how}: ${plan.reason}.`, `  in:  ${plan.dir}`, `  run: ${displayCommand(plan)}`, ...(plan.brief_path ? [`  brief: ${plan.brief_path}`] : [])].join("\n");
}
