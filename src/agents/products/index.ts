// The agent kinds Baton can drive, in the order `agents.default: auto` tries them.
import { claude } from "./claude/kind.js";
import { codex } from "./codex/kind.js";
import { gemini } from "./gemini/kind.js";
import { opencode } from "./opencode/kind.js";
import { qwen } from "./qwen/kind.js";
import { goose } from "./goose/kind.js";
import { demo } from "./demo/kind.js";
import { isInstalled, type AgentKind } from "./kind.js";

export type { AgentKind } from "./kind.js";
export { isInstalled } from "./kind.js";

export const AGENT_KINDS: readonly AgentKind[] = [claude, codex, gemini, opencode, qwen, goose, demo];

export function getAgentKind(id: string): AgentKind | undefined {
  return AGENT_KINDS.find((k) => k.id === id);
}

/** `auto`: the first kind whose ACP command is on PATH, else the demo agent. */
export function firstInstalledKind(env: NodeJS.ProcessEnv = process.env): AgentKind {
  return AGENT_KINDS.find((k) => k.id !== "demo" && isInstalled(k, env)) ?? demo;
}
