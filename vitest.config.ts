import { defineConfig } from "vitest/config";
import SummaryLine from "./test/support/summary-reporter.ts";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The real gateways' suite needs Debian packages: `npm run test:gateways` (vitest.gateways.config.ts).
    exclude: ["**/node_modules/**", "test/gateways/**"],
    reporters: ["default", new SummaryLine()],
    globalSetup: ["test/support/global-setup.ts"],
    setupFiles: ["dev/node-ws.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Suites share one embedded Postgres but each gets its own database (see test/support/index.ts).
    fileParallelism: true,
    maxWorkers: 2,
  },
});
