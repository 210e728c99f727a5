// Files the operator attaches to the next message: picked with the 📎 button, dropped on the
// composer or pasted (a screenshot). Shown as chips that can be removed; uploaded one by one just
// before the message is sent (POST /api/upload), and the message names their ids.
import { MAX_FILES_PER_MESSAGE, UPLOAD_NAME_HEADER, UPLOAD_PATH } from "./limits.js";
import { el, toast } from "./dom.js";

export class Attachments {
  private files: File[] = [];

  constructor(
    private readonly list: HTMLElement,
    input: HTMLInputElement,
    button: HTMLButtonElement,
    dropZone: HTMLElement,
  ) {
    button.addEventListener("click", () => input.click());
    input.addEventListener("change", () => {
      this.add([...(input.files ?? [])]);
      input.value = "";
    });
    dropZone.addEventListener("dragover", (event) => {
      event.preventDefault();
      dropZone.classList.add("dropping");
    });
    dropZone.addEventListener("dragleave", () => dropZone.classList.remove("dropping"));
    dropZone.addEventListener("drop", (event) => {
      event.preventDefault();
      dropZone.classList.remove("dropping");
      this.add([...(event.dataTransfer?.files ?? [])]);
    });
    dropZone.addEventListener("paste", (event) => {
      const pasted = [...(event.clipboardData?.files ?? [])];
      if (pasted.length > 0) {
        event.preventDefault();
        this.add(pasted);
      }
    });
  }

  get count(): number {
    return this.files.length;
  }

  /** Uploads every attached file; resolves with their ids, or undefined when one failed (said in a toast). */
  async upload(): Promise<string[] | undefined> {
    const ids: string[] = [];
    for (const file of this.files) {
      try {
        const response = await fetch(UPLOAD_PATH, {
          method: "POST",
          body: file,
          headers: { "content-type": file.type || "application/octet-stream", [UPLOAD_NAME_HEADER]: encodeURIComponent(file.name) },
        });
        const answer = (await response.json()) as { id?: string; error?: string };
        if (!response.ok || !answer.id) throw new Error(answer.error ?? `the upload failed (${response.status})`);
        ids.push(answer.id);
      } catch (error) {
        toast(`${file.name}: ${error instanceof Error ? error.message : String(error)}`, "error");
        return undefined;
      }
    }
    return ids;
  }

  clear(): void {
    this.files = [];
    this.render();
  }

  private add(files: File[]): void {
    const room = MAX_FILES_PER_MESSAGE - this.files.length;
    if (files.length > room) toast(`At most ${MAX_FILES_PER_MESSAGE} files in one message.`, "error");
    this.files.push(...files.slice(0, Math.max(0, room)));
    this.render();
  }

  private render(): void {
    this.list.hidden = this.files.length === 0;
    this.list.replaceChildren(
      ...this.files.map((file, index) => {
        const remove = el("button", { type: "button", class: "chip-remove", "aria-label": `Remove ${file.name}` }, "×");
        remove.addEventListener("click", () => {
          this.files.splice(index, 1);
          this.render();
        });
        return el("span", { class: "attachment-chip", title: file.name }, `📎 ${file.name} · ${formatSize(file.size)}`, remove);
      }),
    );
  }
}

export function formatSize(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
  return bytes >= 1024 ? `${Math.round(bytes / 1024)} KB` : `${bytes} B`;
}
