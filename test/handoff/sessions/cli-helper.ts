// Runs `baton handoff …` in-process through commander, with output captured and the home
// directory pointed at a fixture (never the real one).

import { Command, CommanderError } from "commander";
import { registerHandoffCommand } from "../../../src/handoff/sessions/cli.js";

/** Variables that would point readers at real stores; cleared for every run. */
export const STORE_ENV = [
  "CLAUDE_CONFIG_DIR",
  "CODEX_HOME",
  "PI_SESSION_DIR",
  "PI_CODING_AGENT_SESSION_DIR",
  "DSH_SESSION_ROOT",
  "XDG_DATA_HOME",
  "XDG_CONFIG_HOME",
  "OPENCODE_DB",
  "CLINE_DIR",
  "PI_CODING_AGENT_DIR",
  "PRIME_AGENT_CODING_AGENT_DIR",
  "COPILOT_HOME",
  "HERMES_HOME",
  "DSH_HOME",
  "OPENCLAW_STATE_DIR",
  "CURSOR_CONFIG_DIR",
  "GEMINI_CLI_HOME",
  "QWEN_HOME",
  "BATON_DATA_DIR",
];

export interface CliResult {
  out: string;
  err: string;
  code: number;
}

export async function runHandoff(home: string, args: string[]): Promise<CliResult> {
  for (const name of STORE_ENV) delete process.env[name];
  process.env.HOME = home;
  let out = "";
  let err = "";
  const program = new Command("baton");
  program.exitOverride();
  program.configureOutput({ writeOut: (s) => (out += s), writeErr: (s) => (err += s) });
  registerHandoffCommand(program);
  try {
    await program.parseAsync(["node", "baton", "handoff", ...args]);
    return { out, err, code: 0 };
  } catch (e) {
    if (e instanceof CommanderError) return { out, err, code: e.exitCode };
    throw e;
  }
}
