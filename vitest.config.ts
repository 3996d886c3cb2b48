import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    setupFiles: ["dev/node-ws.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Suites share one embedded Postgres but each gets its own database (see test/support.ts).
    fileParallelism: true,
    maxWorkers: 2,
  },
});
