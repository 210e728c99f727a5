// /file <path>: a file of this thread's workspace into the chat (never from outside it).
import { CommandError } from "../../kernel/errors.js";
import type { CommandSpec } from "../context.js";
import { threadHere } from "./settings.js";

export const file: CommandSpec = {
  name: "file",
  usage: "/file <path>",
  description: "send a file of the workspace into this chat (relative to the workspace)",
  async run(ctx) {
    const path = ctx.parsed.kind === "command" ? ctx.parsed.rest.replace(/^(["'])(.*)\1$/, "$2") : "";
    if (!path) throw new CommandError("Name a file of the workspace: `/file src/index.ts` (relative to the workspace).");
    const thread = await threadHere(ctx, "/file");
    await ctx.features.sendFile(ctx.message.route, thread, path);
  },
};
