// /mode and /model: list what the agent offers (buttons where the platform has them) or switch the
// running session to one; the choice is kept on the thread and applied again after a restart.
import type { SettingKind } from "../../agents/session-settings.js";
import type { ChatContext, CommandSpec } from "../context.js";
import type { ThreadRecord } from "../../threads/registry.js";

function settingCommand(kind: SettingKind, description: string): CommandSpec {
  const title = kind === "mode" ? "Mode" : "Model";
  return {
    name: kind,
    usage: `/${kind} [<id>]`,
    description,
    async run(ctx, args) {
      const thread = await threadHere(ctx, `/${kind}`);
      if (args.length > 0) {
        const choice = await ctx.features.changeSetting(thread, kind, args.join(" "));
        await ctx.reply(`🔀 ${title}: **${choice.name}** (\`${choice.id}\`)`);
        return;
      }
      const setting = await ctx.features.setting(thread, kind);
      if (!setting) {
        await ctx.reply(ctx.features.noSettingText(kind));
        return;
      }
      const menu = ctx.features.settingMenu(thread, setting, ctx.buttons);
      await ctx.reply(menu.text, { buttons: menu.buttons, keep: menu.keep });
    },
  };
}

/** This chat's thread, created as the first message would create it. */
export async function threadHere(ctx: ChatContext, origin: string): Promise<ThreadRecord> {
  const route = ctx.message.route;
  return ctx.threads.forRoute(route) ?? (await ctx.threads.create(route, { ...(await ctx.features.newThreadSpec(route)), origin }));
}

export const mode = settingCommand("mode", "the agent's modes (ask, code, plan…); switch the running session with /mode <id>");
export const model = settingCommand("model", "the agent's models; switch the running session with /model <id>");
