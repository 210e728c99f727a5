// The key-value backend behind pickup codes and rate limits: memory by default (a restart clears
// every code), or Redis when `store.kv` is a redis:// URL (several daemons share codes and limits;
// codes then outlive a restart until their TTL).
import { redactSecrets, urlForDisplay } from "../kernel/secrets.js";
import { Keyv } from "keyv";
import type { RateLimiterAbstract } from "rate-limiter-flexible";
import RateLimiterMemory from "rate-limiter-flexible/lib/RateLimiterMemory.js";
import { ConfigError } from "../kernel/errors.js";

const NAMESPACE = "baton:pickup";

interface LimiterSpec {
  keyPrefix: string;
  points: number;
  durationSec: number;
}

export interface HandoverKv {
  codes: Keyv;
  limiter(spec: LimiterSpec): RateLimiterAbstract;
  close(): Promise<void>;
}

/** `onError` hears connection trouble after start (the client reconnects by itself meanwhile). */
export async function openHandoverKv(url: string, onError: (error: unknown) => void = () => undefined): Promise<HandoverKv> {
  if (url === "memory") {
    return {
      codes: new Keyv({ namespace: NAMESPACE }),
      limiter: ({ keyPrefix, points, durationSec }) => new RateLimiterMemory({ keyPrefix, points, duration: durationSec }),
      close: async () => {},
    };
  }
  const shown = urlForDisplay(url); // never echo a password
  if (!/^rediss?:\/\//.test(url)) throw new ConfigError(`store.kv: expected "memory" or a redis:// URL, got "${shown}"`);
  // Loaded on demand: a memory-only install never pays for the Redis client.
  const [{ default: KeyvRedis, createClient }, { default: RateLimiterRedis }] = await Promise.all([import("@keyv/redis"), import("rate-limiter-flexible/lib/RateLimiterRedis.js")]);
  const client = createClient({ url });
  try {
    await client.connect();
  } catch (error) {
    throw new ConfigError(`store.kv: cannot connect to Redis at ${shown}: ${redactSecrets((error as Error).message)}`, { cause: error });
  }
  // An EventEmitter "error" without a listener would end the daemon; a Redis hiccup must not.
  client.on("error", onError);
  const codes = new Keyv({ store: new KeyvRedis(client), namespace: NAMESPACE });
  codes.on("error", onError);
  return {
    codes,
    limiter: ({ keyPrefix, points, durationSec }) => new RateLimiterRedis({ storeClient: client, useRedisPackage: true, keyPrefix: `${NAMESPACE}:${keyPrefix}`, points, duration: durationSec }),
    close: async () => {
      await client.quit();
    },
  };
}
