// What every product's `baton setup` shares: how an agent should start `baton mcp`, the
// `handover` command's instructions, and the steps (write a file, edit a settings file with a real
// parser keeping the user's comments and other entries, run the agent's own CLI) that `--print`
// shows and a run applies.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { which } from "../../../kernel/process.js";
import { CommandError } from "../../../kernel/errors.js";
import { BATON_BIN } from "../../../kernel/install.js";
import { displayCommand } from "../../runtimes/index.js";
import { setJsoncValue, setTomlTable } from "./config-files.js";

export interface SetupContext {
  home: string;
  env: NodeJS.ProcessEnv;
  /** Set when the user chose a data dir other than the default: `baton mcp` must use it too. */
  dataDir?: string;
}

export interface SetupStep {
  /** One line: what changes. */
  summary: string;
  /** The full content written or the command run, for --print. */
  detail: string;
  apply(): void;
}

/** The npm package Baton is published as (the command stays `baton`). */
const PACKAGE_NAME = "baton-agents";

export interface Launcher {
  command: string;
  args: string[];
  /** Why this registration may break later (it points into a clone, or PATH has another `baton`). */
  warning?: string;
}

function realpath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/**
 * How an agent should start `baton mcp`, stable across shells: the `baton` on PATH when it is this
 * install (its absolute path, so another Node on PATH later does not matter), else this install's
 * own bin/baton.js (run by its shebang, not by the Node that runs setup now). Never `node <script>`
 * with a versioned Node path, which breaks when nvm switches.
 */
export function batonLauncher(env: NodeJS.ProcessEnv, bin = BATON_BIN): Launcher {
  const root = dirname(dirname(bin));
  const onPath = which("baton", env);
  const isThis = !!onPath && realpath(onPath) === realpath(bin);
  if (isThis) return { command: onPath, args: [] };
  const clone = existsSync(join(root, ".git")) || existsSync(join(root, "src"));
  const warnings = [
    onPath ? `The \`baton\` on PATH (${onPath}) is not this Baton (${root}); the registration names this one.` : "",
    clone
      ? `This points into the clone at ${root}: moving or deleting the clone breaks it. For a stable launcher, \`npm install -g ${PACKAGE_NAME}\` (or \`npm install -g .\` in the clone) and run this again.`
      : "",
  ].filter(Boolean);
  return { command: bin, args: [], warning: warnings.join(" ") || undefined };
}

/** The command line of `baton mcp` for this setup (with the data dir when it is not the default). */
export function mcpCommand(ctx: SetupContext): { command: string; args: string[]; warning?: string } {
  const launcher = batonLauncher(ctx.env);
  const dataDirArgs = ctx.dataDir ? ["--data-dir", ctx.dataDir] : [];
  return { command: launcher.command, args: [...launcher.args, ...dataDirArgs, "mcp"], warning: launcher.warning };
}

/** What the installed `handover` command says it does. */
export const HANDOVER_DESCRIPTION = "Hand this session over to chat (Baton) with a /pickup code";

/** A Markdown command file with front matter (Claude Code's commands, Codex's prompts). */
export function markdownCommand(agent: string): string {
  return `---\ndescription: ${HANDOVER_DESCRIPTION}\n---\n${handoverInstructions(agent)}\n`;
}

export function handoverInstructions(agent: string): string {
  return [
    `Hand this ${agent} session over to a chat connected to Baton, so the user can continue it from their phone or team chat.`,
    "",
    "1. Call the `prepare_handover` tool of the `baton` MCP server with:",
    "   - `cwd`: the absolute path of the current working directory",
    `   - \`agent_kind\`: \`${agent}\``,
    "   - `session_id`: this session's id only if you know it for certain; otherwise leave it out and Baton finds the newest session here.",
    "2. Show the user the line it returns (`/pickup XXXX`) exactly as given, and say it must be typed in the chat within 2 minutes; it works once.",
    "3. If the tool says the directory is not allowed, ask the user whether to allow it; only if they agree, call `register_workspace` with the same cwd and then `prepare_handover` again.",
    "4. If it says Baton is not running, tell the user to run `baton start` and try again.",
    "",
    "Do not continue working after the handover unless the user asks: writing in both places at once forks the conversation.",
  ].join("\n");
}

export function writeFileStep(path: string, content: string): SetupStep {
  return {
    summary: `write ${path}${existsSync(path) ? " (replacing it)" : ""}`,
    detail: content,
    apply: () => {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, content);
    },
  };
}

/** Sets `[table.name]` or `key.name` in a settings file through `edit`, which keeps everything else. */
function editFileStep(path: string, summary: string, detail: string, edit: (text: string) => string): SetupStep {
  return {
    summary: `${summary} in ${path}`,
    detail,
    apply: () => {
      const next = edit(existsSync(path) ? readFileSync(path, "utf8") : "");
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, next);
    },
  };
}

export function jsoncStep(path: string, key: string, name: string, value: unknown): SetupStep {
  return editFileStep(path, `set ${key}.${name}`, JSON.stringify({ [key]: { [name]: value } }, null, 2), (text) => setJsoncValue(text, path, [key, name], value));
}

/** Sets the table `[table.name]` in a TOML settings file; every other line stays as written. */
export function tomlTableStep(path: string, table: string, name: string, value: { command: string; args: string[] }): SetupStep {
  const detail = `[${table}.${name}]\ncommand = ${JSON.stringify(value.command)}\nargs = ${JSON.stringify(value.args)}`;
  return editFileStep(path, `set [${table}.${name}]`, detail, (text) => setTomlTable(text, path, table, name, value));
}

export function runStep(argv: string[], env: NodeJS.ProcessEnv, before?: string[]): SetupStep {
  return {
    summary: `run ${displayCommand({ executable: argv[0], args: argv.slice(1), env: {} })}`,
    detail: [before, argv]
      .filter((a): a is string[] => !!a)
      .map((a) => displayCommand({ executable: a[0], args: a.slice(1), env: {} }))
      .join("\n"),
    apply: () => {
      if (!which(argv[0], env)) throw new CommandError(`\`${argv[0]}\` is not on PATH; install it first, then run \`baton setup\` again.`);
      // Re-running setup replaces the registration instead of failing on "already exists".
      if (before) {
        try {
          execFileSync(before[0], before.slice(1), { env, stdio: "ignore" });
        } catch {
          // nothing to remove
        }
      }
      execFileSync(argv[0], argv.slice(1), { env, stdio: "inherit" });
    },
  };
}
