// /diff, /merge and /pr: a thread's own worktree and branch (workspaces.isolation: worktree).
import { CommandError } from "../../kernel/errors.js";
import type { ThreadRecord } from "../../threads/registry.js";
import type { ChatContext, CommandSpec } from "../context.js";

/** A patch longer than this goes as a file: it must fit one message on every platform (Discord's 2,000 characters) with the list above it. */
const INLINE_PATCH_MAX_CHARS = 1_200;

/** A command on the thread of the message's route (refused where there is no thread yet); the worktree calls refuse a thread without one. */
function onThreadBranch(spec: Omit<CommandSpec, "run">, run: (ctx: ChatContext, thread: ThreadRecord) => Promise<void>): CommandSpec {
  return {
    ...spec,
    async run(ctx) {
      const thread = ctx.threads.forRoute(ctx.message.route);
      if (!thread) throw new CommandError(`There is no thread here yet: /${spec.name} works on the branch of a thread with its own worktree.`);
      await run(ctx, thread);
    },
  };
}

export const diff = onThreadBranch({ name: "diff", usage: "/diff", description: "files this thread's branch changed against where it started, with +/− lines; the patch too" }, async (ctx, thread) => {
  const { branch, baseBranch, files, patch } = await ctx.worktrees.diff(thread);
  if (files.length === 0) {
    await ctx.reply(`No changes on \`${branch}\` against \`${baseBranch}\` yet.`);
    return;
  }
  const lines = files.map((f) => (f.added === undefined ? `- \`${f.path}\` (binary)` : `- \`${f.path}\` +${f.added} −${f.removed}`));
  const [added, removed] = files.reduce(([a, r], f) => [a + (f.added ?? 0), r + (f.removed ?? 0)], [0, 0]);
  const head = `**\`${branch}\`** against \`${baseBranch}\`: ${files.length} file${files.length === 1 ? "" : "s"}, +${added} −${removed}\n${lines.join("\n")}`;
  if (patch.length <= INLINE_PATCH_MAX_CHARS) {
    await ctx.reply(`${head}\n\`\`\`diff\n${patch}\n\`\`\``);
    return;
  }
  await ctx.reply(head);
  const name = `${branch.replace(/[^\w.-]+/g, "-")}.patch`;
  await ctx.features.sendData(ctx.message.route, name, Buffer.from(`${patch}\n`), `The patch of \`${branch}\``);
});

export const merge = onThreadBranch(
  { name: "merge", usage: "/merge", description: "commit what the agent left, then merge this thread's branch into its base branch (only when clean, without conflicts)" },
  async (ctx, thread) => ctx.reply(await ctx.worktrees.merge(thread)),
);

export const pr = onThreadBranch(
  { name: "pr", usage: "/pr [title]", description: "push this thread's branch and open a pull/merge request on the remote's forge (forges: in the config)" },
  async (ctx, thread) => ctx.reply(await ctx.worktrees.pullRequest(thread, ctx.parsed.kind === "command" ? ctx.parsed.rest : "")),
);
