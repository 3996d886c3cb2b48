// Semaphores under real concurrency: simultaneous HTTP acquires, then the invariant checked in the database.
import { describe, expect, it } from "vitest";
import { lockKey } from "../../functions/core/lock-keys";
import { bindings, connect, servedApp, sql, whileHolding, withServedApp } from "../support";

const suite = servedApp("semaphores_burst");

const ACTIVE =
  "SELECT slot, holder, fencing_token FROM permits WHERE kind = 'semaphore' AND name = $1 AND released_at IS NULL AND timed_out_at IS NULL ORDER BY slot";

async function burst(name: string, n: number, tag: string) {
  const results = await Promise.all(
    Array.from({ length: n }, (_, i) => suite.api("POST", `/v1/semaphores/${name}/acquire`, { holder: `${tag}${i}`, ttl_ms: 60_000 })),
  );
  const counts: Record<number, number> = {};
  for (const r of results) counts[r.status] = (counts[r.status] ?? 0) + 1;
  console.log(`${n} acquires of ${name} by status:`, counts);
  return results;
}

describe("200 simultaneous acquires of a 4-permit semaphore", () => {
  it("exactly four 201s with slots 0–3; every refusal a 429 with Retry-After; four active claims in the database", async () => {
    expect((await suite.api("PUT", "/v1/semaphores/upstream", { permits: 4, default_ttl_ms: 90_000 })).status).toBe(201);
    const first = await burst("upstream", 200, "a");
    const won = first.filter((r) => r.status === 201);
    expect(won.map((r) => r.json.slot).sort()).toEqual([0, 1, 2, 3]);
    for (const r of first.filter((x) => x.status !== 201)) {
      // 429 = full (at once, never queued for a slot); 503 = the per-semaphore lock queue outlasted lock_timeout.
      expect([429, 503]).toContain(r.status);
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      if (r.status === 429) expect(r.json).toMatchObject({ type: "/problems/semaphore-full", permits: 4, in_use: 4 });
    }
    const active = await sql(suite.db, ACTIVE.replace("$1", "'upstream'"));
    expect(active).toEqual(
      won.map((r) => ({ slot: r.json.slot, holder: r.json.holder, fencing_token: String(r.json.fencing_token) })).sort((a, b) => a.slot - b.slot),
    );
    // Every attempt that was refused left no row behind.
    expect(await sql(suite.db, "SELECT count(*)::int AS n FROM permits WHERE name = 'upstream'")).toEqual([{ n: 4 }]);

    // All four released at once, then another burst: again exactly four, slots 0–3, with larger tokens.
    const released = await Promise.all(won.map((r) => suite.api("POST", "/v1/semaphores/upstream/release", { permit_id: r.json.permit_id })));
    expect(released.map((r) => r.status)).toEqual([204, 204, 204, 204]);
    const second = (await burst("upstream", 200, "b")).filter((r) => r.status === 201);
    expect(second.map((r) => r.json.slot).sort()).toEqual([0, 1, 2, 3]);
    const maxFirst = Math.max(...won.map((r) => r.json.fencing_token));
    for (const r of second) expect(r.json.fencing_token).toBeGreaterThan(maxFirst);
  });
});

describe("serialised per semaphore, not per table", () => {
  it("a semaphore whose lock is held does not hold up another one (no LOCK TABLE)", async () => {
    await suite.api("PUT", "/v1/semaphores/held", { permits: 2 });
    await suite.api("PUT", "/v1/semaphores/free", { permits: 2 });
    await whileHolding(suite.db, "SELECT pg_advisory_xact_lock($1::bigint)", [lockKey("semaphore", "held")], () =>
      withServedApp(bindings(suite.db, { LOCK_TIMEOUT_MS: "300" }), async (api) => {
        const [blocked, other] = await Promise.all([
          api("POST", "/v1/semaphores/held/acquire", { holder: "x" }),
          api("POST", "/v1/semaphores/free/acquire", { holder: "y" }),
        ]);
        expect(blocked.status).toBe(503);
        expect(blocked.json.type).toBe("/problems/lock-timeout");
        expect(blocked.headers.get("retry-after")).toBe("1");
        expect(other.status).toBe(201);
      }),
    );
    expect(await sql(suite.db, "SELECT holder FROM permits WHERE name IN ('held', 'free')")).toEqual([{ holder: "y" }]);
  });
});

describe("the partial unique index on its own", () => {
  it("20 raw concurrent inserts of the same active slot, skipping the lock → one row", async () => {
    await suite.api("PUT", "/v1/semaphores/raw", { permits: 5 });
    const attempts = await Promise.allSettled(
      Array.from({ length: 20 }, async (_, i) => {
        const c = await connect(suite.db);
        try {
          await c.query(
            "INSERT INTO permits (kind, name, slot, holder, fencing_token, ttl_ms, claimed_at, expires_at) VALUES ('semaphore', 'raw', 2, $1, nextval('admit_fencing_token'), 1000, now(), now() + interval '1 minute')",
            [`r${i}`],
          );
        } finally {
          await c.end();
        }
      }),
    );
    const codes = attempts.flatMap((a) => (a.status === "rejected" ? [(a.reason as { code?: string }).code] : []));
    expect(codes).toEqual(Array(19).fill("23505"));
    expect(await sql(suite.db, ACTIVE.replace("$1", "'raw'"))).toHaveLength(1);
  });
});
