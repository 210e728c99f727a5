// What every product's `baton launch` plan shares: the per-run environment the MCP tools read, how
// the agent starts `baton mcp`, and the refusal of flags that would turn the agent's approvals off.
import type { Readable, Writable } from "node:stream";
import { CommandError } from "../../../kernel/errors.js";
import { BATON_BIN } from "../../../kernel/install.js";

export interface LaunchContext {
  dataDir: string;
  launchId: string;
  env: NodeJS.ProcessEnv;
  /** Why Gemini CLI would not read a settings file there (tests stand in for root-owned directories). */
  geminiSkips?: (file: string) => string | undefined;
}

export interface McpServerSpec {
  command: string;
  args: string[];
  env: Record<string, string>;
}

export interface LaunchPlan {
  command: string;
  args: string[];
  env: Record<string, string>;
  /** Per-run files (0600, in the data dir), removed when the launch ends. */
  files: Array<{ path: string; content: string }>;
  /** Variables removed from the agent's environment (the product's unsafe list, set by planLaunch). */
  unsetEnv?: string[];
}

export function batonEnv(agent: string, ctx: LaunchContext): Record<string, string> {
  return { BATON_AGENT_KIND: agent, BATON_LAUNCH_ID: ctx.launchId, BATON_DATA_DIR: ctx.dataDir };
}

/** `baton mcp` as the agent should start it: this Node, this install, this run's environment. */
export function batonMcpServer(agent: string, ctx: LaunchContext): McpServerSpec {
  return { command: process.execPath, args: [BATON_BIN, "mcp"], env: batonEnv(agent, ctx) };
}

/** Throws when `args` holds one of `flags` (alone, or as `flag value` / `flag=value`). */
export function refuseFlags(flags: ReadonlyArray<string | [string, string]>, args: string[]): void {
  for (const flag of flags) {
    const [name, value] = typeof flag === "string" ? [flag, undefined] : flag;
    const hit = args.some((a, i) => (value === undefined ? a === name || a.startsWith(`${name}=`) : (a === name && args[i + 1] === value) || a === `${name}=${value}`));
    if (hit) throw new CommandError(`Baton never starts an agent with its approvals turned off (${value ? `${name} ${value}` : name}). Leave that flag out.`);
  }
}

/** The terminal a launch that Baton runs itself talks to. */
interface TerminalIo {
  cwd: string;
  env: NodeJS.ProcessEnv;
  input: Readable;
  output: Writable;
  version: string;
}

/** A launch Baton runs in its own process (the demo agent's terminal): resolves when the user quits. */
export type InBatonLaunch = (io: TerminalIo) => Promise<void>;
