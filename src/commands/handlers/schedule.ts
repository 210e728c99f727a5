// /schedule: prompts sent into this chat's thread at the times of a cron pattern.
//   /schedule add [--tz <zone>] "<cron>" <prompt>   ·   /schedule list   ·   /schedule rm <id>
import { CommandError } from "../../kernel/errors.js";
import type { CommandSpec } from "../context.js";
import type { ScheduleInfo } from "../features.js";

const ADD = /^add\s+(?:--tz\s+(\S+)\s+)?(?:"([^"]+)"|'([^']+)')\s+([\s\S]+)$/;

export const schedule: CommandSpec = {
  name: "schedule",
  usage: '/schedule add "<cron>" <prompt> | list | rm <id>',
  description: 'prompts sent here at set times (cron, e.g. "0 9 * * 1-5"); --tz <zone> after add',
  async run(ctx, args) {
    const route = ctx.message.route;
    const rest = ctx.parsed.kind === "command" ? ctx.parsed.rest : "";
    const verb = args[0]?.toLowerCase() ?? "list";
    if (verb === "add") {
      ctx.access.require("schedule", "Adding a schedule");
      const m = ADD.exec(rest);
      if (!m)
        throw new CommandError(
          'Usage: `/schedule add "<cron>" <prompt>`, the pattern in quotes: `/schedule add "0 9 * * 1-5" summarise yesterday\'s commits`. Add `--tz Europe/Berlin` after add for a time zone.',
        );
      const added = await ctx.features.schedules.add(route, m[2] ?? m[3], m[4].trim(), ctx.message.user.id, m[1]);
      await ctx.reply(`⏰ Scheduled \`${added.id}\`: ${describe(added)}\nRemove it with \`/schedule rm ${added.id}\`.`);
      return;
    }
    if (verb === "rm" || verb === "remove" || verb === "delete") {
      ctx.access.require("schedule", "Removing a schedule");
      if (!args[1]) throw new CommandError("Which one? `/schedule rm <id>`; `/schedule list` shows the ids.");
      await ctx.features.schedules.remove(route, args[1]);
      await ctx.reply(`Removed schedule \`${args[1]}\`.`);
      return;
    }
    if (verb !== "list") throw new CommandError(`Usage: ${schedule.usage}`);
    const list = ctx.features.schedules.list(route);
    if (list.length === 0) {
      await ctx.reply('No schedules here. Add one: `/schedule add "0 9 * * 1-5" <prompt>`.');
      return;
    }
    await ctx.reply(`**Schedules here**\n${list.map((s) => `• \`${s.id}\` ${describe(s)}${s.source === "config" ? " (from the config)" : ""}`).join("\n")}`);
  },
};

function describe(s: ScheduleInfo): string {
  const zone = s.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  const next = s.next ? s.next.toLocaleString("en-GB", { timeZone: zone, dateStyle: "medium", timeStyle: "short" }) : "never again";
  return `\`${s.cron}\` (${zone}) → ${s.prompt} — next: ${next}`;
}
