// Approvals in Matrix: the core's buttons become reactions the bot puts under the request, so one
// click on a reaction pill in Element answers it. A choice's emoji follows the meaning the button
// carries (👍 allow once, ✅ always, ❌ deny, ⛔ deny always, else a number), never its label's
// words; a legend under the request says which is which, and a numbered reply works as well (the
// core takes it). A reaction answers only the request it is on.
import type { Button } from "../contract.js";

const NUMBERED = ["1️⃣", "2️⃣", "3️⃣", "4️⃣", "5️⃣", "6️⃣", "7️⃣", "8️⃣", "9️⃣"];
/** Requests remembered at once; the core edits a request when it is answered or expires, which forgets it. */
const MAX_OPEN_REQUESTS = 1_000;

export interface ReactionChoices {
  /** Reaction key → the button's action id. */
  keys: Map<string, string>;
  /** The lines under the request that say which reaction does what. */
  legend: string;
}

/** The reaction key of each button, by its meaning, and the legend for them. */
export function reactionChoices(buttons: Button[]): ReactionChoices {
  const keys = new Map<string, string>();
  const items: string[] = [];
  buttons.forEach((button, index) => {
    let key = emojiFor(button) ?? NUMBERED[index] ?? `${index + 1}`;
    if (keys.has(key)) key = NUMBERED[index] ?? `${index + 1}`;
    keys.set(key, button.id);
    items.push(`${key} ${button.label}`);
  });
  const numbers =
    buttons.length === 1
      ? "1"
      : `${buttons
          .slice(0, -1)
          .map((_, i) => i + 1)
          .join(", ")} or ${buttons.length}`;
  return { keys, legend: `${items.join(" · ")}\n\n_React to answer, or reply ${numbers}._` };
}

function emojiFor(button: Button): string | undefined {
  if (button.meaning === "allow") return button.lasting ? "✅" : "👍";
  if (button.meaning === "deny") return button.lasting ? "⛔" : "❌";
  return undefined;
}

/** Open requests by their event id, and which refusals were already told. */
export class OpenApprovals {
  private readonly open = new Map<string, { route: string; keys: Map<string, string> }>();
  private readonly told = new Set<string>();

  track(eventId: string, route: string, keys: Map<string, string>): void {
    this.open.set(eventId, { route, keys });
    while (this.open.size > MAX_OPEN_REQUESTS) this.forget(this.open.keys().next().value!);
  }

  forget(eventId: string): void {
    this.open.delete(eventId);
    for (const key of this.told) if (key.startsWith(`${eventId} `)) this.told.delete(key);
  }

  /** The action a reaction stands for, with the request's route; undefined for any other reaction. */
  actionOf(eventId: string, key: string): { route: string; actionId: string } | undefined {
    const request = this.open.get(eventId);
    const actionId = request?.keys.get(key);
    return request && actionId ? { route: request.route, actionId } : undefined;
  }

  /** True the first time a user's reaction on this request changed nothing: tell them once, not per click. */
  firstRefusal(eventId: string, userId: string): boolean {
    const key = `${eventId} ${userId}`;
    if (this.told.has(key)) return false;
    this.told.add(key);
    return true;
  }
}
