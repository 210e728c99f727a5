// Classifies a chat message: a Baton command, or a prompt for the agent. `//text` sends `/text`
// to the agent; `/agent <cmd> [args]` sends `/<cmd> [args]` (the agent's own slash commands).

export type Parsed = { kind: "command"; name: string; args: string[]; rest: string /** `bot` of `/cmd@bot` */; target?: string } | { kind: "prompt"; text: string };

const COMMAND = /^\/([A-Za-z][\w-]*)(?:@([\w.-]+))?(?:\s+([\s\S]*))?$/;

export function parseMessage(text: string): Parsed {
  const trimmed = text.trim();
  if (trimmed.startsWith("//")) return { kind: "prompt", text: trimmed.slice(1) };
  const m = COMMAND.exec(trimmed);
  if (!m) return { kind: "prompt", text };
  const name = m[1].toLowerCase();
  const rest = (m[3] ?? "").trim();
  if (name === "agent") {
    if (!rest) return { kind: "command", name, args: [], rest };
    return { kind: "prompt", text: `/${rest}` };
  }
  return { kind: "command", name, args: splitArgs(rest), rest, target: m[2] };
}

/** Splits on whitespace, keeping "quoted strings" together. */
export function splitArgs(text: string): string[] {
  const out: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(text); m; m = re.exec(text)) out.push(m[1] ?? m[2] ?? m[3]);
  return out;
}

/** Pulls `--flag` and `--key value` options out of args. */
export function takeFlag(args: string[], flag: string): boolean {
  const i = args.indexOf(flag);
  if (i === -1) return false;
  args.splice(i, 1);
  return true;
}

export function takeOption(args: string[], flag: string): string | undefined {
  const i = args.indexOf(flag);
  if (i === -1) return undefined;
  const value = args[i + 1];
  args.splice(i, value === undefined ? 1 : 2);
  return value;
}
