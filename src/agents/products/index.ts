// The one list of agent products Baton knows, in the order `baton handoff list --harness`
// documents them. Everything else is read from it: the chat kinds (agents.default, /agent, doctor),
// the terminal commands (/handover, `baton handoff resume`), the session stores, `baton launch`
// and `baton setup`. Adding a product: a folder beside this file and one entry here.
import type { AgentProduct } from "./product.js";
import { claude } from "./claude/index.js";
import { codex } from "./codex/index.js";
import { opencode } from "./opencode/index.js";
import { cline } from "./cline/index.js";
import { pi } from "./pi/index.js";
import { prime } from "./prime/index.js";
import { droid } from "./droid/index.js";
import { copilot } from "./copilot/index.js";
import { hermes } from "./hermes/index.js";
import { dsh } from "./dsh/index.js";
import { fx } from "./fx/index.js";
import { grok } from "./grok/index.js";
import { openclaw } from "./openclaw/index.js";
import { cursor } from "./cursor/index.js";
import { gemini } from "./gemini/index.js";
import { qwen } from "./qwen/index.js";
import { goose } from "./goose/index.js";
import { demo } from "./demo/index.js";
import { agy, devin, kimi, kiro, muse, omo, omp, openhands } from "./terminal-only/index.js";

export type { AgentProduct } from "./product.js";
export type { AgentKind } from "./kind.js";
export { agentKinds, getAgentKind, firstInstalledKind } from "./kinds.js";

/** Read on every use (nothing derived is cached at load), so a product added here is seen everywhere. */
export const PRODUCTS: AgentProduct[] = [
  claude,
  codex,
  opencode,
  cline,
  pi,
  prime,
  droid,
  copilot,
  hermes,
  dsh,
  fx,
  grok,
  openclaw,
  cursor,
  omp,
  gemini,
  qwen,
  kiro,
  agy,
  devin,
  muse,
  openhands,
  goose,
  kimi,
  omo,
  demo,
];

/** The product with this id or alias. */
export function getProduct(id: string): AgentProduct | undefined {
  return PRODUCTS.find((p) => p.id === id) ?? PRODUCTS.find((p) => p.aliases?.includes(id));
}

/** Products `baton launch` runs with Baton's MCP server. */
export function launchableProducts(): AgentProduct[] {
  return PRODUCTS.filter((p) => p.launch || p.launchInBaton);
}

/** Products `baton setup` registers `baton mcp` with. */
export function setupProducts(): AgentProduct[] {
  return PRODUCTS.filter((p) => p.setup);
}
