// `baton doctor` (the shipped CLI) with store.url: a reachable database with its schema, leader and
// clock; a database that cannot be reached fails the check by name.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LeaderLease } from "../../src/store/postgres/lease.js";
import { postgresForFile } from "../support/postgres-file.js";
import { closedPort } from "../support/closed-port.js";

const BATON = join(process.cwd(), "bin/baton.js");
const { missing, server } = postgresForFile();

function doctor(url: string): { status: number | null; checks: Array<{ area: string; status: string; message: string }> } {
  const dir = mkdtempSync(join(tmpdir(), "baton-doctor-pg-"));
  try {
    const config = join(dir, "baton.yaml");
    writeFileSync(config, `agents: { default: demo }\nstore: { url: "${url}" }\n`);
    const run = spawnSync(process.execPath, [BATON, "doctor", "--json", "--config", config, "--data-dir", join(dir, "data")], { encoding: "utf8", timeout: 30_000 });
    return { status: run.status, checks: JSON.parse(run.stdout).checks.filter((c: { area: string }) => c.area === "database") };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe.skipIf(missing)("baton doctor with store.url", () => {
  it("names the server's version, the schema, the leader and the clock skew", async () => {
    const fresh = await server().database();
    expect(doctor(fresh).checks.map((c) => c.message)).toContainEqual(expect.stringMatching(/migration\(s\) to apply at the next start/));
    const { url } = await server().migratedPool();
    const lease = new LeaderLease(url, "doctor-leader");
    await lease.campaign();
    try {
      const { checks } = doctor(url);
      const messages = checks.map((c) => c.message);
      expect(
        checks.every((c) => c.status === "ok"),
        JSON.stringify(checks),
      ).toBe(true);
      expect(messages).toContainEqual(expect.stringMatching(/^PostgreSQL \d+/));
      expect(messages).toContain("schema current");
      expect(messages).toContainEqual(expect.stringMatching(/leader doctor-leader \(epoch 1\); instances seen: doctor-leader \(leader\)/));
      expect(messages).toContainEqual(expect.stringMatching(/clock skew with the database: -?\d+ ms/));
    } finally {
      await lease.close();
    }
  });

  it("fails, naming the database, when it cannot be reached; no password shown", async () => {
    const { status, checks } = doctor(`postgres://baton:s3cret@127.0.0.1:${await closedPort()}/baton`);
    expect(status).toBe(1);
    expect(checks).toEqual([{ area: "database", status: "fail", message: expect.stringMatching(/^cannot reach PostgreSQL at postgres:\/\/baton@127\.0\.0\.1:\d+\/baton: /) }]);
    expect(JSON.stringify(checks)).not.toContain("s3cret");
  });
});
