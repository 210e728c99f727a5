import type { CommandSpec } from "../context.js";
import { CommandError } from "../../kernel/errors.js";

export const pickup: CommandSpec = {
  name: "pickup",
  usage: "/pickup CODE",
  description: "continue a terminal agent session here (the code comes from the agent's handover tool)",
  async run(ctx, args) {
    if (args.length !== 1) throw new CommandError(`Usage: ${pickup.usage} — ask the agent in your terminal to "hand this over" to get a code.`);
    if (!ctx.handover) throw new CommandError("Handover is not enabled on this Baton.");
    await ctx.handover.pickup(ctx, args[0]);
  },
};
