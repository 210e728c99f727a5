// The composer: a growing textarea that sends on Enter, a hint list of the chat commands while a
// `/command` is being typed, files attached to the message (attachments.ts), and the Stop button
// (sends /stop) while a turn runs.
import type { CommandHint } from "../protocol.js";
import { el } from "./dom.js";
import type { Attachments } from "./attachments.js";

const MAX_INPUT_HEIGHT_PX = 220;

export class Composer {
  private commands: CommandHint[] = [];
  private matches: CommandHint[] = [];
  private selected = 0;
  private sending = false;

  constructor(
    form: HTMLFormElement,
    private readonly input: HTMLTextAreaElement,
    private readonly hints: HTMLElement,
    private readonly stopButton: HTMLButtonElement,
    private readonly onSubmit: (text: string, files?: string[]) => boolean,
    private readonly attachments?: Attachments,
    /** The person types a message (not a command): Baton may get the agent ready meanwhile. */
    private readonly onTyping?: () => void,
  ) {
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      void this.submit();
    });
    input.addEventListener("input", () => {
      this.autosize();
      this.updateHints();
      if (input.value.trim() && !input.value.startsWith("/")) this.onTyping?.();
    });
    input.addEventListener("keydown", (event) => this.onKey(event));
    input.addEventListener("blur", () => window.setTimeout(() => this.hideHints(), 150));
    stopButton.addEventListener("click", () => this.onSubmit("/stop"));
  }

  setCommands(commands: CommandHint[]): void {
    this.commands = commands;
  }

  setRunning(running: boolean): void {
    this.stopButton.hidden = !running;
  }

  fill(text: string): void {
    this.input.value = text;
    this.autosize();
    this.input.focus();
    this.updateHints();
  }

  focus(): void {
    this.input.focus();
  }

  private async submit(): Promise<void> {
    const text = this.input.value.trim();
    const attached = this.attachments?.count ?? 0;
    if ((!text && attached === 0) || this.sending) return;
    let files: string[] | undefined;
    if (attached > 0) {
      this.sending = true;
      try {
        files = await this.attachments!.upload();
      } finally {
        this.sending = false;
      }
      if (!files) return;
    }
    if (this.onSubmit(text, files)) {
      this.input.value = "";
      this.attachments?.clear();
      this.autosize();
      this.hideHints();
    }
  }

  private onKey(event: KeyboardEvent): void {
    const hinting = !this.hints.hidden && this.matches.length > 0;
    if (hinting && (event.key === "ArrowDown" || event.key === "ArrowUp")) {
      event.preventDefault();
      const step = event.key === "ArrowDown" ? 1 : -1;
      this.selected = (this.selected + step + this.matches.length) % this.matches.length;
      this.renderHints();
    } else if (hinting && (event.key === "Tab" || (event.key === "Enter" && !this.isExactCommand()))) {
      // Enter on a half-typed command completes it rather than sending "/sta".
      event.preventDefault();
      this.complete(this.matches[this.selected]);
    } else if (hinting && event.key === "Escape") {
      this.hideHints();
    } else if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      void this.submit();
    }
  }

  private isExactCommand(): boolean {
    const name = this.input.value.slice(1).trim().toLowerCase();
    return this.commands.some((c) => c.name === name);
  }

  private complete(command: CommandHint): void {
    this.fill(`/${command.name} `);
    this.hideHints();
  }

  private updateHints(): void {
    const match = /^\/(\S*)$/.exec(this.input.value);
    if (!match) {
      this.hideHints();
      return;
    }
    const prefix = match[1].toLowerCase();
    this.matches = this.commands.filter((c) => c.name.startsWith(prefix));
    this.selected = 0;
    if (this.matches.length === 0) {
      this.hideHints();
      return;
    }
    this.renderHints();
  }

  private renderHints(): void {
    this.hints.hidden = false;
    this.hints.replaceChildren(
      ...this.matches.map((command, index) => {
        const item = el(
          "div",
          { class: `hint${index === this.selected ? " selected" : ""}`, role: "option", "aria-selected": index === this.selected ? "true" : "false" },
          el("span", { class: "hint-name" }, `/${command.name}`),
          el("span", { class: "hint-description" }, command.description),
        );
        item.addEventListener("mousedown", (event) => {
          event.preventDefault();
          this.complete(command);
        });
        return item;
      }),
    );
  }

  private hideHints(): void {
    this.hints.hidden = true;
    this.matches = [];
  }

  private autosize(): void {
    this.input.style.height = "auto";
    this.input.style.height = `${Math.min(this.input.scrollHeight, MAX_INPUT_HEIGHT_PX)}px`;
  }
}
