// The chat's view of a multi-agent turn: one compact block (name · agent · state · last tool),
// sent once and edited as the subagents move, instead of their full streams. Where messages
// cannot be edited, the block is sent when the turn starts and again when every subagent ended.
// Subagents' permission requests are posted through the same stream, labelled with their names.
import type { PlatformLogger } from "../../platforms/contract.js";
import { isSubagentFinished, type SubagentRecord, type SubagentState } from "./records.js";
import type { MessageSlot } from "../delivery/slot.js";
import { TurnStream, type RouteTarget, type StreamSettings } from "../stream.js";

const STATE_ICONS: Record<SubagentState, string> = {
  queued: "🕓",
  running: "⏳",
  done: "✅",
  failed: "❌",
  cancelled: "⏹",
  interrupted: "⚠️",
};

const MAX_TOOL_CHARS = 60;

export interface SubagentLine {
  record: SubagentRecord;
  lastTool?: string;
}

/** One line per subagent: name · agent · state · last tool. */
export function renderStatus(lines: SubagentLine[], agentName: (agent: string) => string): string {
  const modes = [...new Set(lines.map((l) => l.record.mode))].join(", ");
  const out = [`**Subagents** (${modes})`];
  for (const { record: s, lastTool } of lines) {
    const agent = s.profile ? `${agentName(s.agent)}+${s.profile}` : agentName(s.agent);
    const round = s.rounds > 1 && !isSubagentFinished(s) ? ` ${s.round}/${s.rounds}` : "";
    const state = s.state === "interrupted" && s.recovery === "pending" ? "interrupted, resumes with the agent" : s.state;
    const tool = lastTool ? ` · ${lastTool.length > MAX_TOOL_CHARS ? `${lastTool.slice(0, MAX_TOOL_CHARS - 1)}…` : lastTool}` : "";
    out.push(`${STATE_ICONS[s.state]} \`${s.name}\` · ${agent} · ${state}${round}${tool}`);
  }
  return out.join("\n");
}

export class StatusBlock {
  readonly stream: TurnStream;
  private posted?: Array<RouteTarget & { slot: MessageSlot }>;
  private text = "";
  private finished = false;

  constructor(targets: () => RouteTarget[], settings: StreamSettings, log: PlatformLogger) {
    this.stream = new TurnStream(targets, settings, log);
  }

  /** A newer multi-agent turn's block takes over: this one says so, if it still showed work going on. */
  handOver(): void {
    if (this.text && !this.finished) this.show(`${this.text}\n_(followed in the next block)_`, true);
  }

  /** Shows the block's new text: sent the first time, then edited (where the platform edits). */
  show(text: string, allFinished: boolean): void {
    if (text === this.text && allFinished === this.finished) return;
    this.text = text;
    const message = { text, kind: "notice" as const };
    if (!this.posted) {
      this.posted = this.stream.post(message);
      this.finished = allFinished;
      return;
    }
    for (const { outbox, route, slot } of this.posted) {
      if (outbox.adapter.capabilities.edits) slot.update(message);
      else if (allFinished && !this.finished) outbox.post(route, message);
    }
    this.finished = allFinished;
  }
}
