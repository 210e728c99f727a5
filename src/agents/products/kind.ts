// An agent Baton drives in chat, as the supervisor and host see it: a product's chat side
// (products/<id>/index.ts) or one of the config's agents.custom.
import { which } from "../../kernel/process.js";

export interface AgentKind {
  id: string;
  displayName: string;
  /** The product id of its sessions: its runtime for /handover and the handoff CLI (claude, codex, gemini, …). */
  runtime: string;
  /** ACP server launch: executable and arguments. Never an approval-bypass flag. */
  acpCommand(): { command: string; args: string[] };
  /** The agent's own CLI, checked by `baton doctor` (the ACP adapter may be a separate package). */
  cliCommand?: string;
  /** How to install what is missing. */
  installHint: string;
  /** Environment variables removed before spawning, because they would turn approvals off (the product's unsafeEnv). */
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
