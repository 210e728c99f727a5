// The path of every inbound message: error boundary → addressed? → access → command or prompt.
import type { ContentBlock } from "@agentclientprotocol/sdk";
import { BatonError, userMessageOf } from "../kernel/errors.js";
import { redactSecrets } from "../kernel/secrets.js";
import type { PlatformLogger } from "../platforms/contract.js";
import type { ChatContext } from "./context.js";
import { findCommand } from "./index.js";
import { compose, type Middleware } from "./router.js";

export interface PipelineDeps {
  /** The sender may use the bot: listed in access.allow, or authenticated by the platform instance itself. */
  isAllowed(message: ChatContext["message"]): boolean;
  /** True when a stranger should get the refusal now (rate-limited per user). */
  shouldRefuse(userId: string): boolean;
  log: PlatformLogger;
}

/** Commands a stranger may use. */
const PUBLIC_COMMANDS = new Set(["help"]);

export function buildPipeline(deps: PipelineDeps): (ctx: ChatContext) => Promise<void> {
  const errorBoundary: Middleware<ChatContext> = async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      if (!(error instanceof BatonError)) deps.log.error({ route: ctx.message.route, err: error }, "message handling failed");
      // Error texts can quote what the user typed (an id, a path): scrubbed like every other output.
      await ctx.reply(`⚠️ ${redactSecrets(userMessageOf(error))}`).catch(() => undefined);
    }
  };

  // Unaddressed group chatter never reaches anything, not even a refusal.
  const addressed: Middleware<ChatContext> = async (ctx, next) => {
    if (ctx.addressed) await next();
  };

  const access: Middleware<ChatContext> = async (ctx, next) => {
    const { user } = ctx.message;
    if (deps.isAllowed(ctx.message)) return next();
    if (ctx.parsed.kind === "command" && PUBLIC_COMMANDS.has(ctx.parsed.name)) return next();
    deps.log.info({ user: user.id, route: ctx.message.route }, "refused a user who is not in access.allow");
    if (deps.shouldRefuse(user.id)) {
      await ctx.reply(`Sorry, you are not allowed to use this bot. Ask the operator to add \`${user.id}\` to access.allow.`, { onlyToSender: true });
    }
  };

  const command: Middleware<ChatContext> = async (ctx, next) => {
    if (ctx.parsed.kind !== "command") return next();
    const spec = findCommand(ctx.parsed.name);
    if (!spec) {
      await ctx.reply(`Unknown command: /${ctx.parsed.name} — try /help`);
      return;
    }
    await spec.run(ctx, [...ctx.parsed.args]);
  };

  const prompt: Middleware<ChatContext> = async (ctx) => {
    if (ctx.parsed.kind !== "prompt") return;
    const { route, user } = ctx.message;
    let thread = ctx.threads.forRoute(route);
    if (thread) {
      // A number answers a pending approval on platforms without buttons.
      const answered = ctx.agents.answerApproval(thread.id, ctx.parsed.text, user);
      if (answered !== undefined) {
        if (answered) await ctx.reply(answered);
        return;
      }
    } else {
      thread = await ctx.threads.create(route, { ...(await ctx.features.newThreadSpec(route)), origin: "message" });
    }
    // Files are fetched only now: after the access check, so a stranger's upload never touches the disk.
    const fetched = await ctx.fetchFiles();
    const { files, transcripts, problems } = await ctx.features.voiceNotes(thread, fetched.files);
    for (const transcript of transcripts) await ctx.reply(`🎙️ _${transcript.replace(/[_*`]/g, "\\$&") || "(nothing heard)"}_`);
    for (const problem of problems) await ctx.reply(`⚠️ ${problem}`);
    const text = [ctx.parsed.text.trim(), ...transcripts, ...fetched.notes].filter((part) => part.length > 0).join("\n");
    const blocks: ContentBlock[] = [];
    if (text) blocks.push({ type: "text", text });
    for (const f of files) {
      blocks.push({ type: "resource_link", uri: `file://${f.path}`, name: f.name, mimeType: f.mimeType ?? null, size: f.size });
    }
    if (blocks.length === 0) return;
    const ahead = ctx.agents.submit(thread, blocks);
    if (ctx.agents.restarting?.()) await ctx.reply("⏸ Baton is restarting. Your message is kept and runs once it is back.");
    else if (ahead > 0) await ctx.reply(`⏳ Queued behind ${ahead} turn${ahead === 1 ? "" : "s"}. /stop cancels the running one.`);
  };

  return compose([errorBoundary, addressed, access, command, prompt]);
}
