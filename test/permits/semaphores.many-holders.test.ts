// A semaphore with thousands of holders (issue 28, item 7): an acquire must cost index look-ups, not
// a walk over the holders, or the queue behind the semaphore's lock outlives LOCK_TIMEOUT_MS and a
// semaphore with room refuses with 503. Real HTTP requests against real Postgres, checked in the
// database afterwards.
import { describe, expect, it } from "vitest";
import { servedApp, sql } from "../support";

const suite = servedApp("semaphores_many_holders");

const ACTIVE =
  "SELECT slot, holder, fencing_token::text FROM permits WHERE kind = 'semaphore' AND name = $1 AND released_at IS NULL AND timed_out_at IS NULL ORDER BY slot";

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
  }, 600_000);
});
