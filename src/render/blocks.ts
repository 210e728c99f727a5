// Turns ACP session updates into blocks: text, thought, tools, plan. A block becomes one platform
// message (or several when it outgrows the limit), sent once and then edited as it grows.
import type { SessionUpdate, ToolCallStatus, PlanEntry } from "@agentclientprotocol/sdk";

type BlockKind = "text" | "thought" | "tool" | "plan";

export interface Block {
  kind: BlockKind;
  /** Markdown as it stands now, from `offset` on (what every route has sealed is dropped). */
  text: string;
  /** Characters of the block dropped from the front of `text`. */
  offset: number;
  /** Its text only grows at the end, so delivered pieces may be sealed and dropped (answers, not tools or plans). */
  sealable: boolean;
  /** True once nothing more will be added (a later block started, or the turn ended). */
  done: boolean;
  version: number;
}

interface ToolLine {
  id: string;
  title: string;
  kind?: string;
  status: ToolCallStatus;
}

const TOOL_ICONS: Record<string, string> = {
  read: "📖",
  edit: "✏️",
  delete: "🗑️",
  move: "📦",
  search: "🔎",
  execute: "▶️",
  think: "💭",
  fetch: "🌐",
  switch_mode: "🔀",
  other: "🔧",
};
const STATUS_MARK: Record<ToolCallStatus, string> = { pending: "⏳", in_progress: "⏳", completed: "✅", failed: "❌" };
const PLAN_MARK: Record<string, string> = { completed: "☑", in_progress: "▶", pending: "☐" };

export interface BlockOptions {
  showThoughts: boolean;
  showTools: boolean;
}

/** Accumulates one turn's updates into an ordered list of blocks. */
export class BlockBuilder {
  readonly blocks: Block[] = [];
  private readonly tools = new Map<string, { line: ToolLine; block: Block; lines: ToolLine[] }>();
  private planBlock?: Block;

  constructor(private readonly options: BlockOptions) {}

  /** Applies one update; returns true when something visible changed. */
  apply(update: SessionUpdate): boolean {
    switch (update.sessionUpdate) {
      case "agent_message_chunk":
        return update.content.type === "text" ? this.appendText("text", update.content.text) : false;
      case "agent_thought_chunk":
        return this.options.showThoughts && update.content.type === "text" ? this.appendText("thought", update.content.text) : false;
      case "tool_call":
        return this.options.showTools ? this.upsertTool(update.toolCallId, { title: update.title, kind: update.kind, status: update.status ?? "pending" }) : false;
      case "tool_call_update":
        return this.options.showTools ? this.upsertTool(update.toolCallId, { title: update.title ?? undefined, kind: update.kind ?? undefined, status: update.status ?? undefined }) : false;
      case "plan":
        return this.setPlan(update.entries);
      default:
        return false;
    }
  }

  /** Adds a block of its own (a notice at the end of the turn, an error). */
  appendNotice(text: string): void {
    this.finishLast();
    this.blocks.push(newBlock("text", text, true));
  }

  /** Drops a sealable block's text before source offset `upTo` (every route has it already). */
  release(block: Block, upTo: number): void {
    if (!block.sealable || upTo <= block.offset) return;
    // A copy, not a slice: a sliced string keeps the whole original alive.
    block.text = detachedCopy(block.text.slice(upTo - block.offset));
    block.offset = upTo;
  }

  finishAll(): void {
    for (const b of this.blocks)
      if (!b.done) {
        b.done = true;
        b.version++;
      }
  }

  private last(): Block | undefined {
    return this.blocks[this.blocks.length - 1];
  }

  private finishLast(): void {
    const last = this.last();
    if (last && !last.done && last !== this.planBlock) {
      last.done = true;
      last.version++;
    }
  }

  private appendText(kind: "text" | "thought", text: string): boolean {
    if (!text) return false;
    let block = this.last();
    if (!block || block.kind !== kind || block.done) {
      this.finishLast();
      block = newBlock(kind, "", false);
      this.blocks.push(block);
    }
    block.text += text;
    block.version++;
    return true;
  }

  private upsertTool(id: string, patch: { title?: string; kind?: string; status?: ToolCallStatus }): boolean {
    const known = this.tools.get(id);
    if (known) {
      Object.assign(known.line, Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)));
      known.block.text = renderToolLines(known.lines);
      known.block.version++;
      return true;
    }
    // Consecutive tool calls share one block: one compact line each.
    let block = this.last();
    let lines: ToolLine[];
    if (block && block.kind === "tool" && !block.done) {
      lines = [...this.tools.values()].find((t) => t.block === block)!.lines;
    } else {
      this.finishLast();
      block = newBlock("tool", "", false);
      this.blocks.push(block);
      lines = [];
    }
    const line: ToolLine = { id, title: patch.title ?? "tool", kind: patch.kind, status: patch.status ?? "pending" };
    lines.push(line);
    this.tools.set(id, { line, block, lines });
    block.text = renderToolLines(lines);
    block.version++;
    return true;
  }

  private setPlan(entries: PlanEntry[]): boolean {
    const text = `**Plan**\n${entries.map((e) => `${PLAN_MARK[e.status] ?? "☐"} ${e.content}`).join("\n")}`;
    if (!this.planBlock) {
      this.finishLast();
      this.planBlock = newBlock("plan", text, false);
      this.blocks.push(this.planBlock);
    } else {
      this.planBlock.text = text;
      this.planBlock.version++;
    }
    return true;
  }
}

function detachedCopy(text: string): string {
  return Buffer.from(text, "utf16le").toString("utf16le");
}

function newBlock(kind: BlockKind, text: string, done: boolean): Block {
  return { kind, text, offset: 0, sealable: kind === "text", done, version: 1 };
}

function renderToolLines(lines: ToolLine[]): string {
  return lines.map((l) => `${TOOL_ICONS[l.kind ?? "other"] ?? "🔧"} ${l.title} ${STATUS_MARK[l.status]}`).join("\n");
}

/** The markdown a block shows: thoughts are set apart in italics. */
export function blockMarkdown(block: Block): string {
  return block.kind === "thought" ? `💭 _${block.text.trim()}_` : block.text;
}
