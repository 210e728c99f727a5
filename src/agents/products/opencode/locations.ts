// Where OpenCode keeps its sessions, shared by the descriptor (which paths exist) and the reader,
// apart from both so neither loads the other.
import path from "node:path";
import type { ReaderContext } from "../../stores/types.js";
import { envPathUnlessGiven } from "../kit/locations.js";

export const location = (env: NodeJS.ProcessEnv, home: string) => path.join(env.XDG_DATA_HOME || path.join(home, ".local", "share"), "opencode");

/** OpenCode's SQLite file: $OPENCODE_DB, unless the location was given. */
export function opencodeDbPath(ctx: ReaderContext): string {
  return envPathUnlessGiven(ctx, location, "OPENCODE_DB", path.join(ctx.dir, "opencode.db"));
}
