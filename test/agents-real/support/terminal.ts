// Terminal runs of the real CLIs and of Baton's own CLI, as a person would type them: one-shot
// runs with output captured, and interactive ones inside this sandbox's own tmux server.
import { spawn, spawnSync } from "node:child_process";
import { join } from "node:path";
import type { Sandbox } from "./sandbox.js";

const BATON_BIN = join(process.cwd(), "bin", "baton.js");
/** A one-shot CLI run: start-up plus a few model round trips. */
export const TERMINAL_RUN_MS = 120_000;
/** How long typed text may take to show in an interactive UI before it is typed again, and how often. */
const TYPED_TEXT_SHOWS_MS = 5_000;
const TYPING_ATTEMPTS = 3;

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to completion (killed, with its process group, after `timeoutMs`). */
export function run(box: Sandbox, command: string, args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; input?: string }): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: opts.cwd, env: box.env(opts.env), stdio: ["pipe", "pipe", "pipe"], detached: true });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.stdin.end(opts.input ?? "");
    const timer = setTimeout(() => {
      killGroup(child.pid);
      reject(new Error(`${command} ${args.join(" ")} did not finish in ${opts.timeoutMs ?? TERMINAL_RUN_MS} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, opts.timeoutMs ?? TERMINAL_RUN_MS);
    child.once("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      killGroup(child.pid); // anything it left behind (MCP servers, helpers)
      resolve({ code, stdout, stderr });
    });
  });
}

function killGroup(pid: number | undefined): void {
  if (!pid) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // already gone
  }
}

/** `baton <args>` with this checkout's build, against a daemon's data dir. */
export function baton(box: Sandbox, args: string[], opts: { cwd: string; dataDir: string; timeoutMs?: number }): Promise<RunResult> {
  return run(box, process.execPath, [BATON_BIN, ...args], { cwd: opts.cwd, env: { BATON_DATA_DIR: opts.dataDir }, timeoutMs: opts.timeoutMs });
}

/** The sandbox's tmux server (its own socket directory), for interactive CLIs. */
export class Tmux {
  constructor(private readonly box: Sandbox) {}

  private tmux(args: string[]): string {
    const r = spawnSync("tmux", args, { env: this.box.env(), encoding: "utf8" });
    if (r.status !== 0) throw new Error(`tmux ${args.join(" ")}: ${r.stderr}`);
    return r.stdout;
  }

  sessions(): string[] {
    const r = spawnSync("tmux", ["list-sessions", "-F", "#{session_name}"], { env: this.box.env(), encoding: "utf8" });
    return r.status === 0 ? r.stdout.split("\n").filter(Boolean) : [];
  }

  /** The visible screen; `joinWrapped` joins lines the terminal wrapped (text typed into a narrow box). */
  screen(session: string, joinWrapped = false): string {
    return this.tmux(["capture-pane", "-p", ...(joinWrapped ? ["-J"] : []), "-t", `=${session}:`]);
  }

  /**
   * Types text, then presses Enter after a pause: UIs that detect pastes (Codex) take an Enter that
   * follows fast typing as a new line. A UI can drop keys that come while it is still drawing its
   * first screens (Gemini CLI resuming a session showed an empty input box once): the text is typed
   * again until it shows. Enter is pressed again until `submitted` holds.
   */
  async type(session: string, text: string, submitted: () => boolean): Promise<void> {
    for (let typing = 1; ; typing++) {
      this.tmux(["send-keys", "-t", `=${session}:`, "-l", text]);
      if (await this.shows(session, text, TYPED_TEXT_SHOWS_MS)) break;
      if (typing === TYPING_ATTEMPTS) throw new Error(`tmux ${session}: "${text}" typed ${typing} times, never on screen:\n${this.screen(session)}`);
      console.warn(`tmux ${session}: "${text}" not on screen after ${TYPED_TEXT_SHOWS_MS} ms: typing it again`);
    }
    for (let attempt = 0; attempt < 5 && !submitted(); attempt++) {
      await new Promise((r) => setTimeout(r, 1500));
      if (!submitted()) this.tmux(["send-keys", "-t", `=${session}:`, "Enter"]);
    }
  }

  async waitForScreen(session: string, match: RegExp, timeoutMs = TERMINAL_RUN_MS): Promise<string> {
    const { found, screen } = await this.poll(session, (shown) => match.test(shown), timeoutMs);
    if (!found) throw new Error(`tmux ${session}: no ${match} on screen:\n${screen}`);
    return screen;
  }

  /** Whether `text` shows on the screen (wrapped lines joined) within `timeoutMs`. */
  private async shows(session: string, text: string, timeoutMs: number): Promise<boolean> {
    return (await this.poll(session, (shown) => shown.includes(text), timeoutMs, true)).found;
  }

  /** Reads the screen every 250 ms until `wanted` holds or `timeoutMs` passed; a session gone reads empty. */
  private async poll(session: string, wanted: (screen: string) => boolean, timeoutMs: number, joinWrapped = false): Promise<{ found: boolean; screen: string }> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const screen = this.sessions().includes(session) ? this.screen(session, joinWrapped) : "";
      if (wanted(screen)) return { found: true, screen };
      if (Date.now() > deadline) return { found: false, screen };
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  /** Ends the sandbox's tmux server and every program running in it. */
  killServer(): void {
    spawnSync("tmux", ["kill-server"], { env: this.box.env(), stdio: "ignore" });
  }
}
