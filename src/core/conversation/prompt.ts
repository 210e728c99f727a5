// The last step of a message that is a prompt: the route's thread (made now for a first message),
// a number answering a pending approval, the person's limits, files fetched after access, voice
// notes transcribed, and the prompt queued for the thread's agent.
import type { ContentBlock } from "@agentclientprotocol/sdk";
import type { ChatContext, Submitted } from "../../commands/context.js";
import type { ThreadRecord } from "../../threads/registry.js";
import type { Middleware } from "./compose.js";

export const promptStep: Middleware<ChatContext> = async (ctx) => {
  if (ctx.parsed.kind !== "prompt") return;
  const thread = await threadFor(ctx, ctx.parsed.text);
  if (!thread) return;
  // Over a limit (limits.per_person), the prompt goes no further: nothing fetched, nothing sent.
  const admitted = await ctx.limits.admit(ctx.message.user, ctx.message.route);
  if (!admitted.ok) {
    ctx.access.note({ action: "limit", outcome: "refused", detail: admitted.text });
    await ctx.reply(admitted.text, { onlyToSender: true });
    return;
  }
  let submitted: Submitted;
  try {
    const blocks = await promptBlocks(ctx, thread, ctx.parsed.text);
    if (blocks.length === 0) return admitted.ticket.end(false);
    const note = await ctx.worktrees.beforePrompt(thread, ctx.parsed.text);
    if (note) await ctx.reply(note);
    submitted = ctx.agents.submit(thread, blocks, ctx.message.user, admitted.ticket);
  } catch (error) {
    admitted.ticket.end(false);
    throw error;
  }
  if (ctx.agents.restarting?.()) return void (await ctx.reply(await keptOrNot(submitted)));
  if (submitted.ahead === 0) return;
  await queuedNotice(ctx, thread.id, submitted.ahead);
  // It runs here once the turns ahead end, but a restart or a hand-over before then drops it.
  submitted.saved.catch(() => ctx.reply(UNSAVED_QUEUED).catch(() => undefined));
};

const UNSAVED_QUEUED = "⚠️ Your queued message could not be saved: if Baton restarts before it runs, send it again.";

/**
 * While Baton stops (a restart, a hand-over, a lost lead), a prompt runs only if it was saved for
 * the next start: "kept" is said once it is, else the person is told to send it again (an instance
 * cut from its database cannot save it, and nothing else would run it).
 */
async function keptOrNot(submitted: Submitted): Promise<string> {
  try {
    await submitted.saved;
    return "⏸ Baton is restarting. Your message is kept and runs once it is back.";
  } catch {
    return "⚠️ Baton is restarting and could not save your message, so it will not run. Send it again once Baton is back.";
  }
}

/**
 * Per thread, the "queued" notice last posted: prompts written in a burst update that one notice
 * rather than post one each, since every message spends the chat's rate limit (ten prompts at
 * once were nine notices, nine of Telegram's one-a-second slots before the first answer).
 */
const queueNotices = new Map<string, { ahead: number; at: number; replace: (text: string) => void }>();
/** A notice older than this is left where it is (the chat has moved on below it): a new one is posted. */
const NOTICE_REUSE_MS = 10_000;
const MAX_QUEUE_NOTICES = 1_000;

async function queuedNotice(ctx: ChatContext, threadId: string, ahead: number): Promise<void> {
  const text = `⏳ Queued behind ${ahead} turn${ahead === 1 ? "" : "s"}. /stop cancels the running one.`;
  const last = queueNotices.get(threadId);
  const now = Date.now();
  // The queue only grew since that notice (no turn started meanwhile): it still describes this burst.
  if (last && ahead > last.ahead && now - last.at < NOTICE_REUSE_MS) {
    last.ahead = ahead;
    last.replace(text);
    return;
  }
  queueNotices.delete(threadId);
  if (queueNotices.size >= MAX_QUEUE_NOTICES) queueNotices.delete(queueNotices.keys().next().value!);
  await ctx.reply(text, { keep: (replace) => queueNotices.set(threadId, { ahead, at: now, replace }) });
}

/** The route's thread, made now for a first message; undefined when the text answered an approval instead. */
async function threadFor(ctx: ChatContext, text: string): Promise<ThreadRecord | undefined> {
  const { route, user } = ctx.message;
  const thread = ctx.threads.forRoute(route);
  if (!thread) return ctx.threads.create(route, { ...(await ctx.features.newThreadSpec(route)), origin: "message" });
  // A number answers a pending approval on platforms without buttons.
  const answered = ctx.agents.answerApproval(thread.id, text, user, route);
  if (answered === undefined) return thread;
  if (answered.text) await ctx.reply(answered.text, { onlyToSender: answered.refused });
  return undefined;
}

/** The text, transcripts and notes as one text block, then a link per file. */
async function promptBlocks(ctx: ChatContext, thread: ThreadRecord, typed: string): Promise<ContentBlock[]> {
  // Files are fetched only now: after the access check, so a stranger's upload never touches the disk.
  const fetched = await ctx.fetchFiles();
  const { files, transcripts, problems } = await ctx.features.voiceNotes(thread, fetched.files);
  for (const transcript of transcripts) await ctx.reply(`🎙️ _${transcript.replace(/[_*`]/g, "\\$&") || "(nothing heard)"}_`);
  for (const problem of problems) await ctx.reply(`⚠️ ${problem}`);
  const text = [typed.trim(), ...transcripts, ...fetched.notes].filter((part) => part.length > 0).join("\n");
  const blocks: ContentBlock[] = [];
  if (text) blocks.push({ type: "text", text });
  for (const f of files) {
    blocks.push({ type: "resource_link", uri: `file://${f.path}`, name: f.name, mimeType: f.mimeType ?? null, size: f.size });
  }
  return blocks;
}
