// Reservations in flight together go to Postgres as one statement (functions/core/coalesce.ts,
// admit_reserve_batch in schema/000102), against real Postgres with real simultaneous requests:
// still exactly one winner per interval, and a resource whose lock is held elsewhere answers for its
// own requests only.
import { describe, expect, it } from "vitest";
import { lockKey } from "../../functions/core/keys";
import { reserveCoalescing } from "../../functions/reservations/sql";
import { bindings, SUITE_BUDGET_MS, servedApp, sql, whileHolding, withServedApp } from "../support";

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
});
