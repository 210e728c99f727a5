// Baton's slash commands on Discord: `/baton <command> [args]` for every chat command, and the
// common ones first-class with their options (`/pickup code:`, `/new`, `/status`, `/stop`,
// `/switch agent:`). An invocation is turned back into the chat command's text (`/pickup K7PQ`),
// so the core parses it like any other message.
import type { APIApplicationCommandInteractionDataOption, RESTPutAPIApplicationCommandsJSONBody } from "discord.js";

/** Discord's application command option types used here. */
const STRING_OPTION = 3;
const CHAT_INPUT = 1;
/** Discord's limits: 100 characters a description, 25 choices an option. */
const MAX_DESCRIPTION_CHARS = 100;
const MAX_CHOICES = 25;

interface OptionSpec {
  name: string;
  description: string;
  required?: boolean;
}

interface FirstClassCommand {
  name: string;
  description: string;
  options: OptionSpec[];
}

const FIRST_CLASS_COMMANDS: FirstClassCommand[] = [
  { name: "status", description: "Where this conversation stands: thread, agent, session, queue", options: [] },
  {
    name: "new",
    description: "Close this thread and start a fresh one",
    options: [
      { name: "agent", description: "agent[+profile], e.g. claude or claude+fast (default: the same)" },
      { name: "workspace", description: "a workspace name or path (default: the same)" },
    ],
  },
  { name: "stop", description: "Cancel the running turn", options: [] },
  { name: "pickup", description: "Continue a terminal agent session here", options: [{ name: "code", description: "the 4-character handover code, e.g. K7PQ", required: true }] },
  { name: "switch", description: "Move this conversation to another agent or profile", options: [{ name: "agent", description: "agent[+profile], e.g. codex or claude+fast", required: true }] },
];

const BATON_COMMAND = "baton";

/** The bulk-overwrite body for `PUT /applications/{app}[/guilds/{guild}]/commands`. */
export function commandDefinitions(commandList: Array<{ name: string; description: string }>): RESTPutAPIApplicationCommandsJSONBody {
  const choices = commandList.length <= MAX_CHOICES ? commandList.map((command) => ({ name: command.name, value: command.name })) : undefined;
  const baton = {
    type: CHAT_INPUT,
    name: BATON_COMMAND,
    description: "Any Baton command: /baton help lists them",
    options: [
      { type: STRING_OPTION, name: "command", description: "the command, e.g. status, new, session, handover", required: true, ...(choices ? { choices } : {}) },
      { type: STRING_OPTION, name: "args", description: "its arguments, as you would type them after the command", required: false },
    ],
  };
  const firstClass = FIRST_CLASS_COMMANDS.map((command) => ({
    type: CHAT_INPUT,
    name: command.name,
    description: clip(command.description),
    options: command.options.map((option) => ({ type: STRING_OPTION, name: option.name, description: clip(option.description), required: option.required ?? false })),
  }));
  return [baton, ...firstClass];
}

/** The chat command an invocation stands for, or undefined when it is not one of Baton's. */
export function commandText(name: string, options: readonly APIApplicationCommandInteractionDataOption[] = []): string | undefined {
  const value = (option: string) => {
    const found = options.find((o) => o.name === option);
    return found && "value" in found && found.value !== undefined ? String(found.value).trim() : "";
  };
  const line = (...words: string[]) => words.filter((word) => word !== "").join(" ");
  if (name === BATON_COMMAND) {
    const command = value("command").replace(/^\/+/, "");
    return command ? line(`/${command}`, value("args")) : undefined;
  }
  const spec = FIRST_CLASS_COMMANDS.find((command) => command.name === name);
  if (!spec) return undefined;
  return line(`/${name}`, ...spec.options.map((option) => value(option.name)));
}

function clip(text: string): string {
  return text.length <= MAX_DESCRIPTION_CHARS ? text : `${text.slice(0, MAX_DESCRIPTION_CHARS - 1)}…`;
}
