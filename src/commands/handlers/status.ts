import type { CommandSpec } from "../context.js";

export const status: CommandSpec = {
  name: "status",
  usage: "/status",
  description: "workspace, machine, thread, agent, session, host state, routes, approvals, queue and subagents",
  async run(ctx) {
    const thread = ctx.threads.forRoute(ctx.message.route);
    if (!thread) {
      const host = ctx.agents.defaultHost();
      await ctx.reply(`No thread here yet. The next message starts one with ${hostLabel(ctx.agents.displayName(host.agent), host.profile)} in \`${ctx.workspaces.list()[0].path}\`.`);
      return;
    }
    const state = ctx.agents.state(thread.id);
    const lines = [
      `**Workspace:** \`${thread.workspace}\``,
      `**Machine:** ${ctx.workspaces.machineOf(thread.workspace).label}`,
      `**Thread:** \`${thread.id}\``,
      `**Agent:** ${hostLabel(ctx.agents.displayName(thread.agent), thread.profile)}`,
      `**Session:** ${thread.session ? `\`${thread.session}\`` : "not started"}`,
      `**Host:** ${state.host}`,
      `**Routes:** ${[...thread.routes].map((r) => `\`${r}\``).join(", ")}`,
      `**Approvals pending:** ${state.approvals}`,
      `**Queued prompts:** ${state.queued}`,
    ];
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
