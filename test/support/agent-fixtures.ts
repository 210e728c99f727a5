// Session files captured from the real agent CLIs (by `npm run test:agents` with
// BATON_CAPTURE_FIXTURES=1) live in test/fixtures/agents/<kind>/home/, with the temporary root they
// were written under replaced by a placeholder. A SQLite store (OpenCode's) is kept as the SQL text
// that rebuilds it (`<file>.sql`: the placeholder cannot be put into the binary file in place). A fast
// test puts them back under a directory of its own, placeholder replaced in contents and in Claude's
// encoded project-folder names, each SQL dump built into its database again.
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import initSqlJs from "sql.js";
import { openSqlite } from "../../src/agents/stores/sqlite.js";

const require = createRequire(import.meta.url);
/** How a captured SQLite database's file name ends in a fixture. */
export const SQLITE_DUMP_SUFFIX = ".sql";
const SQLITE_MAGIC = "SQLite format 3\u0000";

export const FIXTURES_DIR = join(process.cwd(), "test", "fixtures", "agents");
/** What the capture's temporary root becomes in a fixture. */
export const ROOT_PLACEHOLDER = "/FIXTURE_ROOT";

/**
 * `text` with the root `from` written as `to`, also where it is written relative to `/` (OpenCode
 * keeps a session's `path` so: `tmp/…/work/x` under its global project at `/`).
 */
export function replaceRoot(text: string, from: string, to: string): string {
  return text.split(from).join(to).split(from.slice(1)).join(to.slice(1));
}

/** Claude Code's project-folder encoding of a path. */
export const encodePath = (p: string): string => p.replace(/[^A-Za-z0-9]/g, "-");

export function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]));
}

export interface AgentFixtureMeta {
  kind: string;
  /** Versions of the CLIs that wrote the files. */
  versions: Record<string, string>;
  /** Facts about the sessions, for the tests to check against (ids, prompts, commands). */
  facts: Record<string, string>;
}

/** Whether the file is a SQLite database (by its header). */
export function isSqliteFile(file: string): boolean {
  return readFileSync(file).subarray(0, SQLITE_MAGIC.length).toString("latin1") === SQLITE_MAGIC;
}

/** A SQL literal of a value sql.js read. */
function sqlLiteral(value: unknown): string {
  if (value === null || value === undefined) return "NULL";
  if (typeof value === "number" || typeof value === "bigint") return String(value);
  if (value instanceof Uint8Array) return `X'${Buffer.from(value).toString("hex")}'`;
  return `'${String(value).replace(/'/g, "''")}'`;
}

/**
 * The database (with what its `-wal` file still holds) as SQL that builds it again: its tables,
 * indexes and rows in storage order, one statement a line. SQLite's own tables are left to SQLite.
 */
export async function sqliteDump(file: string): Promise<string> {
  const db = await openSqlite(file);
  try {
    const schema = db.query<{ type: string; name: string; sql: string }>(
      "SELECT type, name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY type = 'table' DESC, rowid",
    );
    const lines = schema.map((s) => `${s.sql.replace(/\s*\n\s*/g, " ")};`);
    for (const table of schema.filter((s) => s.type === "table")) {
      const quoted = `"${table.name.replace(/"/g, '""')}"`;
      for (const row of db.query(`SELECT * FROM ${quoted}`)) lines.push(`INSERT INTO ${quoted} VALUES (${Object.values(row).map(sqlLiteral).join(", ")});`);
    }
    return `${lines.join("\n")}\n`;
  } finally {
    db.close();
  }
}

/** The CREATE TABLE statements of `tables` in a captured SQLite dump (`file`: its path under the kind's home): the schema the real CLI made. */
export function capturedTables(kind: string, file: string, tables: string[]): string[] {
  const dump = readFileSync(join(FIXTURES_DIR, kind, "home", `${file}${SQLITE_DUMP_SUFFIX}`), "utf8").split("\n");
  return tables.map((table) => {
    const create = dump.find((line) => line.startsWith(`CREATE TABLE \`${table}\` `) || line.startsWith(`CREATE TABLE "${table}" `));
    if (!create) throw new Error(`no table ${table} in ${kind}'s captured ${file}`);
    return create;
  });
}

async function buildSqlite(dump: string, file: string): Promise<void> {
  const SQL = await initSqlJs({ locateFile: () => require.resolve("sql.js/dist/sql-wasm.wasm") });
  const db = new SQL.Database();
  try {
    db.exec(readFileSync(dump, "utf8"));
    writeFileSync(file, Buffer.from(db.export()));
  } finally {
    db.close();
  }
  rmSync(dump);
}

/** Puts a captured fixture back with `root` as the capture root; returns its home and facts. */
export async function restoreFixture(kind: string, root: string): Promise<{ home: string; meta: AgentFixtureMeta }> {
  const source = join(FIXTURES_DIR, kind);
  const home = join(root, "home");
  cpSync(join(source, "home"), home, { recursive: true });
  for (const file of filesUnder(home)) {
    writeFileSync(file, replaceRoot(readFileSync(file, "utf8"), ROOT_PLACEHOLDER, root));
    if (file.endsWith(SQLITE_DUMP_SUFFIX)) {
      await buildSqlite(file, file.slice(0, -SQLITE_DUMP_SUFFIX.length));
      continue;
    }
    const renamed = file.split(encodePath(ROOT_PLACEHOLDER)).join(encodePath(root));
    if (renamed !== file) {
      mkdirSync(dirname(renamed), { recursive: true });
      renameSync(file, renamed);
    }
  }
  const meta = JSON.parse(readFileSync(join(source, "fixture.json"), "utf8").split(ROOT_PLACEHOLDER).join(root)) as AgentFixtureMeta;
  return { home, meta };
}
