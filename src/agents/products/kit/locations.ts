// What store locations share.
import type { ReaderContext } from "../../stores/types.js";

/**
 * A path the runtime's own variable `name` moves (its database, its sessions), followed only while
 * the store's location is the default one: a location the user gave wins over the environment.
 */
export function envPathUnlessGiven(ctx: ReaderContext, location: (env: NodeJS.ProcessEnv, home: string) => string, name: string, fallback: string): string {
  const given = ctx.dir !== location(ctx.env, ctx.home);
  return !given && ctx.env[name] ? ctx.env[name] : fallback;
}
