import { userMessageOf } from "../../kernel/errors.js";
import type { ChatContext, CommandSpec } from "../context.js";
import { describeBinding } from "../features.js";
import type { ThreadRecord } from "../../threads/registry.js";

export const status: CommandSpec = {
  name: "status",
  usage: "/status",
  description: "workspace, worktree and branch, machine, thread, agent, mode, model, session, host state, usage, routes, approvals, queue and subagents",
  async run(ctx) {
    const thread = ctx.threads.forRoute(ctx.message.route);
    if (!thread) {
      const binding = ctx.features.binding(ctx.message.route);
      const host = binding?.host ?? ctx.agents.defaultHost();
      const where = binding ? `\`${binding.workspace}\` (bound by ${describeBinding(binding)})` : `\`${ctx.workspaces.list()[0].path}\``;
      await ctx.reply(`No thread here yet. The next message starts one with ${hostLabel(ctx.agents.displayName(host.agent), host.profile)} in ${where}.`);
      return;
    }
    const state = ctx.agents.state(thread.id);
    const worktree = await ctx.worktrees.describe(thread).catch((error: unknown) => `unknown (${userMessageOf(error)})`);
    const lines = [
      `**Workspace:** \`${thread.workspace}\``,
      worktree ? `**Worktree:** ${worktree}` : undefined,
      `**Machine:** ${ctx.workspaces.machineOf(thread.workspace).label}`,
      `**Thread:** \`${thread.id}\``,
      `**Agent:** ${hostLabel(ctx.agents.displayName(thread.agent), thread.profile)}`,
      ...settingLines(ctx, thread),
      `**Session:** ${thread.session ? `\`${thread.session}\`` : "not started"}`,
      `**Host:** ${state.host}`,
      `**Usage:** ${ctx.features.usageSummary(thread)}`,
      `**Routes:** ${[...thread.routes].map((r) => `\`${r}\``).join(", ")}`,
      `**Approvals pending:** ${state.approvals}`,
      `**Queued prompts:** ${state.queued}`,
      bindingLine(ctx, thread),
    ].filter((line): line is string => line !== undefined);
    const subagents = ctx.agents.subagents(thread.id);
    if (subagents.length > 0) {
      lines.push(`**Subagents:**`);
      for (const s of subagents) lines.push(`- \`${s.name}\` · ${s.agent} · ${s.state}${s.lastTool ? ` · ${s.lastTool}` : ""}`);
    }
    await ctx.reply(lines.join("\n"));
  },
};

export function hostLabel(agentName: string, profile?: string): string {
  return profile ? `${agentName} (profile ${profile})` : agentName;
}

function settingLines(ctx: ChatContext, thread: ThreadRecord): string[] {
  const lines: string[] = [];
  for (const kind of ["mode", "model"] as const) {
    const current = ctx.features.currentSetting(thread, kind);
    if (!current.id) continue;
    const shown = current.name ? `${current.name} (\`${current.id}\`)` : `\`${current.id}\``;
    lines.push(`**${kind === "mode" ? "Mode" : "Model"}:** ${shown}${current.pending ? " — applied when the agent starts" : ""}`);
  }
  return lines;
}

/** Where the workspace and agent came from, when a binding covers this chat. */
function bindingLine(ctx: ChatContext, thread: ThreadRecord): string | undefined {
  const binding = ctx.features.binding(ctx.message.route);
  if (!binding) return thread.binding ? `**Binding:** \`${thread.binding}\` (no longer in the config)` : undefined;
  const chose = thread.binding === binding.match ? "chose this thread's workspace and agent" : "covers this chat; this thread was started otherwise (/pickup, /session)";
  return `**Binding:** ${describeBinding(binding)} ${chose}`;
}
