// HTTP mode: a Bolt App on Bolt's HTTP receiver (Slack's signature checked) and its three
// listeners. Loaded only when a Slack instance runs in HTTP mode.
import { App, HTTPReceiver } from "@slack/bolt";
import { PlatformError } from "../../kernel/errors.js";
import { parseListenAddress } from "../../kernel/listen.js";
import { ACTION_ID_PREFIX } from "./blocks.js";
import { HTTP_EVENTS_PATH, SLASH_COMMAND, slackLogger, type BlockActionPayload, type SlackConnection, type SlackConnectionOptions, type SlashCommandPayload } from "./connection.js";
import type { SlackMessageEvent } from "./inbound.js";

export function createHttpConnection(options: SlackConnectionOptions): SlackConnection {
  const { config, log } = options;
  const logger = slackLogger(log);
  const receiver = new HTTPReceiver({ signingSecret: config.signing_secret ?? "", endpoints: HTTP_EVENTS_PATH, logger });
  const app = new App({
    token: config.bot_token,
    // Known from our own auth.test, so Bolt does not call it again.
    botUserId: options.botUserId,
    botId: options.botId ?? options.botUserId,
    receiver,
    clientOptions: { ...options.clientOptions, logger },
    logger,
  });
  const onMessageEvent = async ({ event }: { event: unknown }) => {
    options.handlers.onMessage(event as SlackMessageEvent);
  };
  app.event("message", onMessageEvent);
  app.event("app_mention", onMessageEvent);

  app.command(SLASH_COMMAND, async ({ ack, command }) => {
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
      const address = parseListenAddress(config.listen);
      if (!address) throw new PlatformError(`slack listen must be host:port, got "${config.listen}".`, { reason: "refused" });
      await app.start({ host: address.host, port: address.port });
    },
    async stop() {
      await app.stop();
    },
  };
}
