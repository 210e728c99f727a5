// Decides how `resume` picks a session up: reopen it natively, or start a new session from a
// brief. Pure apart from the filesystem checks passed in, so every refusal is testable.

import path from "node:path";
import type { StoredSession } from "../../agents/stores/types.js";
import { handoffPrompt, type LaunchCommand, newSessionCommand, nativeResumeCommand, requireRuntime, RuntimeRefusal } from "../../agents/runtimes/index.js";
import { briefFileName } from "../brief/index.js";

export interface ResumeRequest {
  agent?: string;
  new?: boolean;
  cwd?: string;
  /** Where the brief would be written. */
  outputDir: string;
  now?: Date;
}

export interface ResumeChecks {
  dirExists(dir: string): boolean;
  fileExists(file: string): boolean;
}

export interface ResumePlan extends LaunchCommand {
  mode: "native" | "brief";
  reason: string;
  /** Runtime the session continues in. */
  target: string;
  /** The brief the new session reads (brief mode); not yet written when printed. */
  brief_path: string | null;
  session: StoredSession;
}

export function planResume(session: StoredSession, req: ResumeRequest, checks: ResumeChecks): ResumePlan {
  const source = requireRuntime(session.runtime);
  const target = requireRuntime(req.agent ?? session.runtime);
  const sameRuntime = target.id === source.id;

  if (target.terminal.notStartable) {
    if (!req.agent) throw new RuntimeRefusal(`Baton cannot start ${source.label}: ${source.terminal.notStartable}.`);
    throw new RuntimeRefusal(`--agent ${target.id} is refused: ${target.terminal.notStartable}.`);
  }

  const dir = req.cwd ? path.resolve(req.cwd) : session.cwd;
  if (!dir) throw new RuntimeRefusal(`Session ${session.id} records no directory; pass --cwd to choose one.`);
  if (!checks.dirExists(dir)) {
    throw new RuntimeRefusal(
      req.cwd ? `The directory ${dir} does not exist.` : `The session's directory ${dir} no longer exists; Baton will not start it somewhere else. Pass --cwd to choose a directory.`,
    );
  }
  const fileThere = checks.fileExists(session.file);
  const otherDir = !!req.cwd && !!session.cwd && path.resolve(req.cwd) !== path.resolve(session.cwd);

  // A runtime that looks sessions up within their workspace and cannot start from a prompt (fx):
  // only a native reopen works.
  const nativeOnly = source.terminal.nativeOnly;
  if (nativeOnly && sameRuntime) {
    if (req.new) throw new RuntimeRefusal(`${source.label} cannot start a new session from a brief (${nativeOnly}). Continue it in another runtime with --agent.`);
    if (!fileThere) throw new RuntimeRefusal(`The ${source.label} session's files are gone (${session.file}); continue it in another runtime with --agent.`);
    if (otherDir) throw new RuntimeRefusal(`${source.label} finds a session only in its own workspace (${session.cwd}); --cwd ${dir} cannot work.`);
  }
  if (target.terminal.nativeOnly && !sameRuntime) {
    throw new RuntimeRefusal(`--agent ${target.id} is refused: ${target.label} has no interactive session that starts from a prompt, so it cannot continue another runtime's session.`);
  }

  const blocker = nativeBlocker(session, {
    sameRuntime,
    isNew: !!req.new,
    fileThere,
    otherDir,
    resumeNeedsRecordedDir: !!target.terminal.resumeNeedsRecordedDir,
    hasResume: !!target.terminal.resumeArgs,
  });
  if (!blocker) {
    return { mode: "native", reason: `${target.label} reopens the session with its full context`, target: target.id, ...nativeResumeCommand(session, dir), brief_path: null, session };
  }

  if (!target.terminal.newArgs) {
    if (sameRuntime) throw new RuntimeRefusal(`${blocker}, and ${target.terminal.noNewSession ?? `${target.label} cannot start from a brief`}. Continue it in another runtime with --agent.`);
    throw new RuntimeRefusal(`--agent ${target.id} is refused: ${target.terminal.noNewSession ?? `${target.label} cannot start from a brief`}; it reopens only its own sessions.`);
  }
  const briefPath = path.join(req.outputDir, briefFileName(session, req.now));
  const prompt = handoffPrompt(briefPath, session.runtime, session.id);
  return { mode: "brief", reason: blocker, target: target.id, ...newSessionCommand(target.id, prompt, dir, [req.outputDir]), brief_path: briefPath, session };
}

/** Why a native reopen is not possible, or undefined when it is. */
function nativeBlocker(
  session: StoredSession,
  f: { sameRuntime: boolean; isNew: boolean; fileThere: boolean; otherDir: boolean; resumeNeedsRecordedDir: boolean; hasResume: boolean },
): string | undefined {
  if (!f.sameRuntime) return `continuing a ${session.runtime} session in another runtime`;
  if (f.isNew) return "--new asks for a fresh session from a brief";
  if (!f.hasResume) return `${session.runtime} has no command that reopens a session`;
  if (session.native && !session.native.ok) return session.native.reason ?? "its CLI cannot reopen this session";
  if (!f.fileThere) return `the session file is no longer on this machine (${session.file})`;
  if (f.resumeNeedsRecordedDir && f.otherDir) return `${session.runtime} finds a session only from its recorded directory (${session.cwd})`;
  return undefined;
}

/** The plan as `--print --json` shows it. */
export function planJson(plan: ResumePlan): Record<string, unknown> {
  return {
    mode: plan.mode,
    reason: plan.reason,
    target: plan.target,
    executable: plan.executable,
    args: plan.args,
    env: plan.env,
    dir: plan.dir,
    brief_path: plan.brief_path,
    session: { id: plan.session.id, runtime: plan.session.runtime, title: plan.session.title },
  };
}
