// The Bolt side: an App on a Socket Mode receiver (default, no public URL needed) or on Bolt's HTTP
// receiver (signature-checked), with one dedupe middleware in front of three listeners. Bolt is
// imported only from here and from api.ts, and only when a Slack instance is enabled.
import { PlatformError } from "../../kernel/errors.js";
import { parseListenAddress } from "../../kernel/listen.js";
import { App, HTTPReceiver, LogLevel, SocketModeReceiver } from "@slack/bolt";
import type { Logger } from "@slack/bolt";
import type { PlatformLogger } from "../contract.js";
import type { SlackAdapterConfig } from "./config.js";
import type { SlackMessageEvent } from "./inbound.js";
import { BoundedSet } from "../../kernel/collections.js";
import { ACTION_ID_PREFIX } from "./blocks.js";

/** Envelopes and events remembered to drop redeliveries (after a reconnect, Slack resends unacked ones). */
const DELIVERY_MEMORY_CAPACITY = 20_000;
/** Path of the HTTP receiver's Events / interactivity / slash command endpoint. */
export const HTTP_EVENTS_PATH = "/slack/events";

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

export interface SlackConnectionHandlers {
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
  const { config, log } = options;
  const logger = boltLogger(log);
  const clientOptions = { ...options.clientOptions, logger };
  const seenDeliveries = new BoundedSet(DELIVERY_MEMORY_CAPACITY);

  let socketReceiver: SocketModeReceiver | undefined;
  let httpReceiver: HTTPReceiver | undefined;
  if (config.mode === "http") {
    httpReceiver = new HTTPReceiver({ signingSecret: config.signing_secret ?? "", endpoints: HTTP_EVENTS_PATH, logger });
  } else {
    socketReceiver = new SocketModeReceiver({
      appToken: config.app_token ?? "",
      logger,
      installerOptions: { clientOptions },
      // Lets the dedupe middleware see the envelope id of each Socket Mode delivery.
      customPropertiesExtractor: (args: { envelope_id?: string }) => ({ socketEnvelopeId: args.envelope_id }),
    });
  }

  const app = new App({
    token: config.bot_token,
    // Known from our own auth.test, so Bolt does not call it again.
    botUserId: options.botUserId,
    botId: options.botId ?? options.botUserId,
    receiver: socketReceiver ?? httpReceiver,
    clientOptions,
    logger,
  });

  // Redeliveries are dropped (but still acknowledged, or Slack would keep resending them).
  app.use(async (args) => {
    const body = args.body as { event_id?: string; trigger_id?: string; type?: string };
    const envelopeId = (args.context as { socketEnvelopeId?: string }).socketEnvelopeId;
    const keys = [
      envelopeId && `envelope:${envelopeId}`,
      body.event_id && `event:${body.event_id}`,
      body.trigger_id && `trigger:${body.trigger_id}`,
    ].filter((key): key is string => typeof key === "string");
    const duplicate = keys.some((key) => seenDeliveries.has(key));
    keys.forEach((key) => seenDeliveries.add(key));
    if (duplicate) {
      log.debug({ keys }, "slack: dropped a redelivered event");
      const ack = (args as { ack?: () => Promise<void> }).ack;
      if (ack) await ack();
      return;
    }
    await args.next();
  });

  const onMessageEvent = async ({ event }: { event: unknown }) => {
    options.handlers.onMessage(event as SlackMessageEvent);
  };
  app.event("message", onMessageEvent);
  app.event("app_mention", onMessageEvent);

  app.command("/baton", async ({ ack, command }) => {
    // Slack wants the ack within 3 s; the answer goes to the conversation through send().
    await ack();
    options.handlers.onSlashCommand(command as unknown as SlashCommandPayload);
  });

  app.action(new RegExp(`^${ACTION_ID_PREFIX}`), async ({ ack, body, action }) => {
    await ack();
    options.handlers.onAction(body as unknown as BlockActionPayload, (action as { action_id: string }).action_id);
  });

  app.error(async (error) => {
    log.error({ err: String(error) }, "slack: error in an event handler");
  });

  return {
    async start() {
      if (httpReceiver) {
        const { host, port } = parseListen(config.listen);
        await app.start({ host, port });
      } else {
        await app.start();
      }
    },
    async stop() {
      if (socketReceiver) {
        // app.stop() does not wait for the socket to close; disconnect() does (and stops reconnecting).
        await socketReceiver.client.disconnect();
      } else {
        await app.stop();
      }
    },
  };
}

function parseListen(listen: string): { host: string; port: number } {
  const address = parseListenAddress(listen);
  if (!address) throw new PlatformError(`slack listen must be host:port, got "${listen}".`, { reason: "refused" });
  return address;
}

/** Bolt's logger interface over Baton's; Bolt and the Socket Mode client redact tokens themselves. */
function boltLogger(log: PlatformLogger): Logger {
  let level: LogLevel = LogLevel.INFO;
  const order = [LogLevel.DEBUG, LogLevel.INFO, LogLevel.WARN, LogLevel.ERROR];
  const enabled = (at: LogLevel) => order.indexOf(at) >= order.indexOf(level);
  const text = (parts: unknown[]) => parts.map((part) => (part instanceof Error ? part.message : String(part))).join(" ");
  return {
    debug: (...parts: unknown[]) => enabled(LogLevel.DEBUG) && log.debug({ source: "bolt" }, text(parts)),
    info: (...parts: unknown[]) => enabled(LogLevel.INFO) && log.info({ source: "bolt" }, text(parts)),
    warn: (...parts: unknown[]) => enabled(LogLevel.WARN) && log.warn({ source: "bolt" }, text(parts)),
    error: (...parts: unknown[]) => enabled(LogLevel.ERROR) && log.error({ source: "bolt" }, text(parts)),
    setLevel: (next: LogLevel) => {
      level = next;
    },
    getLevel: () => level,
    setName: () => undefined,
  } as Logger;
}
