// A real PostgreSQL server for tests: Debian's `postgresql` package (initdb + postgres from its bin
// folder) in a temp dir, on a free loopback port, trust auth for one user. PostgreSQL refuses to
// run as root, so as root the server runs as the package's `postgres` user (setpriv, which execs
// the server in its own place, so the pid we hold is the server's). Each test
// gets a database of its own (`database()`), so tests share one server and never see each other.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { dirname, join } from "node:path";
import pg from "pg";
import { migrate } from "../../src/store/postgres/migrations.js";
import { startOnFreePort } from "./free-port.js";

const READY_TIMEOUT_MS = 20_000;
const PG_ROOT = "/usr/lib/postgresql";

export interface TestPostgres {
  /** postgres://… of the server's maintenance database. */
  url: string;
  port: number;
  /** A new, empty database; its URL. */
  database(): Promise<string>;
  /** A pool on `url` (a new database when absent), with Baton's schema migrated; ended by close(). */
  migratedPool(url?: string, max?: number): Promise<{ url: string; pool: pg.Pool }>;
  /** Ends every client connection to `db` (as a network cut or a server restart would). */
  terminateConnections(db: string, applicationName?: string): Promise<number>;
  close(): Promise<void>;
}

function binDir(): string | undefined {
  if (!existsSync(PG_ROOT)) return undefined;
  const versions = readdirSync(PG_ROOT)
    .filter((v) => existsSync(join(PG_ROOT, v, "bin", "postgres")))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length > 0 ? join(PG_ROOT, versions[0], "bin") : undefined;
}

/** Why the tests cannot start a server, or undefined when they can. In CI the server must be there. */
export function postgresMissing(): string | undefined {
  if (binDir()) return undefined;
  const why = `PostgreSQL is not installed (no ${PG_ROOT}/*/bin/postgres): apt-get install postgresql`;
  if (process.env.CI) throw new Error(why);
  return why;
}

const asRoot = userInfo().uid === 0;
/** The command line, run as `postgres` when we are root. */
const asServerUser = (bin: string, args: string[]): [string, string[]] => (asRoot ? ["setpriv", ["--reuid=postgres", "--regid=postgres", "--init-groups", "--reset-env", bin, ...args]] : [bin, args]);

export async function startTestPostgres(settings: Record<string, string> = {}): Promise<TestPostgres> {
  const bin = binDir();
  if (!bin) throw new Error(postgresMissing() ?? "PostgreSQL missing");
  const dir = mkdtempSync(join(tmpdir(), "baton-pg-"));
  const data = join(dir, "data");
  if (asRoot) {
    // The server user must reach its folder: traverse rights on the test run's temp dirs, the folder its own.
    // Traverse rights added where missing (the test run's own 0700 temp dir); /tmp itself keeps its mode.
    for (let d = dir; d !== dirname(d) && d.startsWith(tmpdir()); d = dirname(d)) {
      const mode = statSync(d).mode & 0o7777;
      if ((mode & 0o001) === 0) chmodSync(d, mode | 0o011);
    }
    const { uid, gid } = { uid: Number(execFileSync("id", ["-u", "postgres"]).toString()), gid: Number(execFileSync("id", ["-g", "postgres"]).toString()) };
    chownSync(dir, uid, gid);
  }
  const [initCmd, initArgs] = asServerUser(join(bin, "initdb"), ["-D", data, "-U", "baton", "--auth=trust", "-E", "UTF8", "--no-sync", "--no-instructions"]);
  execFileSync(initCmd, initArgs, { stdio: "pipe" });
  // Another port when the one found free was taken before the server bound it.
  const { port, server } = await startOnFreePort(async (port) => {
    const options = { listen_addresses: "127.0.0.1", port: String(port), unix_socket_directories: dir, fsync: "off", synchronous_commit: "off", full_page_writes: "off", ...settings };
    const [cmd, args] = asServerUser(join(bin, "postgres"), ["-D", data, ...Object.entries(options).flatMap(([k, v]) => ["-c", `${k}=${v}`])]);
    const server: ChildProcess = spawn(cmd, args, { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    server.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()).length > 20_000 && (stderr = stderr.slice(-10_000)));
    await waitReady(`postgres://baton@127.0.0.1:${port}/postgres`, data, server, () => stderr).catch(async (error: unknown) => {
      await stopServer(server);
      throw error;
    });
    return { port, server };
  }).catch((error: unknown) => {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  });
  const url = `postgres://baton@127.0.0.1:${port}/postgres`;
  let next = 0;
  const pools: pg.Pool[] = [];
  const admin = async <T>(work: (c: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  };
  const database = async () => {
    const name = `t${process.pid}_${next++}`;
    await admin((c) => c.query(`CREATE DATABASE ${name}`));
    return `postgres://baton@127.0.0.1:${port}/${name}`;
  };
  return {
    url,
    port,
    database,
    async migratedPool(given, max = 4) {
      const url = given ?? (await database());
      const pool = new pg.Pool({ connectionString: url, max });
      // An idle client dropped by the server (its shutdown at the end) is no test failure.
      pool.on("error", () => undefined);
      pools.push(pool);
      const client = await pool.connect();
      await migrate(client).finally(() => client.release());
      return { url, pool };
    },
    terminateConnections: (db, applicationName) =>
      admin(async (c) => {
        const name = new URL(db).pathname.slice(1);
        const { rowCount } = await c.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid() AND ($2::text IS NULL OR application_name = $2)", [
          name,
          applicationName ?? null,
        ]);
        return rowCount ?? 0;
      }),
    async close() {
      await Promise.all(pools.map((p) => p.end().catch(() => undefined)));
      await stopServer(server);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function stopServer(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null || server.signalCode !== null) return;
  const exited = new Promise((resolve) => server.once("exit", resolve));
  // SIGINT: PostgreSQL's "fast" shutdown (ends sessions, no waiting for clients).
  server.kill("SIGINT");
  await exited;
}

/** Until the server answers on `url`: this one (its data directory), not another that took the port first. */
async function waitReady(url: string, data: string, server: ChildProcess, stderr: () => string): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (server.exitCode !== null) throw new Error(`postgres exited with ${server.exitCode}: ${stderr()}`);
    const client = new pg.Client({ connectionString: url });
    let answering: string | undefined;
    try {
      await client.connect();
      answering = (await client.query<{ data_directory: string }>("SHOW data_directory")).rows[0].data_directory;
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`postgres did not accept connections within ${READY_TIMEOUT_MS} ms: ${(error as Error).message}\n${stderr()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
      continue;
    } finally {
      await client.end().catch(() => undefined);
    }
    if (answering !== data) throw new Error(`another PostgreSQL (its data in ${answering}) answers on ${url}`);
    return;
  }
}
