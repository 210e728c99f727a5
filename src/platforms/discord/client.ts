// The connection to Discord through discord.js: one Client holds the gateway (discord.js keeps it
// alive: heartbeats, RESUME after a dropped socket with the missed events replayed, a new IDENTIFY
// when it must) and its REST manager makes every call (per-route rate-limit buckets, waiting out
// a 429's Retry-After). Inbound events are taken as the gateway's raw dispatches, so no channel cache
// or partials decide what Baton sees.
import {
  Client,
  Events,
  GatewayDispatchEvents,
  Options,
  SimpleShardingStrategy,
  type APIInteraction,
  type GatewayMessageCreateDispatchData,
  type GatewayThreadCreateDispatchData,
  type GatewayTypingStartDispatchData,
  type REST,
} from "discord.js";
import { PlatformError } from "../../kernel/errors.js";
import { DISCORD_API_URL } from "./config.js";
import { GATEWAY_INTENTS, MESSAGE_CONTENT_FIX } from "./permissions.js";

/** discord.js keeps trying some failures (a silent gateway) for a long time; start() gives up after this. */
const CONNECT_TIMEOUT_MS = 30_000;
/** Closing with this code leaves the session resumable at Discord (any code but 1000/1001 does; discord.js uses 4200). */
const RESUMABLE_CLOSE = 4200;

export interface DiscordEvents {
  messageCreate(data: GatewayMessageCreateDispatchData): void;
  interactionCreate(data: APIInteraction): void;
  threadCreate(data: GatewayThreadCreateDispatchData): void;
  typingStart(data: GatewayTypingStartDispatchData): void;
}

export interface ConnectOptions {
  /** Every raw dispatch, before discord.js hands it on (the gateway session's cursor follows them). */
  onRaw?(packet: { t?: string | null; s?: number | null }, shardId: number, shardCount: number): void;
  /** Close leaving the session resumable, for the instance that continues it (store.url). */
  keepResumable?: boolean;
}

export interface DiscordConnection {
  client: Client;
  rest: REST;
  botUserId: string;
  botName: string;
  guildCount: number;
  close(): Promise<void>;
}

export const DISCORD_INTENTS = Object.values(GATEWAY_INTENTS).reduce((all, bit) => all | bit, 0);

export async function connectDiscord(config: { token: string; api_url?: string }, events: DiscordEvents, debug: (message: string) => void, options: ConnectOptions = {}): Promise<DiscordConnection> {
  const intents = DISCORD_INTENTS;
  const client = new Client({
    intents,
    // retries: 0: a failed call is reported to the core, which owns retrying with backoff.
    rest: { api: config.api_url ?? DISCORD_API_URL, retries: 0 },
    // Baton reads messages from the raw dispatches: discord.js need not keep 200 per channel.
    makeCache: Options.cacheWithLimits({ ...Options.DefaultMakeCacheSettings, MessageManager: 0 }),
    ws: options.keepResumable ? { buildStrategy: resumableOnDestroy } : {},
  });
  client.on("debug", debug);
  const { onRaw } = options;
  if (onRaw) client.on(Events.Raw, (packet: { t?: string | null; s?: number | null }, shardId: number) => onRaw(packet, shardId, client.options.shardCount ?? 1));
  client.ws.on(GatewayDispatchEvents.MessageCreate, (data: GatewayMessageCreateDispatchData) => events.messageCreate(data));
  client.ws.on(GatewayDispatchEvents.InteractionCreate, (data: APIInteraction) => events.interactionCreate(data));
  client.ws.on(GatewayDispatchEvents.ThreadCreate, (data: GatewayThreadCreateDispatchData) => events.threadCreate(data));
  client.ws.on(GatewayDispatchEvents.TypingStart, (data: GatewayTypingStartDispatchData) => events.typingStart(data));

  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new PlatformError("Discord did not finish connecting within 30 s.", { reason: "network" })), CONNECT_TIMEOUT_MS);
  });
  try {
    await Promise.race([client.login(config.token).then(() => waitUntilReady(client)), timeout]);
  } catch (error) {
    await client.destroy().catch(() => undefined);
    throw loginError(error);
  } finally {
    clearTimeout(timer);
  }
  const user = client.user!;
  return {
    client,
    rest: client.rest,
    botUserId: user.id,
    botName: user.username,
    guildCount: client.guilds.cache.size,
    close: () => client.destroy(),
  };
}

/** discord.js's sharding, but destroy() (the client's, at stop) closes with a resumable code. */
function resumableOnDestroy(manager: ConstructorParameters<typeof SimpleShardingStrategy>[0]): SimpleShardingStrategy {
  const strategy = new SimpleShardingStrategy(manager);
  const destroy = strategy.destroy.bind(strategy);
  strategy.destroy = (options) => destroy({ ...options, code: RESUMABLE_CLOSE });
  return strategy;
}

/** login() resolves once the gateway is connected; the client is ready when every guild has arrived. */
async function waitUntilReady(client: Client): Promise<void> {
  if (client.isReady()) return;
  await new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
}

function loginError(error: unknown): PlatformError {
  if (error instanceof PlatformError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown }).code;
  const status = (error as { status?: unknown }).status;
  if (/disallowed intents/i.test(message)) {
    return new PlatformError(`Discord refused the connection: the Message Content Intent is off for this bot — ${MESSAGE_CONTENT_FIX}.`, { reason: "refused", detail: message });
  }
  if (code === "TokenInvalid" || status === 401 || /authentication failed/i.test(message)) {
    return new PlatformError("Discord refused the bot token — copy it again (Developer Portal → Bot → Reset Token) into platforms.discord.token.", { reason: "refused", detail: message });
  }
  return new PlatformError(`Discord could not be reached (${message}).`, { reason: "network", detail: message });
}
