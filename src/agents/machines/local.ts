// This machine: agents are child processes in the workspace directory, the session stores are
// read straight from disk.
import { execFile } from "node:child_process";
import { existsSync, realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { AgentError } from "../../kernel/errors.js";
import { expandHome } from "../../kernel/paths.js";
import type { StoredSession } from "../stores/index.js";
import { loadStores } from "../load-stores.js";
import { LOCAL_MACHINE } from "./refs.js";
import type { AgentLaunchRequest, BriefRenderer, ExecResult, Machine, MachineLaunch, PlacedBrief } from "./types.js";

import { copyWorkspaceFile } from "./workspace-files.js";

const DEFAULT_EXEC_TIMEOUT_MS = 60_000;
const MAX_EXEC_OUTPUT_BYTES = 16 * 1024 * 1024;

export class LocalMachine implements Machine {
  readonly name = LOCAL_MACHINE;
  readonly label = "this machine";
  private rootDirs: string[] = [];

  constructor(
    roots: string[],
    private readonly dataDirPath: string,
    /** The environment agents inherit (the daemon's own). */
    private readonly env: NodeJS.ProcessEnv,
  ) {
    this.setRoots(roots);
  }

  /** `workspaces.roots` (empty: the home directory); a config reload sets them again. */
  setRoots(roots: string[]): void {
    this.rootDirs = (roots.length > 0 ? roots : [homedir()]).map((r) => canonical(resolve(expandHome(r))));
  }

  async directory(path: string): Promise<string | undefined> {
    const dir = canonical(resolve(expandHome(path)));
    try {
      return statSync(dir).isDirectory() ? dir : undefined;
    } catch {
      return undefined;
    }
  }

  async roots(): Promise<string[]> {
    return this.rootDirs;
  }

  get configuredRoots(): readonly string[] {
    return this.rootDirs;
  }

  async launch(request: AgentLaunchRequest): Promise<MachineLaunch> {
    if (!existsSync(request.cwd)) {
      throw new AgentError(`The workspace \`${request.cwd}\` no longer exists, so the session is not resumed anywhere else. Start over with /new or /workspace --switch.`, { fatal: true });
    }
    const env: NodeJS.ProcessEnv = { ...this.env };
    for (const name of request.unsetEnv) delete env[name];
    Object.assign(env, request.env, { BATON_DATA_DIR: this.dataDirPath });
    return { command: request.command, args: [...request.args, ...request.extraArgs], env, cwd: request.cwd };
  }

  async dataDir(): Promise<string> {
    return this.dataDirPath;
  }

  async listSessions(runtime: string, dir?: string): Promise<StoredSession[]> {
    const { listSessions } = await loadStores();
    return (await listSessions({ runtime, dir, dataDir: this.dataDirPath, env: this.env })).sessions;
  }

  writeBrief(runtime: string, _sessionId: string, render: BriefRenderer): Promise<PlacedBrief> {
    return render({ runtime, dataDir: this.dataDirPath, env: this.env }, join(this.dataDirPath, "handoffs"));
  }

  async placeBrief(localPath: string): Promise<string> {
    return localPath;
  }

  exec(argv: readonly string[], cwd: string, options: { timeoutMs?: number } = {}): Promise<ExecResult> {
    return new Promise((resolve) => {
      execFile(argv[0], argv.slice(1), { cwd, env: this.env, timeout: options.timeoutMs ?? DEFAULT_EXEC_TIMEOUT_MS, maxBuffer: MAX_EXEC_OUTPUT_BYTES, encoding: "utf8" }, (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : null) : 0;
        resolve({ code, stdout, stderr: stderr || (error && code === null ? error.message : "") });
      });
    });
  }

  copyOut(workspace: string, path: string, maxBytes: number, dest: string): Promise<{ size: number; path: string }> {
    return copyWorkspaceFile(workspace, path, maxBytes, dest);
  }

  async close(): Promise<void> {}
}

/** The real path when it exists (so /tmp and /private/tmp compare equal), else as given. */
export function canonical(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
