// The words of limits: the answer to a prompt over a limit (which limit, the use, when it resets,
// and that the message was not sent), and /usage.
import type { BatonConfig } from "../../config/schema.js";
import { money } from "../usage.js";
import { dayWindow, hourWindow, resetText } from "./windows.js";

type PerPerson = BatonConfig["limits"]["per_person"];
type LimitName = keyof PerPerson;

export interface PersonUse {
  person: string;
  /** Turns this clock hour. */
  turns: number;
  /** Turns running or queued now; undefined when concurrent_turns is not set (places are kept only then). */
  running?: number;
  usd: number;
  tokens: number;
}

const COUNT = new Intl.NumberFormat("en-US");
const NOT_SENT = "This message was not sent to the agent.";

const dollars = (amount: number) => money(amount, "USD");

/**
 * The answer to a prompt over a limit: to its sender ("You have…", and that the message was not
 * sent), or about `who` (a schedule's maker: "`bob` has…"; the caller says what was not sent).
 */
export function overLimitText(limit: LimitName, max: number, used: number, endsAt: number | undefined, now: number, timeZone: string, who?: string): string {
  const key = `limits.per_person.${limit}`;
  const resets = endsAt === undefined ? "" : ` It resets at ${resetText(endsAt, now, timeZone)}.`;
  const v =
    who === undefined
      ? { has: "You have", alreadyHas: "You already have", their: "your", Their: "Your", notSent: ` ${NOT_SENT}` }
      : { has: `\`${who}\` has`, alreadyHas: `\`${who}\` already has`, their: "their", Their: `\`${who}\`'s`, notSent: "" };
  switch (limit) {
    case "turns_per_hour":
      return `⏳ ${v.has} reached ${v.their} limit of ${COUNT.format(max)} prompt${max === 1 ? "" : "s"} to agents an hour (${key}).${resets}${v.notSent}`;
    case "concurrent_turns": {
      const again = who === undefined ? " Send it again when one ends, or /stop one." : "";
      return `⏳ ${v.alreadyHas} ${COUNT.format(max)} turn${max === 1 ? "" : "s"} running or queued: ${v.their} limit is ${COUNT.format(max)} at once (${key}).${v.notSent}${again}`;
    }
    case "usd_per_day":
      return `⏳ ${v.Their} turns have cost ${dollars(used)} today: ${v.their} limit is ${dollars(max)} a day (${key}).${resets}${v.notSent}`;
    case "tokens_per_day":
      return `⏳ ${v.Their} turns have used ${COUNT.format(used)} tokens today: ${v.their} limit is ${COUNT.format(max)} a day (${key}).${resets}${v.notSent}`;
  }
}

/** For the agent whose initialize_subagents a limit refuses (it tells the person). */
export function subagentsRefusedText(person: string, limit: "turns_per_hour" | "usd_per_day" | "tokens_per_day", max: number, endsAt: number, now: number, timeZone: string): string {
  const what = limit === "turns_per_hour" ? `${COUNT.format(max)} turns an hour` : limit === "usd_per_day" ? `${dollars(max)} a day` : `${COUNT.format(max)} tokens a day`;
  return `No subagents were started: they would take ${person}, whose prompt started this turn, past their limit of ${what} (limits.per_person.${limit}; each subagent's round is a turn of theirs). It resets at ${resetText(endsAt, now, timeZone)}.`;
}

export function storeFailedText(detail: string): string {
  return `⚠️ Could not check your limits: the store that keeps them did not answer (${detail}). ${NOT_SENT} Try again in a moment.`;
}

export interface UsageReportInput {
  me: string;
  admin: boolean;
  /** The asker is an admin and limits.admins is false: the limits do not stop them. */
  exempt: boolean;
  per: PerPerson;
  /** The asker's first, then (for an admin) everyone else with use today. */
  uses: PersonUse[];
  now: number;
  timeZone: string;
}

export function usageReport(input: UsageReportInput): string {
  const { per, now, timeZone } = input;
  const [mine, ...others] = input.uses;
  const count = (n: number) => COUNT.format(n);
  const of = (value: number, max: number | undefined, format = count) => (max === undefined ? format(value) : `${format(value)} of ${format(max)}`);
  const lines = [
    `📊 **Your use** (\`${input.me}\`)`,
    `Turns this hour: ${of(mine.turns, per.turns_per_hour)} · counts again from 0 at ${resetText(hourWindow(now).endsAt, now, timeZone)}`,
    mine.running === undefined ? undefined : `Running or queued now: ${of(mine.running, per.concurrent_turns)}`,
    `Cost today: ${of(mine.usd, per.usd_per_day, dollars)} (as the agents report it) · the day ends ${resetText(dayWindow(now, timeZone).endsAt, now, timeZone)}`,
    `Tokens today: ${of(mine.tokens, per.tokens_per_day)}`,
    limitsLine(per, input.exempt),
  ].filter((line): line is string => line !== undefined);
  if (!input.admin) return lines.join("\n");
  const used = others.filter((u) => u.turns > 0 || u.usd > 0 || u.tokens > 0);
  lines.push("", "**Everyone today**");
  if (used.length === 0) lines.push("No one else has used an agent today.");
  for (const u of used) lines.push(`- \`${u.person}\`: ${COUNT.format(u.turns)} turn${u.turns === 1 ? "" : "s"} this hour · ${dollars(u.usd)} · ${COUNT.format(u.tokens)} tokens today`);
  return lines.join("\n");
}

function limitsLine(per: PerPerson, exempt: boolean): string {
  const set = Object.values(per).some((v) => v !== undefined);
  if (!set) return "No limits are set (limits.per_person).";
  return exempt ? "The limits do not stop you: admins are exempt (limits.admins: false)." : "Over a limit, a prompt is not sent until the limit resets.";
}
