// Baton's commands as Telegram's command menu (setMyCommands). Telegram accepts 1–32 characters of
// lowercase letters, digits and underscores per name, 1–256 per description, 100 commands at most.
import type { BotCommand } from "grammy/types";

const COMMAND_NAME_PATTERN = /^[a-z0-9_]{1,32}$/;
const MAX_DESCRIPTION_CHARS = 256;
const MAX_COMMANDS = 100;

export function buildCommandMenu(commands: Array<{ name: string; description: string }>): BotCommand[] {
  const menu: BotCommand[] = [];
  const seen = new Set<string>();
  for (const command of commands) {
    const name = command.name.replace(/^\//, "").toLowerCase();
    if (!COMMAND_NAME_PATTERN.test(name) || seen.has(name)) continue;
    seen.add(name);
    const description = command.description.trim().slice(0, MAX_DESCRIPTION_CHARS) || name;
    menu.push({ command: name, description });
  }
  return menu.slice(0, MAX_COMMANDS);
}
