import { defineConfig } from "vitest/config";

// The real-agent suite (`npm run test:agents`): real CLIs against fake model servers, one file at a
// time (each starts several agent processes; the machine has two cores).
export default defineConfig({
  test: {
    root: new URL("../..", import.meta.url).pathname,
    include: ["test/agents-real/**/*.test.ts"],
    testTimeout: 240_000,
    hookTimeout: 120_000,
    fileParallelism: false,
    maxWorkers: 1,
  },
});
