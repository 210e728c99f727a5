// `matrix:power:50` in an access list: the people whose power level in the room the message comes
// from is 50 or more, read from the room's m.room.power_levels state (its `users` map, else
// `users_default`, else 0) on the homeserver, so a level lowered there counts once the core's
// cached answer expires.
import type { MatrixClient } from "matrix-js-sdk";
import { toPlatformError } from "./errors.js";

const PREFIX = "matrix:power:";

interface PowerLevels {
  users?: Record<string, unknown>;
  users_default?: unknown;
}

/** Whether `userId` (`@ana:example.org`) has at least the level a principal names in `roomId`; false for any other principal. */
export async function hasPowerLevel(client: MatrixClient, principal: string, roomId: string, userId: string): Promise<boolean> {
  if (!principal.startsWith(PREFIX)) return false;
  let levels: PowerLevels;
  try {
    levels = (await client.getStateEvent(roomId, "m.room.power_levels", "")) as PowerLevels;
  } catch (error) {
    throw toPlatformError(error, "read the room's power levels");
  }
  return powerOf(levels, userId) >= Number(principal.slice(PREFIX.length));
}

function powerOf(levels: PowerLevels, userId: string): number {
  const own = levels.users?.[userId];
  if (typeof own === "number") return own;
  return typeof levels.users_default === "number" ? levels.users_default : 0;
}
