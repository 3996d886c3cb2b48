// The Worker's scheduled (cron) handler: housekeeping so constantly-updated tables do not bloat.
//
// One statement, `SELECT admit_sweep()`, runs every `admit_sweep_<capability>()` function the
// schema defines (schema/000003_sweep.sql), so a capability adds its sweeper in its own migration
// and nothing here changes. Each sweeper deletes a bounded batch and returns how many rows it removed.
import type { Bindings } from "./env";
import { RequestDb } from "./db";

export type SweepReport = Record<string, number>;

/** Runs every sweeper once; returns rows removed per sweeper. Throws a ProblemError if the database is unavailable. */
export async function sweep(env: Bindings): Promise<SweepReport> {
  const db = new RequestDb({ ...env, DB_BUDGET_MS: "25000" });
  try {
    const rows = await db.query<{ report: SweepReport }>("SELECT admit_sweep() AS report", [], { write: true });
    return rows[0].report;
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
