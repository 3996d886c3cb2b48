// Semaphore acquires in flight together go to Postgres as one statement (functions/core/coalesce/,
// admit_permit_acquire_batch in schema/000102), against real Postgres with real simultaneous requests:
// still exactly `permits` holders, on the lowest free slots, each with its own fencing token.
import { describe, expect, it } from "vitest";
import { acquireCoalescing } from "../../functions/permits/sql";
import { servedApp, sql } from "../support";

const suite = servedApp("semaphores_coalesce", { COALESCE: "on" });

describe("semaphore acquires in flight together go to Postgres as one statement", () => {
  it("400 simultaneous acquires of 4 permits and of 6 semaphores of their own: exactly 4 × 201 on slots 0–3, every other semaphore's first acquire 201", async () => {
    expect((await suite.api("PUT", "/v1/semaphores/co-four", { permits: 4, default_ttl_ms: 300_000 })).status).toBe(201);
    for (let s = 0; s < 6; s++) expect((await suite.api("PUT", `/v1/semaphores/co-own-${s}`, { permits: 1, default_ttl_ms: 300_000 })).status).toBe(201);
    const before = { ...acquireCoalescing };
    const results = await Promise.all(
      Array.from({ length: 406 }, (_, i) => suite.api("POST", `/v1/semaphores/${i < 400 ? "co-four" : `co-own-${i - 400}`}/acquire`, { holder: `w${i}` })),
    );
    const four = results.slice(0, 400);
    expect(
      four
        .filter((r) => r.status === 201)
        .map((r) => r.json.slot)
        .sort(),
    ).toEqual([0, 1, 2, 3]);
    expect(four.filter((r) => r.status === 429)).toHaveLength(396);
    expect(results.slice(400).map((r) => r.status)).toEqual(Array(6).fill(201));
    const tokens = results.filter((r) => r.status === 201).map((r) => r.json.fencing_token);
    expect(new Set(tokens).size).toBe(10);
    const live = await sql<{ id: string }>(suite.db, "SELECT id::text FROM permits WHERE kind = 'semaphore' AND name = 'co-four' AND released_at IS NULL");
    expect(live.map((p) => p.id).sort()).toEqual(
      four
        .filter((r) => r.status === 201)
        .map((r) => r.json.permit_id)
        .sort(),
    );
    console.log("semaphore burst:", { alone: acquireCoalescing.alone - before.alone, batches: acquireCoalescing.batches - before.batches });
    expect(acquireCoalescing.batches - before.batches).toBeGreaterThan(0);
  }, 120_000);
});
