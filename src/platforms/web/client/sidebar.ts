// The conversation list: newest first, each with its title, agent, workspace and host state.
import type { ConversationSummary } from "../protocol.js";
import { el, relativeTime } from "./dom.js";

export type ConversationState = "running" | "idle" | "stopped" | "closed" | "new";

export function stateOf(summary: ConversationSummary): ConversationState {
  if (summary.running) return "running";
  if (!summary.info) return "new";
  if (!summary.info.open) return "closed";
  return summary.info.host;
}

/** `demo · project` — the agent (with profile) and the workspace's last path segment. */
export function describeHost(summary: ConversationSummary): string {
  const info = summary.info;
  if (!info) return "not started yet";
  const agent = info.profile ? `${info.agent}+${info.profile}` : info.agent;
  const workspace = info.workspace.split(/[\\/]/).filter(Boolean).pop() ?? info.workspace;
  return `${agent} · ${workspace}`;
}

export class Sidebar {
  constructor(
    private readonly container: HTMLElement,
    private readonly onSelect: (id: string) => void,
    private readonly onForget: (id: string) => void,
  ) {}

  /** `unread`: conversations that got agent output while another one was open. */
  render(conversations: ConversationSummary[], current: string, unread: ReadonlySet<string>): void {
    const sorted = [...conversations].sort((a, b) => (b.updatedAt || Number.MAX_SAFE_INTEGER) - (a.updatedAt || Number.MAX_SAFE_INTEGER));
    this.container.replaceChildren(...sorted.map((summary) => this.item(summary, summary.id === current, unread.has(summary.id))));
  }

  private item(summary: ConversationSummary, selected: boolean, unread: boolean): HTMLElement {
    const state = stateOf(summary);
    const forget = el("button", { type: "button", class: "forget", title: "Remove from the list", "aria-label": "Remove conversation" }, "×");
    forget.addEventListener("click", (event) => {
      event.stopPropagation();
      this.onForget(summary.id);
    });
    const item = el(
      "div",
      { class: `conversation${selected ? " selected" : ""}${unread ? " unread" : ""}`, role: "button", tabindex: "0", "data-id": summary.id, "aria-current": selected ? "true" : undefined },
      el("div", { class: "conversation-top" }, el("span", { class: "conversation-title" }, summary.title), el("span", { class: "conversation-age" }, relativeTime(summary.updatedAt))),
      el("div", { class: "conversation-meta" }, el("span", { class: `dot dot-${state}`, title: state }), el("span", {}, `${describeHost(summary)} · ${state}`)),
      forget,
    );
    item.addEventListener("click", () => this.onSelect(summary.id));
    item.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === " ") this.onSelect(summary.id);
    });
    return item;
  }
}
