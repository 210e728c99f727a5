// The message view: one element per message, replaced in place when the server pushes an edit
// (streaming). Message HTML comes from the server's sanitising renderer; everything else is built
// with DOM calls. Stays scrolled to the bottom while the reader is there.
import type { Button, WireFile, WireMessage } from "../protocol.js";
import { clockTime, el } from "./dom.js";
import { formatSize } from "./attachments.js";

/** Within this distance of the bottom, new output keeps the view pinned to it. */
const STICK_TO_BOTTOM_PX = 120;
const COPIED_LABEL_MS = 1_500;

const SUGGESTIONS = ["What can you do in this workspace?", "/status", "/help"];

export class MessageView {
  private readonly elements = new Map<string, HTMLElement>();

  constructor(
    private readonly container: HTMLElement,
    private readonly onButton: (message: WireMessage, button: Button, element: HTMLButtonElement) => void,
    private readonly onSuggestion: (text: string) => void,
  ) {}

  /** Replaces everything (conversation switch, history after a reconnect). */
  show(messages: WireMessage[]): void {
    this.elements.clear();
    this.container.replaceChildren();
    for (const message of messages) {
      const element = this.build(message);
      this.elements.set(message.id, element);
      this.container.append(element);
    }
    if (messages.length === 0) this.container.append(this.emptyState());
    this.scrollToBottom();
  }

  upsert(message: WireMessage): void {
    const pinned = this.nearBottom();
    this.container.querySelector(".empty")?.remove();
    const element = this.build(message);
    const existing = this.elements.get(message.id);
    if (existing) existing.replaceWith(element);
    else this.container.append(element);
    this.elements.set(message.id, element);
    if (pinned || message.role === "user") this.scrollToBottom();
  }

  /** An approval on the page still waits for an answer (its buttons not pressed yet). */
  awaitingApproval(): boolean {
    return this.container.querySelector(".message.kind-approval .actions button:not(:disabled)") !== null;
  }

  private build(message: WireMessage): HTMLElement {
    const body = el("div", { class: "body" });
    // Sanitised on the server (render.ts): raw HTML from the agent arrives escaped.
    body.innerHTML = message.html;
    for (const block of body.querySelectorAll<HTMLElement>(".code")) block.append(copyButton(block));
    const element = el("article", { class: `message ${message.role} kind-${message.kind}`, "data-id": message.id, "data-kind": message.kind, "data-role": message.role }, body);
    if (!message.html) body.hidden = true;
    for (const file of message.files ?? []) element.insertBefore(fileElement(file), body);
    if (message.buttons?.length) element.append(this.actions(message));
    element.append(el("time", { class: "time", datetime: new Date(message.at).toISOString() }, clockTime(message.at)));
    return element;
  }

  private actions(message: WireMessage): HTMLElement {
    const row = el("div", { class: "actions" });
    for (const button of message.buttons!.flat()) {
      const element = el("button", { type: "button", class: `action action-${button.style ?? "default"}` }, button.label);
      element.addEventListener("click", () => this.onButton(message, button, element));
      row.append(element);
    }
    return row;
  }

  private emptyState(): HTMLElement {
    const chips = SUGGESTIONS.map((text) => {
      const chip = el("button", { type: "button", class: "chip" }, text);
      chip.addEventListener("click", () => this.onSuggestion(text));
      return chip;
    });
    return el(
      "div",
      { class: "empty" },
      el("div", { class: "empty-title" }, "Start a conversation"),
      el("p", {}, "Your message goes to the coding agent running on this machine. Replies stream in here; approvals show up as buttons."),
      el("div", { class: "chips" }, ...chips),
    );
  }

  private nearBottom(): boolean {
    const c = this.container;
    return c.scrollHeight - c.scrollTop - c.clientHeight < STICK_TO_BOTTOM_PX;
  }

  private scrollToBottom(): void {
    this.container.scrollTop = this.container.scrollHeight;
  }
}

/** An image the agent sent shows inline; other files are links to download; the operator's own are named. */
function fileElement(file: WireFile): HTMLElement {
  const label = `📎 ${file.name} · ${formatSize(file.size)}`;
  if (!file.url) return el("div", { class: "file" }, label);
  if (file.inline) return el("a", { class: "file-image", href: file.url, target: "_blank", rel: "noopener" }, el("img", { src: file.url, alt: file.name }));
  return el("a", { class: "file", href: file.url, download: file.name }, label);
}

function copyButton(block: HTMLElement): HTMLButtonElement {
  const button = el("button", { type: "button", class: "copy", "aria-label": "Copy code" }, "Copy");
  button.addEventListener("click", () => {
    const code = block.querySelector("code")?.textContent ?? "";
    void navigator.clipboard?.writeText(code).then(() => {
      button.textContent = "Copied";
      window.setTimeout(() => (button.textContent = "Copy"), COPIED_LABEL_MS);
    });
  });
  return button;
}
