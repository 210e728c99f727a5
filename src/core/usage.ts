// How usage reads in the chat: one quiet line at the end of a turn, and a thread's totals in /status.
import { totalCost, type TurnUsage, type UsageTotals } from "../threads/chat-state.js";

const COUNT = new Intl.NumberFormat("en-US");

/** `📊 1,234 tokens (1,000 in · 234 out) · context 12% of 200k · $0.0123 so far`, or undefined when nothing was reported. */
export function formatUsageLine(usage: TurnUsage): string | undefined {
  const parts: string[] = [];
  const total = usage.totalTokens ?? (usage.inputTokens !== undefined || usage.outputTokens !== undefined ? (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0) : undefined);
  if (total !== undefined)
    parts.push(`${COUNT.format(total)} tokens${usage.inputTokens !== undefined ? ` (${COUNT.format(usage.inputTokens)} in · ${COUNT.format(usage.outputTokens ?? 0)} out)` : ""}`);
  if (usage.context && usage.context.size > 0) parts.push(`context ${Math.round((100 * usage.context.used) / usage.context.size)}% of ${compact(usage.context.size)}`);
  if (usage.cost) parts.push(`${money(usage.cost.amount, usage.cost.currency)} so far`);
  return parts.length > 0 ? `📊 ${parts.join(" · ")}` : undefined;
}

/** A thread's totals for /status: `12 turns · 45,678 tokens (30,000 in · 15,678 out) · $0.42`. */
export function formatUsageTotals(totals: UsageTotals): string {
  if (totals.turns === 0) return "none reported yet";
  const parts = [`${totals.turns} turn${totals.turns === 1 ? "" : "s"} reported`];
  if (totals.totalTokens > 0) parts.push(`${COUNT.format(totals.totalTokens)} tokens (${COUNT.format(totals.inputTokens)} in · ${COUNT.format(totals.outputTokens)} out)`);
  for (const cost of totalCost(totals)) parts.push(money(cost.amount, cost.currency));
  if (totals.context && totals.context.size > 0) parts.push(`context ${Math.round((100 * totals.context.used) / totals.context.size)}% of ${compact(totals.context.size)}`);
  return parts.join(" · ");
}

/** Formatters by currency and digits: making one costs far more than using it. */
const MONEY = new Map<string, Intl.NumberFormat>();

export function money(amount: number, currency: string): string {
  const digits = amount < 1 ? 4 : 2;
  try {
    const key = `${currency} ${digits}`;
    let format = MONEY.get(key);
    if (!format) MONEY.set(key, (format = new Intl.NumberFormat("en-US", { style: "currency", currency, minimumFractionDigits: digits, maximumFractionDigits: digits })));
    return format.format(amount);
  } catch {
    return `${amount.toFixed(digits)} ${currency}`;
  }
}

function compact(n: number): string {
  return n >= 1_000_000 ? `${Math.round(n / 100_000) / 10}M` : n >= 1_000 ? `${Math.round(n / 1_000)}k` : String(n);
}
