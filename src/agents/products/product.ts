// Everything Baton knows about one agent product, in one object: its folder under
// src/agents/products/<id>/ holds this descriptor (index.ts) and the code it names (the session-store
// reader, `baton setup`'s steps, `baton launch`'s plan). Adding a product is one folder and one line
// in index.ts. Descriptors stay light: what is heavy (readers, settings-file parsers) loads lazily.
import type { ReaderContext, StoreInfo, StoreReading } from "../stores/types.js";
import type { InBatonLaunch, LaunchContext, LaunchPlan } from "./kit/launch.js";
import type { SetupContext, SetupStep } from "./kit/setup.js";
import type { StoredSession } from "../stores/types.js";

/** Baton drives it in chat over ACP. */
interface ChatSupport {
  /** ACP server launch: executable and arguments. Never an approval-bypass flag. */
  acpCommand(): { command: string; args: string[] };
  /** The agent's own CLI, checked by `baton doctor` (the ACP adapter may be a separate package). */
  cliCommand?: string;
  /** Environment the ACP adapter alone reads (the terminal CLI does not), set at spawn. */
  acpEnv?: Record<string, string>;
  /**
   * Why a failed resume may take the session's history with it: Baton then keeps a brief before
   * every resume, so a new session can start from it.
   */
  resumeMayLoseHistory?: string;
  /** Arguments or env that select a model. */
  modelArgs?(model: string): { args?: string[]; env?: Record<string, string> };
  /** Its place in the order `agents.default: auto` tries installed agents (lower first). */
  autoOrder?: number;
}

/** How its terminal CLI reopens or starts a session (`/handover`, `baton handoff resume`). */
interface TerminalSupport {
  /** Why Baton will not start this runtime at all, when it will not. */
  notStartable?: string;
  /** Args that reopen a session natively; absent when the CLI cannot. */
  resumeArgs?(s: StoredSession): string[];
  /** Args that start a new interactive session whose first message is `prompt`. */
  newArgs?(prompt: string): string[];
  /** Why there is no new-session command (shown when one is asked for). */
  noNewSession?: string;
  /**
   * Why only a native reopen works: it finds sessions only in their own workspace and cannot start
   * from a prompt (no new session, no brief, no other runtime's session).
   */
  nativeOnly?: string;
  /** The CLI finds the session only when run in its recorded directory. */
  resumeNeedsRecordedDir?: boolean;
  /**
   * Args that let a new session read files outside its working directory (the brief it starts
   * from): its file tools refuse other paths otherwise.
   */
  readArgs?(dirs: string[]): string[];
}

/** Where it keeps its sessions and the reader for them. */
interface StoreSupport {
  /** The default store location, honouring the runtime's own environment overrides. */
  location(env: NodeJS.ProcessEnv, home: string): string;
  /**
   * The paths the reader reads under these options (its location unless said otherwise); when
   * none of them exists, the store holds no session and the reader is not loaded.
   */
  paths?(ctx: ReaderContext): string[];
  /** Its reader (store.ts), loaded on first use: the descriptor never imports it. */
  load(): Promise<StoreReading>;
  /** A `baton handoff` flag of its own for the location (`--<name> <path>`), besides `--store-dir`. */
  dirFlag?: { name: string; description: string };
}

export interface AgentProduct {
  /** The runtime id: the handoff CLI's name for it, its store's and its chat kind's. */
  id: string;
  label: string;
  /** Other names accepted for it (telemetry-style names such as `claude-code`). */
  aliases?: string[];
  /** Its terminal CLI. */
  executable: string;
  /** How to install what is missing (shown when it is not on PATH). */
  installHint?: string;
  /**
   * The one approval-safety list: environment variables removed wherever Baton starts it (chat,
   * terminal resume, new session), because each could turn its approvals off.
   */
  unsafeEnv?: string[];
  /** Environment set wherever Baton starts it, so it asks the user before acting. */
  askEnv?: Record<string, string>;
  /** Flags (alone, or as `flag value` / `flag=value`) refused from a user's `baton launch` arguments. */
  approvalBypass?: Array<string | [string, string]>;
  /** What a session id looks like (an id becomes an argument); letters, digits and `._:@+=-` otherwise. */
  sessionId?: { pattern: RegExp; shape: string };
  chat?: ChatSupport;
  terminal: TerminalSupport;
  store?: StoreSupport;
  /** `baton launch <id>`: its CLI in this terminal with Baton's MCP server for the run. */
  launch?(userArgs: string[], ctx: LaunchContext): LaunchPlan;
  /** `baton launch <id>` when Baton itself is the terminal (the demo agent). */
  launchInBaton?(userArgs: string[], ctx: LaunchContext): InBatonLaunch;
  /** `baton setup <id>`: register `baton mcp` and install a `handover` command, at user scope. */
  setup?(ctx: SetupContext): Promise<SetupStep[]>;
  /** How that command is typed in the agent, when not `/handover` (Codex puts custom prompts under `/prompts:`). */
  handoverCommand?: string;
}

/** The store as known without loading its reader (what every reader spreads into itself). */
export function storeInfo(product: AgentProduct): StoreInfo {
  const store = product.store;
  if (!store) throw new Error(`${product.id} has no session store`);
  return { runtime: product.id, label: product.label, defaultDir: store.location };
}
