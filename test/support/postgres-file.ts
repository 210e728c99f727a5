// The PostgreSQL test server as vitest hooks (apart from postgres.ts, which the bench uses too).
import { afterAll, beforeAll } from "vitest";
import { postgresMissing, startTestPostgres, type TestPostgres } from "./postgres.js";

/**
 * One server for the test file: started before its tests, stopped after them. `missing` says why
 * none can start (the file's tests are then skipped; in CI that throws instead).
 */
export function postgresForFile(settings: Record<string, string> = {}): { missing: string | undefined; server(): TestPostgres } {
  const missing = postgresMissing();
  let server: TestPostgres | undefined;
  beforeAll(async () => {
    if (!missing) server = await startTestPostgres(settings);
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });
  return {
    missing,
    server: () => {
      if (!server) throw new Error("the test PostgreSQL server is not running");
      return server;
    },
  };
}
