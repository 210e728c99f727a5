import type { CommandSpec } from "../context.js";
import { CommandError } from "../../kernel/errors.js";
import { takeFlag, takeOption } from "../parse.js";
import { boundRefusal } from "../features.js";

export const workspace: CommandSpec = {
  name: "workspace",
  usage: "/workspace [--list] | /workspace --switch <name, path or machine:path>",
  description: "list workspaces, or start a new thread in another one",
  async run(ctx, args) {
    const target = takeOption(args, "--switch");
    takeFlag(args, "--list");
    if (args.length > 0) throw new CommandError(`Usage: ${workspace.usage}`);
    const route = ctx.message.route;
    const current = ctx.threads.forRoute(route);
    if (target === undefined) {
      const here = current?.workspace ?? ctx.workspaces.list()[0].path;
      const lines = ctx.workspaces.list().map((w) => `${w.path === here ? "▸" : "•"} **${w.name}** \`${w.path}\``);
      await ctx.reply(`**Workspaces**\n${lines.join("\n")}\n\nSwitch with \`/workspace --switch <name or path>\` (another machine: \`<machine>:<path>\`).`);
      return;
    }
    const binding = ctx.features.binding(route);
    // A bound chat may only start over in its binding's workspace (checked below); elsewhere the
    // workspace is the person's choice, and reaching another one is an admin's.
    if (!binding) ctx.access.require("workspace", "Switching this chat to another workspace");
    const path = await ctx.workspaces.resolve(target);
    let spec: { workspace: string; agent: string; profile?: string; binding?: string };
    if (binding) {
      const bound = await ctx.features.newThreadSpec(route);
      if (bound.workspace !== path) throw boundRefusal(binding, "switching to another workspace");
      spec = bound;
    } else {
      spec = { workspace: path, ...(current ? { agent: current.agent, profile: current.profile } : ctx.agents.defaultHost()) };
    }
    if (current) await ctx.threads.close(current.id, "/workspace --switch");
    const thread = await ctx.threads.create(route, { ...spec, origin: "/workspace --switch" });
    await ctx.reply(`📁 New thread \`${thread.id}\` in \`${path}\`.`);
  },
};
