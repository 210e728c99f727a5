import { defineConfig } from "vitest/config";

// The soak test (`npm run test:soak`): minutes, not seconds, so it stays out of `npm test`.
export default defineConfig({
  test: {
    include: ["test/soak/**/*.soak.ts"],
    globalSetup: ["test/support/temp-dir-guard.ts"],
    testTimeout: 600_000,
    hookTimeout: 60_000,
    maxWorkers: 1,
  },
});
