// Prints one plain closing line, "N passed, N failed[, N skipped]", that any CI can read.
import type { Reporter, TestModule } from "vitest/node";

export default class SummaryLine implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const m of modules) {
      let failedHere = 0;
      for (const t of m.children.allTests()) {
        const state = t.result().state;
        if (state === "passed") passed++;
        else if (state === "failed") failedHere++;
        else skipped++;
      }
      // A file that failed with no failed test — it did not load, or a beforeAll/afterAll hook
      // failed (its tests then show as skipped) — counts as one failure, never as a clean run.
      if (m.state() === "failed" && failedHere === 0) failedHere = 1;
      failed += failedHere;
    }
    process.stdout.write(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}\n`);
  }
}
