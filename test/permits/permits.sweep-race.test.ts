// The cron sweeper running at the same moment as renew and release of the claim it is ending
// (issue 18, item 1): one claim never has two live holders, and release never breaks permits_one_ending.
import { describe, expect, it } from "vitest";
import { mapSqlError, RequestDb } from "../../functions/core/db";
import { fnv64, lockKey } from "../../functions/core/lock-keys";
import { acquirePermit } from "../../functions/permits/sql";
import { bindings, connect, freshDatabase, sql, until, whileHolding } from "../support";

/** A lease of `key` claimed 10 s ago for 1 s (so expired by the database clock); returns its id and that instant. */
async function expiredLease(db: string, key: string): Promise<{ id: string; t0: string }> {
  const [{ t0 }] = await sql<{ t0: string }>(db, "SELECT (clock_timestamp() - interval '10 s')::text AS t0");
  const [{ r }] = await sql<{ r: any }>(db, "SELECT admit_permit_acquire($1::bigint, 'lease', $2, 'first', 1000, 1000, $3::timestamptz) AS r", [
    lockKey("lease", key),
    key,
    t0,
  ]);
  expect(r.status).toBe("acquired");
  return { id: r.permit.lease_id, t0 };
}

/**
 * Runs `call` (renew or release, checking the claim at an instant before its expiry) while a sweep is
 * open: the sweep has marked the claim timed out but not committed; the call is let go once it waits.
 */
async function raceWithSweep(db: string, call: (c: Awaited<ReturnType<typeof connect>>) => Promise<any>): Promise<{ value?: any; error?: any }> {
  const sweeper = await connect(db);
  const caller = await connect(db);
  try {
    await sweeper.query("BEGIN");
    await sweeper.query("SELECT admit_sweep_permits()");
    const [{ pid }] = (await caller.query("SELECT pg_backend_pid() AS pid")).rows;
    const pending = call(caller).then(
      (value) => ({ value }),
      (error) => ({ error }),
    );
    await until(
      async () => {
        const rows = await sql(db, "SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock'", [pid]);
        return rows.length > 0;
      },
      10_000,
      "the call to wait for the sweep",
    );
    await sweeper.query("COMMIT");
    return await pending;
  } finally {
    await sweeper.end();
    await caller.end();
  }
}

describe("the sweeper against renew and release of the same claim", () => {
  it("renew checked before expiry, sweeper ends the claim meanwhile: renew answers not_current, and the next acquire is the only live holder", async () => {
    const db = await freshDatabase("permits_race_renew");
    const { id, t0 } = await expiredLease(db, "race");
    const out = await raceWithSweep(
      db,
      async (c) =>
        (
          await c.query("SELECT admit_permit_renew($1::bigint, 'lease', 'race', $2::uuid, 60000, 5000, $3::timestamptz + interval '500 ms') AS r", [
            lockKey("lease", "race"),
            id,
            t0,
          ])
        ).rows[0].r,
    );
    expect(out.error).toBeUndefined();
    expect(out.value).toMatchObject({ status: "not_current", state: "timed_out" });
    const requestDb = new RequestDb(bindings(db, { LOCK_TIMEOUT_MS: "1000" }));
    const next = await acquirePermit(requestDb, "lease", "race", "second", 60000).finally(() => requestDb.close());
    expect(next.status).toBe("acquired");
    const live = await sql(db, "SELECT holder FROM permits WHERE name = 'race' AND expires_at > clock_timestamp() ORDER BY holder");
    expect(live).toEqual([{ holder: "second" }]);
    expect(await sql(db, "SELECT holder FROM permits WHERE name = 'race' AND timed_out_at IS NOT NULL AND expires_at > timed_out_at")).toEqual([]);
  });

  it("release checked before expiry, sweeper ends the claim meanwhile: release answers not_current, not a broken constraint", async () => {
    const db = await freshDatabase("permits_race_release");
    const { id, t0 } = await expiredLease(db, "race");
    const out = await raceWithSweep(
      db,
      async (c) =>
        (
          await c.query("SELECT admit_permit_release($1::bigint, 'lease', 'race', $2::uuid, 5000, $3::timestamptz + interval '500 ms') AS r", [
            lockKey("lease", "race"),
            id,
            t0,
          ])
        ).rows[0].r,
    );
    expect(out.error?.code).toBeUndefined();
    expect(out.value).toMatchObject({ status: "not_current", state: "timed_out" });
    expect(await sql(db, "SELECT released_at FROM permits WHERE id = $1", [id])).toEqual([{ released_at: null }]);
  });

  it("the sweeper leaves the claims of a key whose lock a request holds, and ends them on the next sweep", async () => {
    const db = await freshDatabase("permits_race_locked");
    const { id } = await expiredLease(db, "busy");
    await whileHolding(db, "SELECT pg_advisory_xact_lock($1::bigint)", [lockKey("lease", "busy")], async () => {
      await sql(db, "SELECT admit_sweep_permits()");
      expect(await sql(db, "SELECT timed_out_at FROM permits WHERE id = $1", [id])).toEqual([{ timed_out_at: null }]);
    });
    await sql(db, "SELECT admit_sweep_permits()");
    const [{ ended }] = await sql<{ ended: boolean }>(db, "SELECT timed_out_at IS NOT NULL AS ended FROM permits WHERE id = $1", [id]);
    expect(ended).toBe(true);
  });

  it("admit_fnv64 in SQL is functions/core/lock-keys.ts fnv64 (the sweeper locks what the routes lock)", async () => {
    const db = await freshDatabase("permits_fnv");
    const texts = ["", "lease/hot", "semaphore/fragile-upstream", "reservation/223 345", "lease/ключ-🔒", "x".repeat(300)];
    const rows = await sql<{ k: string }>(db, "SELECT admit_fnv64(t)::text AS k FROM unnest($1::text[]) WITH ORDINALITY u(t, i) ORDER BY i", [texts]);
    expect(rows.map((r) => r.k)).toEqual(texts.map(fnv64));
  });

  it("a CHECK constraint broken by a write (23514) is a 409 problem, never a 500", () => {
    const p = mapSqlError(
      "23514",
      Object.assign(new Error('new row for relation "permits" violates check constraint "permits_one_ending"'), { constraint: "permits_one_ending" }),
    );
    expect(p.problem).toMatchObject({ status: 409, type: "/problems/conflict" });
    expect(p.problem.detail).toContain("permits_one_ending");
  });
});
