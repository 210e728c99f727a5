// Approvals in Matrix have no buttons: the choices become reactions the bot puts under the request
// (click one to answer), and a numbered reply works as well. A choice's emoji follows its meaning.

const NUMBERED = ["1️⃣", "2️⃣", "3️⃣", "4️⃣", "5️⃣", "6️⃣", "7️⃣", "8️⃣", "9️⃣"];

export interface Choice {
  id: string;
  label: string;
  style?: "primary" | "danger" | "default";
}

/** The reaction key for each choice: 👍 allow once, ✅ always allow, ❌ reject, else a number. */
export function reactionKeys(choices: Choice[]): Map<string, string> {
  const keys = new Map<string, string>();
  choices.forEach((choice, index) => {
    const label = choice.label.toLowerCase();
    let key = /always|session/.test(label) ? "✅" : choice.style === "danger" || /reject|deny|cancel/.test(label) ? "❌" : /allow|yes|approve/.test(label) ? "👍" : NUMBERED[index];
    if (key === undefined || [...keys.values()].includes(key)) key = NUMBERED[index] ?? `${index + 1}`;
    keys.set(key, choice.id);
  });
  return keys;
}

/** The line under a request that says which reaction does what. */
export function reactionLegend(choices: Choice[], keys: Map<string, string>): string {
  const byId = new Map([...keys].map(([key, id]) => [id, key]));
  return choices.map((c) => `${byId.get(c.id)} ${c.label}`).join(" · ");
}
