// Token counts an agent reports for one prompt (the `usage` of a session/prompt answer, an unstable
// ACP field the stable SDK types do not list yet) and the context it reports with `usage_update`.

export interface PromptTokens {
  totalTokens: number;
  inputTokens: number;
  outputTokens: number;
  thoughtTokens?: number | null;
  cachedReadTokens?: number | null;
  cachedWriteTokens?: number | null;
}

/** `usage_update`: tokens in the context window now, its size, and the session's cost so far. */
export interface ContextUsage {
  used: number;
  size: number;
  cost?: { amount: number; currency: string } | null;
}
