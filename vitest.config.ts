import { configDefaults, defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // A temp dir per run; the run fails when a test leaves a baton-* folder behind.
    globalSetup: ["test/support/temp-dir-guard.ts"],
    setupFiles: ["test/support/setup.ts"],
    // The real agent CLIs' suite runs apart (`npm run test:agents`): it needs their packages installed.
    exclude: [...configDefaults.exclude, "test/agents-real/**"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Tests spawn real agent processes and servers; two cores, so keep parallelism modest.
    maxWorkers: 2,
  },
});
