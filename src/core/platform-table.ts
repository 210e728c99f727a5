// The platform instances Baton serves, each with its outbox: where a route's messages go, and the
// routes of a thread a turn or a notice reaches.
import type { CommonPlatformSettings, PlatformAdapter, PlatformLogger } from "../platforms/contract.js";
import { commonSettings } from "../platforms/kit/config.js";
import type { ThreadRecord } from "../threads/registry.js";
import type { Platform } from "./conversation/inbound.js";
import { Outbox } from "./delivery/outbox.js";
import type { RouteTarget } from "./stream.js";

export class PlatformTable {
  private readonly platforms = new Map<string, Platform>();

  constructor(
    private readonly log: PlatformLogger,
    /** rendering.min_edit_gap_ms, read when a platform is added. */
    private readonly minEditGapMs: () => number,
  ) {}

  /** Registers a platform instance; its common settings (listen_all_in, file limit) are applied here. */
  add(adapter: PlatformAdapter, settings: Partial<CommonPlatformSettings> = {}): void {
    if (this.platforms.has(adapter.name)) throw new Error(`two platforms named ${adapter.name}`);
    const common = { ...commonSettings({}), ...settings };
    const outbox = new Outbox(adapter, this.log, this.minEditGapMs());
    this.platforms.set(adapter.name, { adapter, outbox, settings: common, listenAllIn: new Set(common.listenAllIn) });
  }

  /** The platform of a route (`slack_acme:C1:t` → the instance `slack_acme`). */
  of(route: string): Platform | undefined {
    return this.platforms.get(route.slice(0, route.indexOf(":")));
  }

  all(): Iterable<Platform> {
    return this.platforms.values();
  }

  /** The routes of a thread on platforms Baton serves, with their outboxes. */
  targets(thread: ThreadRecord): RouteTarget[] {
    const out: RouteTarget[] = [];
    for (const route of thread.routes) {
      const platform = this.of(route);
      if (platform) out.push({ route, outbox: platform.outbox });
    }
    return out;
  }

  /** Tells each route's platform that what the route is attached to changed (routeInfo reads anew). */
  routesChanged(routes: Iterable<string>): void {
    for (const route of routes) {
      try {
        this.of(route)?.adapter.routeChanged?.(route);
      } catch (error) {
        this.log.warn({ route, err: error }, "a platform failed to take a route's change");
      }
    }
  }

  /** A notice on every route of the thread; resolves per route once delivered (or given up). */
  notify(thread: ThreadRecord, text: string): Array<Promise<void>> {
    return this.targets(thread).map(({ outbox, route }) => outbox.post(route, { text, kind: "notice" }).settled());
  }
}
