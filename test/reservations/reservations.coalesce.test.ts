// Reservations in flight together go to Postgres as one statement (functions/core/coalesce/,
// admit_reserve_batch in schema/000102), against real Postgres with real simultaneous requests:
// still exactly one winner per interval, a resource whose lock is held elsewhere answers for its
// own requests only, and each request keeps its own budget in a batch.
import { describe, expect, it } from "vitest";
import { lockKey } from "../../functions/core/lock-keys";
import { reserveCoalescing } from "../../functions/reservations/sql";
import { bindings, connect, SUITE_BUDGET_MS, servedApp, sql, until, whileHolding, withServedApp } from "../support";

const suite = servedApp("reservations_coalesce", { COALESCE: "on" });

function tally(results: Array<{ status: number }>) {
  const counts: Record<number, number> = {};
  for (const r of results) counts[r.status] = (counts[r.status] ?? 0) + 1;
  return counts;
}

const body = (resource: string, holder: string) => ({ resource, holder, start: "2031-01-01T10:00:00Z", end: "2031-01-01T11:00:00Z" });

describe("reservations in flight together go to Postgres as one statement", () => {
  it("300 at once: 200 on one interval of one resource (exactly 1 × 201) and 100 on resources of their own (each 201), in batches", async () => {
    const before = { ...reserveCoalescing };
    const bodies = [...Array.from({ length: 200 }, (_, i) => body("co/room", `h${i}`)), ...Array.from({ length: 100 }, (_, i) => body(`co/own-${i}`, "x"))];
    const results = await Promise.all(bodies.map((b) => suite.api("POST", "/v1/reservations", b)));
    expect(tally(results.slice(0, 200))).toEqual({ 201: 1, 409: 199 });
    expect(tally(results.slice(200))).toEqual({ 201: 100 });
    const won = results.slice(0, 200).find((r) => r.status === 201)!;
    expect(await sql(suite.db, "SELECT id::text FROM reservations WHERE resource = 'co/room' AND cancelled_at IS NULL")).toEqual([{ id: won.json.id }]);
    expect(reserveCoalescing.batches - before.batches).toBeGreaterThan(0);
    expect(reserveCoalescing.alone - before.alone + (reserveCoalescing.batched - before.batched)).toBe(300);
  }, 120_000);

  it("a resource whose lock is held elsewhere: its requests answer lock-timeout, the others in the same batches are reserved", async () => {
    const before = { ...reserveCoalescing };
    const results = await whileHolding(suite.db, "SELECT pg_advisory_xact_lock($1::bigint)", [lockKey("reservation", "co/held")], () =>
      withServedApp(bindings(suite.db, { COALESCE: "on", LOCK_TIMEOUT_MS: "300", DB_BUDGET_MS: SUITE_BUDGET_MS }), (api) =>
        Promise.all(Array.from({ length: 80 }, (_, i) => api("POST", "/v1/reservations", body(i % 8 === 0 ? "co/held" : `co/free-${i}`, "h")))),
      ),
    );
    expect(tally(results.filter((_, i) => i % 8 === 0))).toEqual({ 503: 10 });
    expect(tally(results.filter((_, i) => i % 8 !== 0))).toEqual({ 201: 70 });
    console.log("reservation isolation:", { batches: reserveCoalescing.batches - before.batches, fallbacks: reserveCoalescing.fallbacks - before.fallbacks });
    expect(await sql(suite.db, "SELECT count(*)::int AS n FROM reservations WHERE resource LIKE 'co/free-%'")).toEqual([{ n: 70 }]);
  }, 120_000);

  it("a request whose budget outlasts the one carrying its batch is not cut short: its resource held past the carrier's deadline, it is still reserved", async () => {
    // Each request has DB_BUDGET_MS (6 s) from its arrival; the second arrives 3 s after the first,
    // and both wait in the queue behind two reservations held on another resource's lock (both of
    // the lane's ways busy), so they go as one batch, carried by the first.
    const holder = async (resource: string) => {
      const c = await connect(suite.db);
      await c.query("BEGIN");
      await c.query("SELECT pg_advisory_xact_lock($1::bigint)", [lockKey("reservation", resource)]);
      let released: Promise<void> | undefined;
      return () =>
        (released ??= (async () => {
          await c.query("ROLLBACK").catch(() => {});
          await c.end();
        })());
    };
    const waiting = async () =>
      (await sql<{ n: number }>(suite.db, "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event = 'advisory'"))[0]
        .n;
    const releasePrime = await holder("co/prime");
    const releaseLong = await holder("co/late");
    try {
      await withServedApp(bindings(suite.db, { COALESCE: "on", DB_BUDGET_MS: "6000", LOCK_TIMEOUT_MS: "10000" }), async (api) => {
        const before = { ...reserveCoalescing };
        const primers = [0, 1].map((i) =>
          api("POST", "/v1/reservations", { ...body("co/prime", "p"), start: `2031-02-0${i + 1}T10:00:00Z`, end: `2031-02-0${i + 1}T11:00:00Z` }),
        );
        await until(async () => (await waiting()) === 2, 20_000, "both primers waiting on the lock");
        const first = api("POST", "/v1/reservations", body("co/early", "e"));
        await until(async () => reserveCoalescing.waiting === 1, 20_000, "the first queued");
        await new Promise((r) => setTimeout(r, 3_000));
        const second = api("POST", "/v1/reservations", body("co/late", "l"));
        await until(async () => reserveCoalescing.waiting === 2, 20_000, "the second queued behind it");
        await releasePrime();
        await until(async () => reserveCoalescing.batches > before.batches, 20_000, "the batch sent");
        expect({ batches: reserveCoalescing.batches - before.batches, batched: reserveCoalescing.batched - before.batched }).toEqual({
          batches: 1,
          batched: 2,
        });
        // The first's deadline passes ~3 s from now, while the batch waits on the lock; let go at 4 s,
        // within the batch's lock timeout (the first's, ~5.9 s) and the second's deadline (~6 s).
        await new Promise((r) => setTimeout(r, 4_000));
        await releaseLong();
        const [early, late] = await Promise.all([first, second]);
        for (const p of primers) expect((await p).status).toBe(201);
        console.log("budgets in a batch:", { early: early.status, late: late.status });
        expect(late.status).toBe(201);
        expect(await sql(suite.db, "SELECT holder FROM reservations WHERE resource = 'co/late'")).toEqual([{ holder: "l" }]);
        // The first answered at its own deadline: sent, no answer in time (the batch then made it).
        expect({ status: early.status, type: early.json.type }).toEqual({ status: 504, type: "/problems/outcome-unknown" });
        expect(await sql(suite.db, "SELECT holder FROM reservations WHERE resource = 'co/early'")).toEqual([{ holder: "e" }]);
      });
    } finally {
      await releasePrime();
      await releaseLong();
    }
  }, 120_000);
});
