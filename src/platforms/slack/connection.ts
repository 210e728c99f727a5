// How Slack's events reach the adapter: Socket Mode (default, no public URL needed) through
// @slack/socket-mode's client directly, or Bolt's signature-checked HTTP receiver
// (connection-http.ts, loaded only in HTTP mode: Bolt's App brings Express and OAuth, which
// Socket Mode never uses). Either way three kinds of delivery reach the handlers: messages (and
// mentions), the /baton command, button presses; each carries its id for the core, which drops a
// redelivery (after a reconnect Slack resends what was not acknowledged).
import { LogLevel, SocketModeClient, type Logger } from "@slack/socket-mode";
import type { PlatformLogger } from "../contract.js";
import type { SlackAdapterConfig } from "./config.js";
import type { SlackMessageEvent } from "./inbound.js";
import { ACTION_ID_PREFIX } from "./blocks.js";

/** Path of the HTTP receiver's Events / interactivity / slash command endpoint. */
export const HTTP_EVENTS_PATH = "/slack/events";
/** The slash command Baton answers. */
export const SLASH_COMMAND = "/baton";

export interface SlashCommandPayload {
  command: string;
  text?: string;
  user_id: string;
  user_name?: string;
  channel_id: string;
  team_id?: string;
  thread_ts?: string;
  trigger_id?: string;
}

export interface BlockActionPayload {
  user: { id: string; name?: string; username?: string; team_id?: string };
  team?: { id: string } | null;
  channel?: { id: string };
  container?: { channel_id?: string; message_ts?: string; thread_ts?: string };
  message?: { ts?: string; thread_ts?: string };
  trigger_id?: string;
  actions: Array<{ action_id: string; value?: string; action_ts?: string }>;
}

interface SlackConnectionHandlers {
  onMessage(event: SlackMessageEvent): void;
  onSlashCommand(command: SlashCommandPayload): void;
  onAction(body: BlockActionPayload, actionId: string): void;
}

export interface SlackConnectionOptions {
  config: SlackAdapterConfig;
  botUserId: string;
  botId?: string;
  clientOptions: { slackApiUrl?: string; retryConfig?: { retries: number; factor?: number } };
  log: PlatformLogger;
  handlers: SlackConnectionHandlers;
}

export interface SlackConnection {
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function createSlackConnection(options: SlackConnectionOptions): SlackConnection {
  return options.config.mode === "http" ? httpConnection(options) : socketModeConnection(options);
}

function socketModeConnection(options: SlackConnectionOptions): SlackConnection {
  const { config, log, handlers } = options;
  const client = new SocketModeClient({ appToken: config.app_token ?? "", logger: slackLogger(log), clientOptions: options.clientOptions });
  client.on("slack_event", async ({ ack, type, body }: { ack: () => Promise<void>; type: string; body: Record<string, any> }) => {
    // Acknowledged first, redeliveries too, or Slack keeps resending (and wants the ack within 3 s).
    await ack();
    try {
      if (type === "events_api" && (body.event?.type === "message" || body.event?.type === "app_mention")) handlers.onMessage(body.event as SlackMessageEvent);
      else if (type === "slash_commands" && body.command === SLASH_COMMAND) handlers.onSlashCommand(body as SlashCommandPayload);
      else if (type === "interactive" && body.type === "block_actions") {
        // As Bolt does: a block_actions delivery is about its first action.
        const actionId = String(body.actions?.[0]?.action_id ?? "");
        if (actionId.startsWith(ACTION_ID_PREFIX)) handlers.onAction(body as BlockActionPayload, actionId);
      }
    } catch (error) {
      log.error({ err: String(error) }, "slack: error in an event handler");
    }
  });
  return {
    async start() {
      await client.start();
    },
    async stop() {
      // disconnect() waits for the socket to close and stops reconnecting.
      await client.disconnect();
    },
  };
}

/** Bolt and its HTTP receiver load on start, in HTTP mode only. */
function httpConnection(options: SlackConnectionOptions): SlackConnection {
  let connection: SlackConnection | undefined;
  return {
    async start() {
      const { createHttpConnection } = await import("./connection-http.js");
      connection = createHttpConnection(options);
      await connection.start();
    },
    async stop() {
      await connection?.stop();
    },
  };
}

/** Slack's logger interface (Bolt, Socket Mode, Web API) over Baton's; the Slack clients redact tokens themselves. */
export function slackLogger(log: PlatformLogger): Logger {
  let level: LogLevel = LogLevel.INFO;
  const order = [LogLevel.DEBUG, LogLevel.INFO, LogLevel.WARN, LogLevel.ERROR];
  const enabled = (at: LogLevel) => order.indexOf(at) >= order.indexOf(level);
  const text = (parts: unknown[]) => parts.map((part) => (part instanceof Error ? part.message : String(part))).join(" ");
  return {
    debug: (...parts: unknown[]) => enabled(LogLevel.DEBUG) && log.debug({ source: "slack" }, text(parts)),
    info: (...parts: unknown[]) => enabled(LogLevel.INFO) && log.info({ source: "slack" }, text(parts)),
    warn: (...parts: unknown[]) => enabled(LogLevel.WARN) && log.warn({ source: "slack" }, text(parts)),
    error: (...parts: unknown[]) => enabled(LogLevel.ERROR) && log.error({ source: "slack" }, text(parts)),
    setLevel: (next: LogLevel) => {
      level = next;
    },
    getLevel: () => level,
    setName: () => undefined,
  } as Logger;
}
