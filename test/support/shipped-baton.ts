// `baton start` as a user runs it: `node bin/baton.js start` (the shipped bundle, dist/bundle/) as a
// child process with a config file and a data dir of its own, its log (pino JSON lines on stderr)
// kept for the test to read. For end-to-end tests of what ships.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "yaml";
import { stopGracefully } from "./process.js";
import { testTempDir } from "./temp.js";

const BATON_ENTRY = join(process.cwd(), "bin", "baton.js");
/** A cold start on a 2-core machine busy with other test files. */
const READY_MS = 60_000;
const EXIT_MS = 20_000;
/** pino's level numbers: error is 50, fatal 60. */
const LEVEL_ERROR = 50;

/**
 * A config for tests, as YAML: `config` over the defaults tests share with the in-process harness
 * (the demo agent without a spare process, quick rendering, no usage line, schedules as often as
 * every second, no ops listener, turns cancelled at once on stop). `agents`, `access`, `rendering`
 * and `schedule_limits` merge key by key.
 */
export function shippedConfig(config: Record<string, unknown>): string {
  const merged = (key: string, defaults: Record<string, unknown>) => ({ ...defaults, ...(config[key] as Record<string, unknown> | undefined) });
  return stringify({
    ...config,
    agents: merged("agents", { default: "demo", spare_host: false }),
    // The tests' own users are admins (as in the in-process harness), unless a test names roles itself.
    access: ((access) => ({ ...access, roles: access.roles ?? { admin: access.allow } }))(merged("access", { allow: [] }) as { allow: string[]; roles?: unknown }),
    rendering: merged("rendering", { flush_debounce_ms: 50, min_edit_gap_ms: 100, show_usage: false }),
    // Schedule tests use seconds-field patterns to stay short; the default minimum is a minute.
    schedule_limits: merged("schedule_limits", { min_interval: "1s" }),
    ops: { listen: "off" },
    shutdown_grace: 0,
  });
}

interface LogLine {
  level: number;
  msg?: string;
  [key: string]: unknown;
}

export interface ShippedBaton {
  child: ChildProcessWithoutNullStreams;
  dir: string;
  /** Everything printed on stdout so far. */
  stdout(): string;
  /** The log so far, one parsed JSON line each. */
  log(): LogLine[];
  /** stderr lines that were not JSON log lines (a crash, a warning printed by Node). */
  strayStderr(): string[];
  /** Log lines at level error or above, with the stray stderr lines, for an assertion's message. */
  problems(): string[];
  /** SIGTERM, then waits for the exit (SIGKILL past EXIT_MS); resolves with the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts `bin/baton.js start` with `configYaml` (a log in JSON at `logLevel` is added) and waits
 * for "Baton ready". `env` is added to this process's environment. The config file is `<dir>/baton.yaml`
 * and the data dir `<dir>/data`.
 */
export async function startShippedBaton(configYaml: string, options: { env?: NodeJS.ProcessEnv; logLevel?: string; prefix?: string; dir?: string } = {}): Promise<ShippedBaton> {
  // A restart passes the folder of the Baton it replaces: the same config file and data dir.
  const dir = options.dir ?? testTempDir(options.prefix ?? "baton-shipped-");
  const config = join(dir, "baton.yaml");
  writeFileSync(config, `${configYaml.trimEnd()}\nlog: { level: ${options.logLevel ?? "info"}, format: json }\n`);
  const child = spawn(process.execPath, [BATON_ENTRY, "start", "--config", config, "--data-dir", join(dir, "data")], {
    cwd: dir,
    env: { ...process.env, ...options.env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
  const lines = () => err.split("\n").filter((line) => line.trim() !== "");
  const parsed = (line: string): LogLine | undefined => {
    try {
      const value = JSON.parse(line) as LogLine;
      return typeof value?.level === "number" ? value : undefined;
    } catch {
      return undefined;
    }
  };
  const baton: ShippedBaton = {
    child,
    dir,
    stdout: () => out,
    log: () =>
      lines()
        .map(parsed)
        .filter((l): l is LogLine => l !== undefined),
    strayStderr: () => lines().filter((line) => parsed(line) === undefined),
    problems: () => [
      ...baton
        .log()
        .filter((l) => l.level >= LEVEL_ERROR)
        .map((l) => JSON.stringify(l)),
      ...baton.strayStderr(),
    ],
    async stop() {
      await stopGracefully(child, EXIT_MS);
      return child.exitCode;
    },
  };
  const deadline = Date.now() + READY_MS;
  while (!out.includes("Baton ready")) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await baton.stop();
      throw new Error(`baton start did not get ready:\n${out}\n${err}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return baton;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
