// Launch modes: `current` runs the runtime here; `auto`, `new-terminal` and `tmux` open another
// terminal surface that runs the hidden trampoline against a private spec file.

import { spawn, spawnSync } from "node:child_process";
import { createInterface } from "node:readline/promises";
import { BatonError } from "../../kernel/errors.js";
import { which } from "../../kernel/process.js";
import type { LaunchCommand } from "../../agents/runtimes/index.js";
import { awaitConfirmation, specFromCommand, writeSpec } from "./spec.js";

export type LaunchMode = "current" | "auto" | "new-terminal" | "tmux";

class LaunchError extends BatonError {}

export interface LaunchResult {
  message: string;
  /** For `current`: the runtime's own exit code. */
  exitCode?: number;
}

export async function confirm(question: string): Promise<boolean> {
  if (!process.stdin.isTTY) return false;
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    const answer = (await rl.question(question)).trim().toLowerCase();
    return answer === "" || answer === "y" || answer === "yes";
  } finally {
    rl.close();
  }
}

/** The argv that runs the trampoline: this same Baton entry script, under this same Node. */
function trampolineArgv(specPath: string): string[] {
  const entry = process.env.BATON_CLI_ENTRY || process.argv[1];
  return [process.execPath, entry, "handoff", "__trampoline", specPath];
}

function tmuxSessionName(plan: { session: { id: string } }): string {
  return `baton-handoff-${plan.session.id.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 40)}`;
}

/** A graphical terminal command line that runs argv, or undefined when none is available. */
export function terminalArgv(argv: string[], env: NodeJS.ProcessEnv = process.env): string[] | undefined {
  if (process.platform === "darwin") {
    // Terminal.app via osascript; argv is quoted for the shell Terminal runs, never built from prompt text.
    const q = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
    const script = `tell application "Terminal" to do script ${JSON.stringify(argv.map(q).join(" "))}`;
    return ["osascript", "-e", script, "-e", 'tell application "Terminal" to activate'];
  }
  if (process.platform === "win32") {
    if (which("wt.exe", { PATH: env.PATH ?? process.env.PATH })) return ["wt.exe", "new-tab", "--", ...argv];
    return [
      "powershell.exe",
      "-NoProfile",
      "-Command",
      "Start-Process",
      "-FilePath",
      argv[0],
      "-ArgumentList",
      argv
        .slice(1)
        .map((a) => `'${a.replace(/'/g, "''")}'`)
        .join(","),
    ];
  }
  if (!env.DISPLAY && !env.WAYLAND_DISPLAY) return undefined;
  const candidates: Array<[string, string[]]> = [
    ["xdg-terminal-exec", []],
    ["gnome-terminal", ["--"]],
    ["konsole", ["-e"]],
    ["kitty", []],
    ["wezterm", ["start", "--"]],
    ["alacritty", ["-e"]],
    ["foot", []],
    ["x-terminal-emulator", ["-e"]],
    ["xterm", ["-e"]],
  ];
  if (env.TERMINAL && /^[\w.-]+$/.test(env.TERMINAL)) candidates.push([env.TERMINAL, ["-e"]]);
  for (const [exe, pre] of candidates) if (which(exe, { PATH: env.PATH ?? process.env.PATH })) return [exe, ...pre, ...argv];
  return undefined;
}

function runHere(cmd: LaunchCommand): Promise<LaunchResult> {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const [k, v] of Object.entries(cmd.env)) {
    if (v === null) delete env[k];
    else env[k] = v;
  }
  return new Promise((resolve, reject) => {
    const child = spawn(cmd.executable, cmd.args, { cwd: cmd.dir, env, stdio: "inherit" });
    child.once("error", (err) => reject(new LaunchError(`Could not start ${cmd.executable}: ${err.message}. Is it installed and on PATH?`)));
    child.once("exit", (code, signal) => resolve({ message: `${cmd.executable} exited${signal ? ` on ${signal}` : ` with code ${code}`}.`, exitCode: code ?? 1 }));
  });
}

function startTmux(name: string, dir: string, argv: string[]): string {
  if (!which("tmux")) throw new LaunchError("tmux is not installed; install it or use --launch current.");
  let session = name;
  for (let n = 2; spawnSync("tmux", ["has-session", "-t", `=${session}`], { stdio: "ignore" }).status === 0; n++) session = `${name}-${n}`;
  const r = spawnSync("tmux", ["new-session", "-d", "-s", session, "-c", dir, ...argv], { encoding: "utf8" });
  if (r.status !== 0) throw new LaunchError(`tmux could not start a session: ${(r.stderr || r.error?.message || "").trim()}`);
  return session;
}

/** Launches the plan; detached modes wait up to 15 s for the runtime to confirm it started. */
export async function launchPlan(plan: LaunchCommand & { session: { id: string } }, mode: LaunchMode, opts: { specDir: string }): Promise<LaunchResult> {
  if (mode === "current") return runHere(plan);

  const headless = process.platform === "linux" && (!!process.env.SSH_CONNECTION || (!process.env.DISPLAY && !process.env.WAYLAND_DISPLAY));
  const specPath = await writeSpec(opts.specDir, specFromCommand(plan, process.env));
  const argv = trampolineArgv(specPath);
  const term = mode === "tmux" || (mode === "auto" && headless) ? undefined : terminalArgv(argv);
  // `auto` falls back to tmux on a desktop where no supported terminal emulator is installed.
  const useTmux = mode === "tmux" || (mode === "auto" && !term);
  let where: string;
  let tmuxSession: string | undefined;
  try {
    if (useTmux) {
      tmuxSession = startTmux(tmuxSessionName(plan), plan.dir, argv);
      where = `tmux session ${tmuxSession}`;
    } else {
      if (!term) throw new LaunchError("No graphical terminal could be opened here; use --launch tmux or --launch current.");
      const child = spawn(term[0], term.slice(1), { cwd: plan.dir, detached: true, stdio: "ignore" });
      child.on("error", () => undefined); // reported below as an unconfirmed launch
      child.unref();
      where = `a new ${term[0]} window`;
    }
  } catch (err) {
    await import("node:fs").then((fs) => fs.promises.rm(specPath, { force: true }));
    throw err;
  }
  const outcome = await awaitConfirmation(specPath);
  const attach = tmuxSession ? `\nAttach with: tmux attach -t ${tmuxSession}` : "";
  switch (outcome.state) {
    case "started":
      return { message: `${plan.executable} started in ${where} (pid ${outcome.pid}).${attach}` };
    case "failed":
      throw new LaunchError(`The runtime did not start in ${where}: ${outcome.message}`);
    case "cancelled":
      throw new LaunchError(`Launch cancelled: ${plan.executable} did not confirm startup in ${where} within 15 s, so nothing will start there.`);
    case "claimed-late":
      return { message: `${where} claimed the launch just as it timed out: ${plan.executable} may still start there. Check that terminal before retrying.${attach}` };
  }
}
