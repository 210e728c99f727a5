// Small DOM helpers for the page script (runs in the browser; no framework).

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`the page has no #${id}`);
  return element as T;
}

type Attributes = Record<string, string | boolean | undefined>;

/** Creates an element; string children become text nodes (never HTML). */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Attributes = {}, ...children: Array<Node | string>): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (name === "class") element.className = String(value);
    else element.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children) element.append(child);
  return element;
}

export function randomId(length: number): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  const bytes = crypto.getRandomValues(new Uint8Array(length));
  return Array.from(bytes, (b) => alphabet[b % alphabet.length]).join("");
}

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** "now", "5 min", "3 h", "yesterday", or a date. */
export function relativeTime(at: number, now = Date.now()): string {
  if (!at) return "";
  const age = now - at;
  if (age < MINUTE_MS) return "now";
  if (age < HOUR_MS) return `${Math.floor(age / MINUTE_MS)} min`;
  if (age < DAY_MS) return `${Math.floor(age / HOUR_MS)} h`;
  if (age < 2 * DAY_MS) return "yesterday";
  return new Date(at).toLocaleDateString(undefined, { month: "short", day: "numeric" });
}

export function clockTime(at: number): string {
  return new Date(at).toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });
}

export function toast(text: string, tone: "ok" | "error" = "ok"): void {
  const box = byId("toasts");
  const item = el("div", { class: `toast toast-${tone}`, role: "status" }, text);
  box.append(item);
  window.setTimeout(() => item.classList.add("toast-out"), 3_500);
  window.setTimeout(() => item.remove(), 4_000);
}
