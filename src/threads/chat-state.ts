// What the registry keeps besides threads and routes: the mode and model a thread chose, the usage
// its turns reported, and the schedules made in chat. Applied from events like everything else, so
// a restart rebuilds them (src/threads/registry.ts).

/** A prompt sent into a route's thread at the times of a cron pattern, made with /schedule add. */
export interface StoredSchedule {
  id: string;
  route: string;
  cron: string;
  prompt: string;
  /** IANA zone of the pattern; undefined: the configured default. */
  timeZone?: string;
  /** Who made it (`telegram:123`): it runs only while they may still use the bot. */
  createdBy: string;
  createdAt: string;
}

/** One turn's usage as an agent reported it. */
export interface TurnUsage {
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  /** The session's cumulative cost after the turn (ACP `usage_update.cost`). */
  cost?: { amount: number; currency: string };
  /** Context window filled / size after the turn. */
  context?: { used: number; size: number };
}

export interface UsageTotals {
  turns: number;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  /** Cumulative cost per session (each session reports its own running total). */
  costs: Record<string, { amount: number; currency: string }>;
  context?: { used: number; size: number };
}

export function emptyTotals(): UsageTotals {
  return { turns: 0, inputTokens: 0, outputTokens: 0, totalTokens: 0, costs: {} };
}

export function addUsage(totals: UsageTotals, usage: TurnUsage, session: string | undefined): void {
  totals.turns++;
  totals.inputTokens += usage.inputTokens ?? 0;
  totals.outputTokens += usage.outputTokens ?? 0;
  totals.totalTokens += usage.totalTokens ?? (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0);
  if (usage.cost) totals.costs[session ?? "-"] = usage.cost;
  if (usage.context) totals.context = usage.context;
}

/** The cost of every session summed, per currency. */
export function totalCost(totals: UsageTotals): Array<{ amount: number; currency: string }> {
  const byCurrency = new Map<string, number>();
  for (const cost of Object.values(totals.costs)) byCurrency.set(cost.currency, (byCurrency.get(cost.currency) ?? 0) + cost.amount);
  return [...byCurrency].map(([currency, amount]) => ({ amount, currency }));
}
