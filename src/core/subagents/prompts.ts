// What a subagent is told: who it is, where it works, its task, and in collaboration mode the
// others' reports of the round before. Plain Markdown with fixed headings, so any agent reads it
// and the demo agent can find its parts.
import type { SubagentMode } from "./records.js";

/** The first words of every subagent prompt. */
const SUBAGENT_PROMPT_MARK = "[Baton subagent]";

export interface SubagentPromptInput {
  name: string;
  /** How many subagents this multi-agent turn has. */
  count: number;
  mode: SubagentMode;
  round: number;
  rounds: number;
  task: string;
  /** Context the host gave every subagent (not in brainstorming, where it is the task itself). */
  shared?: string;
  cwd: string;
  branch?: string;
  /** Collaboration, from round 2: the others' reports of the round before. */
  others?: Array<{ name: string; text: string }>;
  /** Baton was restarted while it worked on this round. */
  resumed?: boolean;
}

export function subagentPrompt(p: SubagentPromptInput): string {
  const lines = [
    `${SUBAGENT_PROMPT_MARK} You are "${p.name}", one of ${p.count} subagent${p.count === 1 ? "" : "s"} the agent of a chat thread started through Baton (mode: ${p.mode}${p.rounds > 1 ? `, round ${p.round} of ${p.rounds}` : ""}).`,
    p.branch
      ? `You work in ${p.cwd}, a git worktree of the workspace on the branch ${p.branch}; Baton commits what you leave uncommitted when you finish.`
      : `You work in ${p.cwd}, shared with the other subagents: change only what your task needs.`,
    "Work on your own: nobody answers questions before you finish. Your last message is your report to that agent: what you did, found or decided.",
  ];
  if (p.shared) lines.push("", "## Context", p.shared.trim());
  lines.push("", "## Task", p.task.trim());
  if (p.others && p.others.length > 0) {
    lines.push("", `## Reports of the other subagents, round ${p.round - 1}`);
    for (const o of p.others) lines.push(`### ${o.name}`, o.text.trim() || "(no report)");
    lines.push("", "Take them into account, then give your report for this round.");
  }
  if (p.resumed) {
    lines.push("", "## Resumed", "Baton was restarted while you worked on this. Your session still holds what you did: continue where you were and finish with your report.");
  }
  return lines.join("\n");
}
