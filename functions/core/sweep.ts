// The Worker's scheduled (cron) handler: housekeeping so constantly-updated tables do not bloat.
//
// Every `admit_sweep_<capability>()` function the schema defines (schema/000003_sweep.sql) deletes
// or marks one bounded batch of expired rows and returns how many. The handler asks for their names
// (admit_sweepers(), schema/000050) and runs one batch of each in turn, round after round, each
// batch one statement — so its own short transaction: rows are locked only while their batch runs —
// until every sweeper reports nothing left or the time budget is spent (the next cron run goes on).
// A capability adds its sweeper in its own migration and nothing here changes.

import { RequestDb } from "./db";
import type { Bindings } from "./env";
import { tallyFor } from "./tally";

export type SweepReport = Record<string, number>;

/** How long one cron run keeps starting batches; the database budget below bounds the last one. */
export const SWEEP_BUDGET_MS = 20_000;

/**
 * Runs every sweeper until it has nothing left or the budget is spent; returns rows changed per
 * sweeper. A sweeper that fails is logged and skipped for this run; throws when every one failed
 * (a ProblemError when the database is unavailable).
 */
export async function sweep(env: Bindings, { budgetMs = SWEEP_BUDGET_MS }: { budgetMs?: number } = {}): Promise<SweepReport> {
  // The last batch may take up to 5 s past the budget; DB_BUDGET_MS is capped at 60 s (a larger value would be ignored).
  const db = new RequestDb({ ...env, DB_BUDGET_MS: String(Math.min(budgetMs + 5_000, 60_000)) });
  const stopAt = Date.now() + budgetMs;
  try {
    const names = (await db.query<{ name: string }>("SELECT name FROM admit_sweepers() AS name")).map((r) => r.name);
    const report: SweepReport = Object.fromEntries(names.map((n) => [n, 0]));
    // A sweeper whose batch fails is left out for the rest of this run, and the others go on: one
    // failing table must not leave every table after it in name order unswept, run after run.
    const failed = new Map<string, unknown>();
    let busy = names;
    while (busy.length > 0 && Date.now() < stopAt) {
      const still: string[] = [];
      for (const name of busy) {
        try {
          const [{ n }] = await db.query<{ n: number | null }>("SELECT admit_sweep_batch($1) AS n", [name], { write: true });
          report[name] += n ?? 0;
          if ((n ?? 0) > 0) still.push(name);
        } catch (err) {
          failed.set(name, err);
          console.error(`admit sweep: ${name} failed (${(err as Error)?.message ?? err}); the other sweepers go on, and the next run tries it again`);
        }
        if (Date.now() >= stopAt) break;
      }
      busy = still;
    }
    // Every one failed: the database itself, most likely — the caller's error, as before.
    if (names.length > 0 && failed.size === names.length) throw failed.get(names[0]);
    // admit_sweep_rows_total: counted like every other metric, and written before the run ends.
    const tally = tallyFor(env);
    if (tally) {
      const now = Date.now();
      for (const [sweeper, n] of Object.entries(report)) if (n > 0) tally.count("admit_sweep_rows_total", { sweeper }, now, n);
      await tally.flush();
    }
    return report;
  } finally {
    await db.close();
  }
}

export async function scheduled(_event: unknown, env: Bindings, ctx: { waitUntil(p: Promise<unknown>): void }): Promise<void> {
  ctx.waitUntil(
    sweep(env).then(
      (report) => console.log(`admit sweep: ${JSON.stringify(report)}`),
      (err) => console.error(`admit sweep failed: ${(err as Error).message}`),
    ),
  );
}
