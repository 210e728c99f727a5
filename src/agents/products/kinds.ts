// The chat kinds: each product with a chat side, seen as an AgentKind, in the order
// `agents.default: auto` tries them.
import { isInstalled, type AgentKind } from "./kind.js";
import type { AgentProduct } from "./product.js";
import { PRODUCTS } from "./index.js";

// One kind object per product, so kinds compare by identity across calls.
const kinds = new WeakMap<AgentProduct, AgentKind>();

/** The chat kind of a product; throws for a product Baton cannot drive in chat. */
export function kindOf(product: AgentProduct): AgentKind {
  const cached = kinds.get(product);
  if (cached) return cached;
  const chat = product.chat;
  if (!chat) throw new Error(`${product.id} has no chat side`);
  const kind: AgentKind = {
    id: product.id,
    displayName: product.label,
    runtime: product.id,
    acpCommand: chat.acpCommand,
    cliCommand: chat.cliCommand,
    installHint: product.installHint ?? `make \`${chat.acpCommand().command}\` available on PATH`,
    unsafeEnv: product.unsafeEnv,
    askEnv: product.askEnv || chat.acpEnv ? { ...product.askEnv, ...chat.acpEnv } : undefined,
    resumeMayLoseHistory: chat.resumeMayLoseHistory,
    modelArgs: chat.modelArgs,
  };
  kinds.set(product, kind);
  return kind;
}

const byAutoOrder = (a: AgentProduct, b: AgentProduct) => (a.chat?.autoOrder ?? Infinity) - (b.chat?.autoOrder ?? Infinity);

/** The agent kinds Baton can drive, in the order `agents.default: auto` tries them. */
export function agentKinds(): AgentKind[] {
  return PRODUCTS.filter((p) => p.chat)
    .sort(byAutoOrder)
    .map(kindOf);
}

export function getAgentKind(id: string): AgentKind | undefined {
  const product = PRODUCTS.find((p) => p.id === id && p.chat);
  return product && kindOf(product);
}

/** `auto`: the first kind (in auto order) whose ACP command is on PATH, else the demo agent. */
export function firstInstalledKind(env: NodeJS.ProcessEnv = process.env): AgentKind {
  const tried = PRODUCTS.filter((p) => p.chat?.autoOrder !== undefined)
    .sort(byAutoOrder)
    .map(kindOf);
  return tried.find((k) => isInstalled(k, env)) ?? getAgentKind("demo")!;
}
