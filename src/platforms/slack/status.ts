// "Working on it" while a turn runs. Slack has no typing indicator for bots; the assistant thread
// status (`assistant.threads.setStatus`, needs the `assistant:write` scope) shows one in threads
// where the app is an AI assistant. Everywhere else a reaction on the prompt message does the job,
// removed when the turn ends.
import type { PlatformLogger } from "../contract.js";
import type { SlackApi } from "./api.js";
import { slackErrorCode } from "./api.js";
import { parseSlackRoute } from "./routes.js";
import { ASSISTANT_STATUS_SCOPE } from "./scopes.js";

const WORKING_REACTION = "hourglass_flowing_sand";
const ASSISTANT_STATUS_TEXT = "is working…";
/** Errors that mean the assistant status will never work for this app, so stop trying it. */
const ASSISTANT_UNAVAILABLE_ERRORS = new Set(["missing_scope", "not_allowed_token_type", "unknown_method", "method_deprecated", "feature_not_enabled"]);
/** Harmless answers: the reaction is already there / already gone. */
const IGNORABLE_REACTION_ERRORS = new Set(["already_reacted", "no_reaction", "message_not_found"]);

type ActiveStatus = { kind: "assistant"; channel: string; threadTs: string } | { kind: "reaction"; channel: string; ts: string };

export class TurnStatusIndicator {
  private assistantAvailable: boolean;
  private readonly active = new Map<string, ActiveStatus>();

  constructor(
    private readonly api: SlackApi,
    private readonly log: PlatformLogger,
    grantedScopes: readonly string[],
  ) {
    this.assistantAvailable = grantedScopes.includes(ASSISTANT_STATUS_SCOPE);
  }

  async update(route: string, state: "running" | "idle", promptMessageId?: string): Promise<void> {
    const parsed = parseSlackRoute(route);
    if (!parsed) return;
    if (state === "idle") return this.clear(route);
    if (this.active.has(route)) return;

    if (this.assistantAvailable && parsed.threadTs) {
      const status: ActiveStatus = { kind: "assistant", channel: parsed.channel, threadTs: parsed.threadTs };
      if (await this.setAssistantStatus(status, ASSISTANT_STATUS_TEXT)) {
        this.active.set(route, status);
        return;
      }
    }
    if (!promptMessageId) return;
    const status: ActiveStatus = { kind: "reaction", channel: parsed.channel, ts: promptMessageId };
    this.active.set(route, status);
    await this.react("reactions.add", status);
  }

  private async clear(route: string): Promise<void> {
    const status = this.active.get(route);
    if (!status) return;
    this.active.delete(route);
    if (status.kind === "assistant") await this.setAssistantStatus(status, "");
    else await this.react("reactions.remove", status);
  }

  /** Returns false when Slack refused, so the caller falls back to a reaction. */
  private async setAssistantStatus(status: { channel: string; threadTs: string }, text: string): Promise<boolean> {
    try {
      await this.api.call("assistant.threads.setStatus", { channel_id: status.channel, thread_ts: status.threadTs, status: text });
      return true;
    } catch (error) {
      const code = slackErrorCode(error);
      if (code && ASSISTANT_UNAVAILABLE_ERRORS.has(code)) this.assistantAvailable = false;
      this.log.debug({ code, err: String(error) }, "slack: assistant status refused, using a reaction");
      return false;
    }
  }

  private async react(method: "reactions.add" | "reactions.remove", status: { channel: string; ts: string }): Promise<void> {
    try {
      await this.api.call(method, { channel: status.channel, timestamp: status.ts, name: WORKING_REACTION });
    } catch (error) {
      const code = slackErrorCode(error);
      // A status indicator is decoration: failing it must never fail the turn.
      if (!code || !IGNORABLE_REACTION_ERRORS.has(code)) this.log.warn({ method, code, err: String(error) }, "slack: turn status reaction failed");
    }
  }
}
