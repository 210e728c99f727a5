// Counting at the seam between the core and the platforms, so neither needs to know about metrics:
// the core gets adapters whose send/edit are counted (and whose failures are counted by reason and
// mark the platform unreachable), and each adapter gets a core whose handleMessage is counted.
import { PlatformError } from "../kernel/errors.js";
import type { Metrics } from "../kernel/metrics.js";
import type { PlatformAdapter, PlatformCore } from "../platforms/contract.js";
import type { PlatformHealth } from "./snapshot.js";

/** A view of `target` with some members replaced; every other member is the target's own (methods bound to it). */
function intercept<T extends object>(target: T, overrides: Partial<T>): T {
  const bound = new Map<PropertyKey, unknown>();
  return new Proxy(target, {
    get(t, key) {
      if (key in overrides) return overrides[key as keyof T];
      const value = Reflect.get(t, key, t) as unknown;
      if (typeof value !== "function") return value;
      if (!bound.has(key)) bound.set(key, (value as (...args: unknown[]) => unknown).bind(t));
      return bound.get(key);
    },
  });
}

function errorReason(error: unknown): string {
  if (error instanceof PlatformError) return error.reason;
  return "other";
}

/** What a failed call to a running platform leaves in its health. */
const UNREACHABLE_DETAIL = "cannot reach the platform";

/**
 * The adapter as the core should see it: counted, with its reachability tracked in `health` once it
 * has started (`started()`): until then the start owns the state (a send can get through before
 * the long poll or socket the platform needs is open).
 */
export function meteredAdapter(adapter: PlatformAdapter, metrics: Metrics, health: PlatformHealth, started: () => boolean = () => true): PlatformAdapter {
  const counted =
    <A extends unknown[], R>(op: "send" | "edit", call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        const result = await call(...args);
        metrics.messageOut(adapter.name, op);
        if (started() && health.state === "degraded") Object.assign(health, { state: "connected", connected: true, detail: undefined });
        return result;
      } catch (error) {
        const reason = errorReason(error);
        metrics.platformError(adapter.name, reason);
        if (reason === "network" && started() && health.state === "connected") Object.assign(health, { state: "degraded", connected: false, detail: UNREACHABLE_DETAIL });
        throw error;
      }
    };
  return intercept(adapter, {
    send: counted("send", adapter.send.bind(adapter)),
    edit: counted("edit", adapter.edit.bind(adapter)),
  });
}

/** The core as an adapter should see it: every inbound message counted for that platform instance. */
export function meteredCore(core: PlatformCore, platform: string, metrics: Metrics): PlatformCore {
  return intercept(core, {
    handleMessage: (message) => {
      metrics.messageIn(platform);
      return core.handleMessage(message);
    },
  });
}
