// Launch commands for the runtimes: native resume (`/handover`, `baton handoff resume`) and a new
// session whose first message points at a brief (`/switch host`, `resume --agent`).

import path from "node:path";
import { pathToFileURL } from "node:url";
import type { ContentBlock } from "@agentclientprotocol/sdk";
import { BatonError } from "../../kernel/errors.js";
import { shellQuote } from "../../kernel/shell.js";

import type { StoredSession } from "../stores/types.js";
import { getProduct, PRODUCTS, type AgentProduct } from "../products/index.js";
import { describeBadId, isSafeSessionRef, isValidSessionId, sessionIdShape } from "./session-ids.js";

/** What to run: the exact argument vector (never a shell string) and environment changes. */
export interface LaunchCommand {
  executable: string;
  args: string[];
  /** Variables to set (string) or remove (null) in the launched runtime's environment. */
  env: Record<string, string | null>;
  dir: string;
}

/** A runtime cannot do what was asked; the message says what would work instead. */
export class RuntimeRefusal extends BatonError {}

export function listRuntimes(): AgentProduct[] {
  return PRODUCTS;
}

function getRuntime(id: string): AgentProduct | undefined {
  return getProduct(id);
}

export function requireRuntime(id: string): AgentProduct {
  const rt = getRuntime(id);
  if (!rt) throw new RuntimeRefusal(`Unknown runtime "${id}". Known: ${PRODUCTS.map((r) => r.id).join(", ")}.`);
  return rt;
}

/** The product's one approval-safety list removed, its asking modes set. */
function envFor(rt: AgentProduct): Record<string, string | null> {
  const env: Record<string, string | null> = {};
  for (const name of rt.unsafeEnv ?? []) env[name] = null;
  Object.assign(env, rt.askEnv ?? {});
  return env;
}

/** The command that reopens `session` in its own runtime, in `dir` (default: its recorded cwd). */
export function nativeResumeCommand(session: StoredSession, dir?: string): LaunchCommand {
  const rt = requireRuntime(session.runtime);
  const { notStartable, resumeArgs } = rt.terminal;
  if (notStartable) throw new RuntimeRefusal(`Baton cannot start ${rt.label}: ${notStartable}.`);
  if (!resumeArgs) throw new RuntimeRefusal(`${rt.label} has no command that reopens a session.`);
  if (session.native && !session.native.ok) throw new RuntimeRefusal(`This ${rt.label} session cannot be reopened natively: ${session.native.reason ?? "its CLI cannot load it"}.`);
  // The id (and reference) become arguments: never one that a CLI could read as an option.
  if (!isValidSessionId(rt.id, session.id, { subagent: !!session.subagentOf })) {
    throw new RuntimeRefusal(`The session id ${describeBadId(session.id)} is not a valid ${rt.label} session id (${sessionIdShape(rt.id)}), so Baton will not pass it to ${rt.executable}.`);
  }
  if (session.native?.ref !== undefined && !isSafeSessionRef(session.native.ref)) {
    throw new RuntimeRefusal(`The session reference ${describeBadId(session.native.ref)} is not a valid argument, so Baton will not pass it to ${rt.executable}.`);
  }
  const where = dir ?? session.cwd;
  if (!where) throw new RuntimeRefusal(`The ${rt.label} session ${session.id} records no directory; pass --cwd.`);
  return { executable: rt.executable, args: resumeArgs(session), env: envFor(rt), dir: where };
}

/**
 * The command that starts a new `runtimeId` session in `dir` whose first message is `prompt`;
 * `readDirs` are directories outside `dir` it must be able to read (where the brief is).
 */
export function newSessionCommand(runtimeId: string, prompt: string, dir: string, readDirs: string[] = []): LaunchCommand {
  const rt = requireRuntime(runtimeId);
  const { notStartable, newArgs, noNewSession, readArgs } = rt.terminal;
  if (notStartable) throw new RuntimeRefusal(`Baton cannot start ${rt.label}: ${notStartable}.`);
  if (!newArgs) throw new RuntimeRefusal(`${noNewSession ?? `${rt.label} cannot start a session from a prompt`}.`);
  const outside = readDirs.filter((d) => !within(d, dir));
  return { executable: rt.executable, args: [...(outside.length && readArgs ? readArgs(outside) : []), ...newArgs(prompt)], env: envFor(rt), dir };
}

function within(child: string, parent: string): boolean {
  const rel = path.relative(parent, child);
  return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
}

/** The marker that links a new session to the one it continues. A claim in text, not an identity. */
function handoffMarker(fromRuntime: string, sessionId: string): string {
  return `[baton-handoff from=${fromRuntime} session=${sessionId}]`;
}

/**
 * The first message of a session continued from a brief. It names the brief by path (a command
 * line is visible to every local user, so the brief itself is never inlined) and ends with the marker.
 */
export function handoffPrompt(briefPath: string, fromRuntime: string, sessionId: string): string {
  return [
    `You are continuing work from another agent session. Read the handoff brief at ${briefPath} first.`,
    "Then check the working tree, tell me what you understand the task to be, and confirm it with me before changing anything.",
    "",
    handoffMarker(fromRuntime, sessionId),
  ].join("\n");
}

/**
 * The first prompt of a chat session continued from a brief: the brief's text embedded (an ACP
 * resource the agent cannot be refused to read, unlike a path its file tools may not reach), the
 * same instructions as a terminal launch, and the marker. Chat prompts never reach a command line.
 */
export function handoffContent(briefPath: string, briefText: string, fromRuntime: string, sessionId: string): ContentBlock[] {
  // The brief comes first and the text names no path: Gemini CLI turns an embedded file into a
  // mention placed where the block was and joins it with the text blocks around it, without a
  // separator. So the text starts and ends with a blank line: the mention and a message sent after
  // it each stand on lines of their own.
  const intro = [
    "",
    "",
    "You are continuing work from another agent session. Its handoff brief is attached; read it first.",
    "Then check the working tree, tell me what you understand the task to be, and confirm it with me before changing anything.",
    "",
    handoffMarker(fromRuntime, sessionId),
    "",
    "",
  ].join("\n");
  return [
    { type: "resource", resource: { uri: pathToFileURL(briefPath).href, mimeType: "text/markdown", text: briefText } },
    { type: "text", text: intro },
  ];
}

/** One-line shell rendering of a command, for showing to a person (never executed by a shell). */
export function displayCommand(cmd: Pick<LaunchCommand, "executable" | "args" | "env">): string {
  const q = shellQuote;
  const sets = Object.entries(cmd.env)
    .filter(([, v]) => v !== null)
    .map(([k, v]) => `${k}=${q(v as string)}`);
  const unsets = Object.entries(cmd.env)
    .filter(([, v]) => v === null)
    .map(([k]) => k);
  const prefix = unsets.length ? `env ${unsets.map((u) => `-u ${u}`).join(" ")} ` : "";
  return `${prefix}${[...sets, cmd.executable, ...cmd.args].map((p, i) => (i < sets.length ? p : q(p))).join(" ")}`;
}
