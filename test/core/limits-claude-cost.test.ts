// What Claude Code's ACP adapter reports, as recorded on its wire (test/fixtures/acp/), counted by
// limits per person: its usage_update.cost is the session's running total ($0.00021, $0.00063,
// $0.00105 over three turns), so each turn counts what it added; after a resume in a new process the
// total starts again ($0.00021), and that is counted whole. usd_per_day stops the person once the
// counted cost crosses it.
import { describe, expect, it } from "vitest";
import { PersonLimits } from "../../src/core/limits/limits.js";
import { turnSpend } from "../../src/core/limits/spend.js";
import { memoryLimitStore } from "../../src/core/limits/store.js";
import { silentLogger } from "../../src/kernel/log.js";
import { recordedAcpLines } from "../support/recorded-acp.js";

type Cost = { amount: number; currency: string };
interface RecordedTurn {
  cost?: Cost;
  tokens?: { totalTokens?: number; inputTokens?: number; outputTokens?: number };
}

/** Each prompt's answer in a recording, with the last usage_update cost before it. */
function recordedTurns(file: string): RecordedTurn[] {
  const turns: RecordedTurn[] = [];
  let cost: Cost | undefined;
  for (const line of recordedAcpLines(file)) {
    const message = JSON.parse(line) as { params?: { update?: { sessionUpdate?: string; cost?: Cost | null } }; result?: { stopReason?: string; usage?: RecordedTurn["tokens"] } };
    const update = message.params?.update;
    if (update?.sessionUpdate === "usage_update" && update.cost) cost = update.cost;
    if (message.result?.stopReason) {
      turns.push({ cost, tokens: message.result.usage });
      cost = undefined;
    }
  }
  return turns;
}

describe("limits per person: Claude Code's reported cost", () => {
  const session = [...recordedTurns("claude-agent-acp-0.49.0-turns.jsonl"), ...recordedTurns("claude-agent-acp-0.49.0-resume.jsonl")];

  it("counts what each turn added to the session's running total, and a total started again after a resume whole", () => {
    expect(session.map((t) => t.cost?.amount)).toEqual([0.00021, 0.00063, 0.0010500000000000002, 0.00021]);
    let previous: Cost | undefined;
    const spent = session.map((turn) => {
      const s = turnSpend({ ...turn.tokens, cost: turn.cost }, previous);
      previous = turn.cost ?? previous;
      return s;
    });
    expect(spent.map((s) => Number(s.usd?.toFixed(5)))).toEqual([0.00021, 0.00042, 0.00042, 0.00021]);
    expect(spent.map((s) => s.tokens)).toEqual([18, 36, 36, 18]);
  });

  it("stops a person with usd_per_day once Claude's reported cost crosses it", async () => {
    const clock = Date.UTC(2026, 11, 5, 7, 37);
    const config = { limits: { per_person: { usd_per_day: 0.001 }, admins: false }, access: { people: {} }, time_zone: "UTC" } as unknown as ReturnType<
      ConstructorParameters<typeof PersonLimits>[0]["config"]
    >;
    const limits = new PersonLimits({ config: () => config, isAdmin: () => false, store: memoryLimitStore(), now: () => clock, log: silentLogger() });
    const ana = { id: "slack:U0ANA", name: "Ana" };
    let previous: Cost | undefined;
    const admitted: boolean[] = [];
    for (const turn of session) {
      const admission = await limits.admit(ana, "slack:C1");
      admitted.push(admission.ok);
      if (!admission.ok) {
        expect(admission.text).toBe(
          "⏳ Your turns have cost $0.0011 today: your limit is $0.0010 a day (limits.per_person.usd_per_day). It resets at 00:00 UTC, in 16 h 23 min. This message was not sent to the agent.",
        );
        break;
      }
      await limits.charge(admission.ticket.person, turnSpend({ ...turn.tokens, cost: turn.cost }, previous));
      admission.ticket.end(true);
      previous = turn.cost ?? previous;
    }
    // $0.00021 + $0.00042 + $0.00042 = $0.00105 after three turns: the fourth is refused.
    expect(admitted).toEqual([true, true, true, false]);
  });
});
