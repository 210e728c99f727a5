// Every chat command, in the order /help lists them.
import type { CommandSpec } from "./context.js";
import { help } from "./handlers/help.js";
import { status } from "./handlers/status.js";
import { newThread } from "./handlers/new.js";
import { close } from "./handlers/close.js";
import { pickup } from "./handlers/pickup.js";
import { handover } from "./handlers/handover.js";
import { session } from "./handlers/session.js";
import { switchHost } from "./handlers/switch.js";
import { workspace } from "./handlers/workspace.js";
import { stop } from "./handlers/stop.js";
import { allow, deny } from "./handlers/approvals.js";
import { mode, model } from "./handlers/settings.js";
import { file } from "./handlers/file.js";
import { schedule } from "./handlers/schedule.js";
import { diff, merge, pr } from "./handlers/worktree.js";
import { usage } from "./handlers/usage.js";

export const COMMANDS: CommandSpec[] = [help, status, newThread, close, pickup, handover, session, switchHost, workspace, mode, model, file, diff, merge, pr, schedule, usage, stop, allow, deny];

export function findCommand(name: string): CommandSpec | undefined {
  return COMMANDS.find((c) => c.name === name || c.aliases?.includes(name));
}

export type { CommandSpec } from "./context.js";
