// `npm run test:prometheus`: the suite that runs a real Prometheus (Debian's `prometheus` package),
// kept out of `npm test` because it needs that package; .ci/run installs it and runs this after `npm test`.
import { defineConfig } from "vitest/config";
import SummaryLine from "./test/support/summary-reporter.ts";

export default defineConfig({
  test: {
    include: ["test/**/*.prometheus.ts"],
    reporters: ["default", new SummaryLine()],
    globalSetup: ["test/support/global-setup.ts"],
    setupFiles: ["dev/node-ws.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
