// What one turn spent, from what its agent reported: its tokens (the prompt answer's usage), and
// its cost. Agents report cost as the session's running total (ACP usage_update.cost; Claude Code
// does), so a turn's cost is the total now less the total its session had before. An agent process
// started again for the same session may count from zero: a total lower than before is all new.
import type { TurnUsage } from "../../threads/chat-state.js";

export interface Spent {
  tokens?: number;
  /** Dollars: only a cost reported in USD counts toward usd_per_day. */
  usd?: number;
}

type Cost = { amount: number; currency: string } | undefined;

export function turnSpend(usage: Pick<TurnUsage, "totalTokens" | "inputTokens" | "outputTokens" | "cost">, previousCost: Cost): Spent {
  const spent: Spent = {};
  const tokens = usage.totalTokens ?? (usage.inputTokens !== undefined || usage.outputTokens !== undefined ? (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0) : undefined);
  if (tokens !== undefined && tokens > 0) spent.tokens = tokens;
  const cost = usage.cost;
  if (cost && cost.currency.toUpperCase() === "USD" && cost.amount > 0) {
    const before = previousCost && previousCost.currency.toUpperCase() === "USD" ? previousCost.amount : 0;
    spent.usd = cost.amount >= before ? cost.amount - before : cost.amount;
  }
  return spent;
}

/** Bounds the sessions remembered for subagents (each a few bytes; old ones are dropped first). */
const MAX_SESSIONS = 2_000;

/** The last running total per session, for agents whose totals are not kept on a thread (subagents). */
export class SessionCosts {
  private readonly last = new Map<string, Cost>();

  /** What this report added since the session's last one. */
  spend(session: string, usage: Pick<TurnUsage, "totalTokens" | "inputTokens" | "outputTokens" | "cost">): Spent {
    const spent = turnSpend(usage, this.last.get(session));
    if (usage.cost) {
      this.last.delete(session);
      if (this.last.size >= MAX_SESSIONS) this.last.delete(this.last.keys().next().value!);
      this.last.set(session, usage.cost);
    }
    return spent;
  }
}
