import { defineConfig } from "vitest/config";
import SummaryLine from "./test/support/summary-reporter.ts";

// The workspace packages (packages/*) are run from their TypeScript sources: each package's exports
// map names them under the "admit-source" condition (tsconfig.json's customConditions does the same
// for tsc); the published packages answer with their built dist/.
const conditions = ["admit-source", "module", "node", "development|production"];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ["admit-source"] } },
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
