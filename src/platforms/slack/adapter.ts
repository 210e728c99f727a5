// SlackAdapter: the PlatformAdapter for one Slack workspace. It translates, it never routes: Slack
// events become facts for the core, and the core's send / edit become one chat.postMessage /
// chat.update each in the right channel and thread.
import { PlatformError } from "../../kernel/errors.js";
import type { ActionPress, MessageRef, OutboundFile, OutboundMessage, PacingLimits, PlatformAdapter, PlatformCapabilities, PlatformCore, PlatformEnv, PlatformUser, StartInfo } from "../contract.js";
import { pacingWith } from "../kit/pacing.js";
import { SLACK_TROUBLE_ERRORS, SlackApi, slackErrorCode, toPlatformError } from "./api.js";
import { buttonIdFromActionId } from "./blocks.js";
import type { SlackAdapterConfig } from "./config.js";
import { createSlackConnection } from "./connection.js";
import type { BlockActionPayload, SlackConnection, SlashCommandPayload } from "./connection.js";
import { slackFile } from "./files.js";
import { MessageTranslator, slashCommandText, userOf } from "./inbound.js";
import type { SlackMessageEvent } from "./inbound.js";
import { SlackOutbox } from "./outbound.js";
import { formatSlackRoute, parseSlackRoute, slackUserIdOf } from "./routes.js";
import { inUserGroup } from "./usergroups.js";
import type { SlackRoute } from "./routes.js";
import { TurnStatusIndicator } from "./status.js";
import { botTookPartInThread, ThreadMembership } from "./threads.js";
import { SLACK_MAX_UPLOAD_BYTES, uploadFile } from "./uploads.js";

/** Markdown per chunk from the core: leaves room for mrkdwn escaping within Slack's 3000-char section. */
const SLACK_MAX_MESSAGE_CHARS = 2900;
/** chat.update is Tier 3 (~50 a minute per workspace): one edit of a message every 1.5 s at most. */
export const SLACK_DEFAULT_MIN_EDIT_GAP_MS = 1500;
/**
 * Slack's documented limits. chat.postMessage: "generally allow an app to post 1 message per
 * second to a specific channel, with limits on bursts of messages" (a burst of three here, so a
 * short answer's post goes at once); chat.update is Tier 3, "50+ per minute" per workspace, all
 * channels together. An update does not count against the channel's one a second.
 */
const SLACK_PACING: PacingLimits = {
  key: { burst: 3, perSecond: 1 },
  keyCounts: "sends",
  platformEdits: { calls: 50, windowMs: 60_000 },
};
/** Socket Mode retries some failures forever; start() gives up after this long. */
const CONNECT_TIMEOUT_MS = 30_000;

/** auth.test answers that mean the token itself is wrong. */
const BAD_TOKEN_ERRORS = new Set(["invalid_auth", "not_authed", "account_inactive", "token_revoked", "token_expired", "not_allowed_token_type"]);

interface AuthTestResult {
  user_id: string;
  /** The bot's user name. */
  user: string;
  team_id: string;
  team?: string;
  bot_id?: string;
  /** `scopes` comes from the x-oauth-scopes header. */
  response_metadata?: { scopes?: string[] };
}

/** Options the tests (and only they) pass beside the config. */
export interface SlackAdapterTestOptions {
  retryConfig?: { retries: number; factor?: number };
  /** In place of Slack's documented limits (SLACK_PACING). */
  pacing?: PacingLimits;
}

export class SlackAdapter implements PlatformAdapter {
  readonly kind = "slack";
  readonly capabilities: PlatformCapabilities;
  private core?: PlatformCore;
  private outbox?: SlackOutbox;
  private api?: SlackApi;
  private connection?: SlackConnection;
  private translator?: MessageTranslator;
  private threads?: ThreadMembership;
  private status?: TurnStatusIndicator;
  private teamId = "";

  constructor(
    readonly name: string,
    private readonly config: SlackAdapterConfig,
    _env: PlatformEnv,
    private readonly testOptions: SlackAdapterTestOptions = {},
  ) {
    this.capabilities = {
      maxMessageLength: SLACK_MAX_MESSAGE_CHARS,
      edits: true,
      buttons: true,
      minEditGapMs: config.min_edit_gap_ms ?? SLACK_DEFAULT_MIN_EDIT_GAP_MS,
      pacing: pacingWith(testOptions.pacing ?? SLACK_PACING, config.pacing),
      maxUploadBytes: SLACK_MAX_UPLOAD_BYTES,
    };
  }

  async start(core: PlatformCore): Promise<StartInfo> {
    this.core = core;
    if (this.config.mode === "socket" && !this.config.app_token?.startsWith("xapp-")) {
      // A bot token here would make Socket Mode retry apps.connections.open forever.
      throw new PlatformError(`platforms.${this.name}.app_token must be an app-level token (xapp-…) for Socket Mode`, { reason: "refused" });
    }
    const api = new SlackApi({ botToken: this.config.bot_token, apiUrl: this.config.api_url, retryConfig: this.testOptions.retryConfig });
    const auth = await this.authTest(api);
    this.api = api;
    this.teamId = auth.team_id;
    const threads = new ThreadMembership((channel, threadTs) => botTookPartInThread(api, auth, channel, threadTs), core.log);
    this.threads = threads;
    this.translator = new MessageTranslator({ instance: this.name, botUserId: auth.user_id, botName: auth.user, teamId: auth.team_id }, threads);
    this.outbox = new SlackOutbox(api, (channel, threadTs) => threads.remember(channel, threadTs));
    this.status = new TurnStatusIndicator(api, core.log, auth.response_metadata?.scopes ?? []);
    this.connection = createSlackConnection({
      config: this.config,
      botUserId: auth.user_id,
      botId: auth.bot_id,
      clientOptions: { slackApiUrl: this.config.api_url, retryConfig: this.testOptions.retryConfig },
      log: core.log,
      handlers: {
        onMessage: (event) => this.onMessage(event),
        onSlashCommand: (command) => this.onSlashCommand(command),
        onAction: (body, actionId) => this.onAction(body, actionId),
      },
    });
    await this.connect(this.connection);
    const where = auth.team ? `${auth.team}` : auth.team_id;
    return { description: `${this.name}: connected as @${auth.user} in ${where}` };
  }

  /** Opens the socket (or the HTTP listener), giving up after CONNECT_TIMEOUT_MS instead of retrying forever. */
  private async connect(connection: SlackConnection): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`not connected after ${CONNECT_TIMEOUT_MS} ms`)), CONNECT_TIMEOUT_MS);
    });
    try {
      await Promise.race([connection.start(), timeout]);
    } catch (error) {
      await connection.stop().catch(() => undefined);
      const code = slackErrorCode(error);
      if (code && !SLACK_TROUBLE_ERRORS.has(code)) {
        throw new PlatformError(`Slack refused the app token (${code}); check platforms.${this.name}.app_token (xapp-…, scope connections:write)`, { reason: "refused", cause: error });
      }
      throw new PlatformError(`Slack: could not connect (${this.config.mode} mode): ${errorText(error)}`, { reason: "network", cause: error });
    } finally {
      clearTimeout(timer);
    }
  }

  async stop(): Promise<void> {
    const connection = this.connection;
    this.connection = undefined;
    await connection?.stop();
  }

  send(route: string, message: OutboundMessage): Promise<MessageRef> {
    return this.requireOutbox().send(this.target(route), message);
  }

  edit(route: string, ref: MessageRef, message: OutboundMessage): Promise<void> {
    return this.requireOutbox().edit(this.target(route), ref, message);
  }

  upload(route: string, file: OutboundFile): Promise<MessageRef> {
    if (!this.api) throw new PlatformError("Slack is not connected yet.", { reason: "network" });
    return uploadFile(this.api, this.target(route), file);
  }

  /** Slack paces chat.postMessage per channel: a channel's threads share its budget. */
  paceKey(route: string): { key: string; windowed: boolean } {
    return { key: this.target(route).channel, windowed: false };
  }

  async turnStatus(route: string, state: "running" | "idle", promptMessageId?: string): Promise<void> {
    await this.status?.update(route, state, promptMessageId);
  }

  async notify(route: string, userId: string, text: string): Promise<void> {
    await this.requireOutbox().ephemeral(this.target(route), userId, text);
  }

  /** `slack:group:S…`: a member of that user group of this workspace (usergroups.users.list). */
  async memberOf(principal: string, user: PlatformUser): Promise<boolean> {
    if (!this.api) throw new PlatformError("Slack is not connected yet.", { reason: "network" });
    return inUserGroup(this.api, principal, slackUserIdOf(user.id));
  }

  /** A user group is the workspace's: one answer holds in each of its channels. */
  groupScope(route: string): string {
    const { instance, team } = this.target(route);
    return `${instance}:${team}`;
  }

  // ── inbound ──────────────────────────────────────────────────────────────────────────────

  private onMessage(event: SlackMessageEvent): void {
    const translated = this.translator?.translate(event);
    if (!translated) return;
    const { message, uncertainThread } = translated;
    const fileSource = { botToken: this.config.bot_token, apiHost: this.config.api_url ? new URL(this.config.api_url).host : undefined };
    const files = translated.files.map((file) => slackFile(file, fileSource));
    // A thread Baton does not know yet is looked up while the core keeps the route's order; one
    // message is one event to the core (Slack sends a mention as two events, and may redeliver).
    const threads = this.threads!;
    const lookup = uncertainThread && threads.resolve(uncertainThread.channel, uncertainThread.threadTs).then((ours) => ({ replyToBot: ours }));
    const eventId = `${event.channel}:${event.ts}`;
    void this.deliver(() => this.requireCore().handleMessage({ ...message, eventId, lookup, files: files.length > 0 ? files : undefined }));
  }

  private onSlashCommand(command: SlashCommandPayload): void {
    const team = this.teamId;
    // Slash commands carry no thread (unless Slack adds one): they act on the channel or DM route.
    const route = formatSlackRoute({ instance: this.name, team, channel: command.channel_id, threadTs: command.thread_ts });
    const direct = command.channel_id.startsWith("D");
    const message = { route, user: userOf(command.user_id, command.user_name), text: slashCommandText(command.text), direct, eventId: command.trigger_id };
    void this.deliver(() => this.requireCore().handleMessage(message));
  }

  private onAction(body: BlockActionPayload, actionId: string): void {
    const buttonId = buttonIdFromActionId(actionId);
    const channel = body.container?.channel_id ?? body.channel?.id;
    if (!buttonId || !channel) return;
    const threadTs = body.message?.thread_ts ?? body.container?.thread_ts;
    const team = this.teamId;
    const route = formatSlackRoute({ instance: this.name, team, channel, threadTs });
    const press: ActionPress = { route, user: userOf(body.user.id, body.user.username ?? body.user.name), actionId: buttonId, eventId: body.trigger_id };
    void this.deliver(async () => {
      const outcome = await this.requireCore().handleAction(press);
      // A refusal is shown only to the presser; the core edits the message itself when it accepts.
      if (!outcome.ok) await this.notify(route, press.user.id, outcome.text);
    });
  }

  private async deliver(task: () => Promise<void>): Promise<void> {
    try {
      await task();
    } catch (error) {
      this.core?.log.error({ err: errorText(error) }, "slack: handling an inbound event failed");
    }
  }

  // ── helpers ──────────────────────────────────────────────────────────────────────────────

  private async authTest(api: SlackApi): Promise<AuthTestResult> {
    try {
      return (await api.call("auth.test")) as unknown as AuthTestResult;
    } catch (error) {
      const code = slackErrorCode(error);
      if (code && BAD_TOKEN_ERRORS.has(code)) {
        throw new PlatformError(`Slack refused the bot token (${code}); check platforms.${this.name}.bot_token`, { reason: "refused", cause: error });
      }
      throw toPlatformError("auth.test", error);
    }
  }

  private target(route: string): SlackRoute {
    const parsed = parseSlackRoute(route);
    if (!parsed || parsed.instance !== this.name) {
      throw new PlatformError("That conversation is not on this Slack workspace.", { reason: "refused", detail: `slack adapter ${this.name} got route ${route}` });
    }
    return parsed;
  }

  private requireOutbox(): SlackOutbox {
    if (!this.outbox) throw new PlatformError("Slack is not connected yet.", { reason: "network", detail: `slack adapter ${this.name} used before start()` });
    return this.outbox;
  }

  private requireCore(): PlatformCore {
    if (!this.core) throw new PlatformError("Slack is not connected yet.", { reason: "network" });
    return this.core;
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
