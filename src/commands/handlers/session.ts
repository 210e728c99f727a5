import type { CommandSpec } from "../context.js";
import { CommandError } from "../../kernel/errors.js";
import { takeOption } from "../parse.js";
import { shortIdLength } from "../../agents/runtimes/session-ids.js";

const LIST_LIMIT = 10;

export const session: CommandSpec = {
  name: "session",
  usage: "/session [--switch <id>]",
  description: "recent sessions of this agent here; --switch binds this chat to one",
  async run(ctx, args) {
    const route = ctx.message.route;
    const current = ctx.threads.forRoute(route);
    const agent = current?.agent ?? ctx.agents.defaultHost().agent;
    const workspace = current?.workspace ?? (await ctx.workspaces.default());
    const target = takeOption(args, "--switch");
    if (args.includes("--switch") || (target === undefined && args.length > 0)) throw new CommandError(`Usage: ${session.usage}`);
    if (target === undefined) {
      const sessions = (await ctx.agents.listSessions(agent, workspace)).slice(0, LIST_LIMIT);
      if (sessions.length === 0) {
        await ctx.reply(`No ${ctx.agents.displayName(agent)} sessions in \`${workspace}\` yet.`);
        return;
      }
      const width = shortIdLength(sessions.map((s) => s.id));
      const lines = sessions.map(
        (s) => `\`${s.id.slice(0, width)}\` ${s.title || "(untitled)"} — ${age(s.lastActivity)}${s.id === current?.session ? " ← this chat" : s.thread ? " (open thread)" : ""}`,
      );
      await ctx.reply(`**${ctx.agents.displayName(agent)} sessions in \`${workspace}\`**\n${lines.join("\n")}\n\nSwitch with \`/session --switch <id>\`.`);
      return;
    }
    ctx.access.require("session", "Switching this chat to another session");
    const found = await ctx.agents.findSession(agent, workspace, target);
    const open = ctx.threads.findOpenBySession(agent, found.id);
    if (open) {
      // The same rule as /workspace --switch: the agent runs only where workspaces.roots allow.
      await ctx.workspaces.requireAllowed(open.workspace);
      await ctx.threads.attach(route, open.id);
    } else {
      await ctx.threads.create(route, {
        workspace: await ctx.workspaces.requireAllowed(found.cwd ?? workspace),
        agent,
        profile: current?.agent === agent ? current.profile : undefined,
        session: found.id,
        origin: "/session --switch",
      });
    }
    await ctx.reply(`🔀 This chat now continues session \`${found.id.slice(0, 8)}\` (${found.title || "untitled"}). Send a message to resume it.`);
  },
};

function age(iso?: string): string {
  if (!iso) return "unknown age";
  const seconds = Math.max(0, (Date.now() - Date.parse(iso)) / 1000);
  if (seconds < 60) return "just now";
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 86400) return `${Math.round(seconds / 3600)} h ago`;
  return `${Math.round(seconds / 86400)} d ago`;
}
