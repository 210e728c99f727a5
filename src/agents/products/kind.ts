// What Baton knows about one agent product: how to start its ACP server, how to find it, and how
// to help a user who has not installed it. Terminal commands (native resume, new session from a
// prompt) live with the session-store runtimes in src/agents/runtimes/.
import { which } from "../../kernel/process.js";

export interface AgentKind {
  id: string;
  displayName: string;
  /** The runtime id of src/agents/runtimes/ and the handoff CLI (claude, codex, gemini, …). */
  runtime: string;
  /** ACP server launch: executable and arguments. Never an approval-bypass flag. */
  acpCommand(): { command: string; args: string[] };
  /** The agent's own CLI, checked by `baton doctor` (the ACP adapter may be a separate package). */
  cliCommand?: string;
  /** How to install what is missing. */
  installHint: string;
  /** Environment variables removed before spawning, because they would turn approvals off. */
  unsafeEnv?: string[];
  /** Environment set at spawn so the agent asks the user before acting (its own default may not). */
  askEnv?: Record<string, string>;
  /**
   * Why a failed resume may take the session's history with it: Baton then keeps a brief before
   * every resume, so a new session can start from it.
   */
  resumeMayLoseHistory?: string;
  /** Arguments or env that select a model. */
  modelArgs?(model: string): { args?: string[]; env?: Record<string, string> };
}

export function isInstalled(kind: AgentKind, env: NodeJS.ProcessEnv = process.env): boolean {
  return which(kind.acpCommand().command, env) !== undefined;
}
