// A semaphore with thousands of holders (issue 28, item 7): an acquire must cost index look-ups, not
// a walk over the holders, or the queue behind the semaphore's lock outlives LOCK_TIMEOUT_MS and a
// semaphore with room refuses with 503. Real HTTP requests against real Postgres, checked in the
// database afterwards.
import { describe, expect, it } from "vitest";
import { servedApp, sql } from "../support";

const suite = servedApp("semaphores_many_holders");

const ACTIVE =
  "SELECT slot, holder, fencing_token::text FROM permits WHERE kind = 'semaphore' AND name = $1 AND released_at IS NULL AND timed_out_at IS NULL ORDER BY slot";

/** The semaphore's kept use and free slots beside its unfinished claims counted from the rows. */
const KEPT = `
  SELECT s.in_use,
         (SELECT count(*)::int FROM permits p WHERE p.kind = 'semaphore' AND p.name = s.name AND p.released_at IS NULL AND p.timed_out_at IS NULL) AS unfinished,
         (SELECT coalesce(array_agg(f.slot ORDER BY f.slot), '{}') FROM semaphore_free_slots f WHERE f.name = s.name) AS free
    FROM semaphores s WHERE s.name = $1`;

function tally(results: { status: number }[]) {
  const counts: Record<number, number> = {};
  for (const r of results) counts[r.status] = (counts[r.status] ?? 0) + 1;
  return counts;
}

describe("a semaphore of 10 000 permits", () => {
  it("10 000 acquires in bursts of 200 → all 201, slots 0–9 999 once each; then the lowest freed slot is taken first", async () => {
    const name = "fleet";
    expect((await suite.api("PUT", `/v1/semaphores/${name}`, { permits: 10_000, default_ttl_ms: 3_600_000 })).status).toBe(201);

    const all: { status: number; json: any }[] = [];
    for (let b = 0; b < 50; b++) {
      const burst = await Promise.all(
        Array.from({ length: 200 }, (_, i) => suite.api("POST", `/v1/semaphores/${name}/acquire`, { holder: `worker-${b}-${i}` })),
      );
      all.push(...burst);
      if (burst.some((r) => r.status !== 201)) console.log(`burst ${b} (${b * 200} held before it):`, tally(burst));
    }
    console.log("10 000 acquires of a 10 000-permit semaphore by status:", tally(all));
    expect(tally(all)).toEqual({ 201: 10_000 });
    expect(new Set(all.map((r) => r.json.slot)).size).toBe(10_000);

    const active = await sql<{ slot: number; holder: string; fencing_token: string }>(suite.db, ACTIVE, [name]);
    expect(active.map((a) => a.slot)).toEqual(Array.from({ length: 10_000 }, (_, i) => i));
    expect(new Map(active.map((a) => [a.slot, a.holder]))).toEqual(new Map(all.map((r) => [r.json.slot, r.json.holder])));

    // Full: the next acquire is a 429 with the count.
    const full = await suite.api("POST", `/v1/semaphores/${name}/acquire`, { holder: "one-too-many" });
    expect(full.status).toBe(429);
    expect(full.json).toMatchObject({ type: "/problems/semaphore-full", permits: 10_000, in_use: 10_000 });

    // Release three holders; the next three acquires take their slots, lowest first.
    const bySlot = new Map(all.map((r) => [r.json.slot as number, r.json]));
    for (const slot of [7_777, 42, 9_999]) {
      expect((await suite.api("POST", `/v1/semaphores/${name}/release`, { permit_id: bySlot.get(slot).permit_id })).status).toBe(204);
    }
    const again = [];
    for (let i = 0; i < 3; i++) again.push((await suite.api("POST", `/v1/semaphores/${name}/acquire`, { holder: `again-${i}` })).json.slot);
    expect(again).toEqual([42, 7_777, 9_999]);
    expect((await suite.api("POST", `/v1/semaphores/${name}/acquire`, { holder: "still-full" })).status).toBe(429);

    // What an acquire reads instead of walking the holders agrees with the claims themselves.
    expect(await sql(suite.db, KEPT, [name])).toEqual([{ in_use: 10_000, unfinished: 10_000, free: [] }]);
    const one = bySlot.get(5_000);
    expect((await suite.api("POST", `/v1/semaphores/${name}/release`, { permit_id: one.permit_id })).status).toBe(204);
    expect(await sql(suite.db, KEPT, [name])).toEqual([{ in_use: 9_999, unfinished: 9_999, free: [5_000] }]);
  }, 600_000);

  it("the kept use and free slots follow a shrink, releases, an expiry and a growth, and the lowest free slot is still taken", async () => {
    const name = "resized";
    const acquire = async (holder: string, ttl_ms = 60_000) => suite.api("POST", `/v1/semaphores/${name}/acquire`, { holder, ttl_ms });
    expect((await suite.api("PUT", `/v1/semaphores/${name}`, { permits: 4 })).status).toBe(201);
    expect(await sql(suite.db, KEPT, [name])).toEqual([{ in_use: 0, unfinished: 0, free: [0, 1, 2, 3] }]);
    const held = [];
    for (let i = 0; i < 4; i++) held.push((await acquire(`h${i}`, i === 2 ? 1_000 : 60_000)).json);
    expect(held.map((p) => p.slot)).toEqual([0, 1, 2, 3]);
    // Shrink to 2 with 4 held: nothing free; releasing slots 0 and 3 leaves 2 in use of 2 (still full).
    expect((await suite.api("PUT", `/v1/semaphores/${name}`, { permits: 2 })).status).toBe(200);
    for (const slot of [0, 3]) expect((await suite.api("POST", `/v1/semaphores/${name}/release`, { permit_id: held[slot].permit_id })).status).toBe(204);
    expect(await sql(suite.db, KEPT, [name])).toEqual([{ in_use: 2, unfinished: 2, free: [0] }]);
    expect((await acquire("refused")).status).toBe(429);
    // Slot 2's claim expires (1 s TTL, moved into the past on the database clock): the next acquire
    // times it out and takes the lowest free slot, 0.
    await sql(suite.db, "UPDATE permits SET expires_at = now() - interval '1 second', claimed_at = now() - interval '2 seconds' WHERE id = $1", [
      held[2].permit_id,
    ]);
    const next = await acquire("after-expiry");
    expect(next.status).toBe(201);
    expect(next.json.slot).toBe(0);
    expect(await sql(suite.db, KEPT, [name])).toEqual([{ in_use: 2, unfinished: 2, free: [] }]);
    // Grow to 6: the free slots are those no claim holds (1 and 0 are held).
    expect((await suite.api("PUT", `/v1/semaphores/${name}`, { permits: 6 })).status).toBe(200);
    expect(await sql(suite.db, KEPT, [name])).toEqual([{ in_use: 2, unfinished: 2, free: [2, 3, 4, 5] }]);
    expect((await acquire("grown")).json.slot).toBe(2);
  });
});
