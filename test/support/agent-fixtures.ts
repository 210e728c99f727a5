// Session files captured from the real agent CLIs (by `npm run test:agents` with
// BATON_CAPTURE_FIXTURES=1) live in test/fixtures/agents/<kind>/home/, with the temporary root they
// were written under replaced by a placeholder. A fast test puts them back under a directory of
// its own, placeholder replaced in contents and in Claude's encoded project-folder names.
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

export const FIXTURES_DIR = join(process.cwd(), "test", "fixtures", "agents");
/** What the capture's temporary root becomes in a fixture. */
export const ROOT_PLACEHOLDER = "/FIXTURE_ROOT";

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

/** Puts a captured fixture back with `root` as the capture root; returns its home and facts. */
export function restoreFixture(kind: string, root: string): { home: string; meta: AgentFixtureMeta } {
  const source = join(FIXTURES_DIR, kind);
  const home = join(root, "home");
  cpSync(join(source, "home"), home, { recursive: true });
  for (const file of filesUnder(home)) {
    writeFileSync(file, readFileSync(file, "utf8").split(ROOT_PLACEHOLDER).join(root));
    const renamed = file.split(encodePath(ROOT_PLACEHOLDER)).join(encodePath(root));
    if (renamed !== file) {
      mkdirSync(dirname(renamed), { recursive: true });
      renameSync(file, renamed);
    }
  }
  const meta = JSON.parse(readFileSync(join(source, "fixture.json"), "utf8").split(ROOT_PLACEHOLDER).join(root)) as AgentFixtureMeta;
  return { home, meta };
}
