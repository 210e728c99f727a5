// `baton setup <agent>`: registers `baton mcp` with the agent at user scope and installs a
// `handover` command that tells the agent to call prepare_handover and show the line. `--print`
// shows every change without making it. No project file is touched; the agent's settings files
// are edited with real parsers, keeping the user's comments and other entries.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { which } from "../../kernel/process.js";
import { CommandError } from "../../kernel/errors.js";
import { displayCommand } from "../../agents/runtimes/index.js";
import { BATON_BIN } from "../../kernel/install.js";
import { setJsoncValue, setTomlTable } from "./files.js";

export const SETUP_AGENTS = ["claude", "codex", "gemini"] as const;

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
export const PACKAGE_NAME = "baton-agents";

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
    clone ? `This points into the clone at ${root}: moving or deleting the clone breaks it. For a stable launcher, \`npm install -g ${PACKAGE_NAME}\` (or \`npm install -g .\` in the clone) and run this again.` : "",
  ].filter(Boolean);
  return { command: bin, args: [], warning: warnings.join(" ") || undefined };
}

/** The command line of `baton mcp` for this setup (with the data dir when it is not the default). */
export function mcpCommand(ctx: SetupContext): { command: string; args: string[]; warning?: string } {
  const launcher = batonLauncher(ctx.env);
  const dataDirArgs = ctx.dataDir ? ["--data-dir", ctx.dataDir] : [];
  return { command: launcher.command, args: [...launcher.args, ...dataDirArgs, "mcp"], warning: launcher.warning };
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

function writeFileStep(path: string, content: string): SetupStep {
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

function jsoncStep(path: string, key: string, name: string, value: unknown): SetupStep {
  return editFileStep(path, `set ${key}.${name}`, JSON.stringify({ [key]: { [name]: value } }, null, 2), (text) => setJsoncValue(text, path, [key, name], value));
}

function codexTomlStep(path: string, mcp: { command: string; args: string[] }): SetupStep {
  const value = { command: mcp.command, args: mcp.args };
  return editFileStep(path, "set [mcp_servers.baton]", `[mcp_servers.baton]\ncommand = ${JSON.stringify(mcp.command)}\nargs = ${JSON.stringify(mcp.args)}`, (text) =>
    setTomlTable(text, path, "mcp_servers", "baton", value),
  );
}

function runStep(argv: string[], env: NodeJS.ProcessEnv, before?: string[]): SetupStep {
  return {
    summary: `run ${displayCommand({ executable: argv[0], args: argv.slice(1), env: {} })}`,
    detail: [before, argv].filter((a): a is string[] => !!a).map((a) => displayCommand({ executable: a[0], args: a.slice(1), env: {} })).join("\n"),
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

export function planSetup(agent: string, ctx: SetupContext): SetupStep[] {
  const mcp = mcpCommand(ctx);
  const text = handoverInstructions(agent);
  switch (agent) {
    case "claude": {
      const dir = ctx.env.CLAUDE_CONFIG_DIR || join(ctx.home, ".claude");
      return [
        runStep(["claude", "mcp", "add", "-s", "user", "baton", "--", mcp.command, ...mcp.args], ctx.env, ["claude", "mcp", "remove", "-s", "user", "baton"]),
        writeFileStep(join(dir, "commands", "handover.md"), `---\ndescription: Hand this session over to chat (Baton) with a /pickup code\n---\n${text}\n`),
      ];
    }
    case "codex": {
      const dir = ctx.env.CODEX_HOME || join(ctx.home, ".codex");
      return [
        codexTomlStep(join(dir, "config.toml"), mcp),
        writeFileStep(join(dir, "prompts", "handover.md"), `---\ndescription: Hand this session over to chat (Baton) with a /pickup code\n---\n${text}\n`),
      ];
    }
    case "gemini": {
      const dir = join(ctx.env.GEMINI_CLI_HOME || ctx.home, ".gemini");
      return [
        jsoncStep(join(dir, "settings.json"), "mcpServers", "baton", { command: mcp.command, args: mcp.args }),
        writeFileStep(join(dir, "commands", "handover.toml"), `description = "Hand this session over to chat (Baton) with a /pickup code"\nprompt = """\n${text}\n"""\n`),
      ];
    }
    case "demo":
      throw new CommandError("The demo agent needs no setup: `baton launch demo` passes Baton's MCP server to it for each run.");
    default:
      throw new CommandError(`\`baton setup\` knows ${SETUP_AGENTS.join(", ")}; not "${agent}". For others, register \`baton mcp\` as a stdio MCP server in the agent's settings.`);
  }
}

export function describePlan(agent: string, steps: SetupStep[], warning?: string): string {
  const out = [`baton setup ${agent} would:`];
  steps.forEach((step, i) => {
    out.push(`${i + 1}. ${step.summary}`);
    out.push(...step.detail.split("\n").map((l) => `     ${l}`));
  });
  if (warning) out.push(`! ${warning}`);
  return out.join("\n");
}

/** `setup --print --json`: the same plan for scripts. */
export function planAsJson(agent: string, steps: SetupStep[], warning?: string): string {
  return JSON.stringify({ agent, steps: steps.map((s) => ({ summary: s.summary, detail: s.detail })), warnings: warning ? [warning] : [] }, null, 2);
}
