// Where DeepSeek Harness keeps its sessions, shared by the descriptor (which paths exist) and the reader,
// apart from both so neither loads the other.
import path from "node:path";
import type { ReaderContext } from "../../stores/types.js";
import { envPathUnlessGiven } from "../kit/locations.js";

// The location is DSH_HOME, as `--dsh-home` takes it; DSH_SESSION_ROOT moves only the sessions.
export const location = (env: NodeJS.ProcessEnv, home: string) => env.DSH_HOME || path.join(home, ".dsh");

/** Where DeepSeek Harness sessions are: DSH_SESSION_ROOT, unless the location was given. */
export function dshSessionRoot(ctx: ReaderContext): string {
  return envPathUnlessGiven(ctx, location, "DSH_SESSION_ROOT", path.join(ctx.dir, "sessions"));
}
