// Locks, leases, semaphores and seed 002 inside the real Workers runtime (wrangler dev / workerd),
// the Neon driver over the WebSocket bridge, one connection per request.
import { describe, expect, it } from "vitest";
import { sql, workerSuite } from "../support";

const suite = workerSuite("locks_runtime");

const statuses = (rs: Array<{ status: number }>) => rs.map((r) => r.status).sort();

describe("locks, leases and semaphores in wrangler dev", () => {
  it("30 simultaneous lease acquires → exactly one 201; renew and release by the owner only", async () => {
    const rs = await Promise.all(Array.from({ length: 30 }, (_, i) => suite.api("POST", "/v1/locks/rt-hot/acquire", { holder: `h${i}`, ttl_ms: 30_000 })));
    const won = rs.filter((r) => r.status === 201);
    expect(won).toHaveLength(1);
    expect(rs.every((r) => r.status === 201 || r.status === 409 || r.status === 503)).toBe(true);
    const lease = won[0].json;
    expect((await suite.api("GET", "/v1/locks/rt-hot")).json).toMatchObject({ held: true, holder: lease.holder, fencing_token: lease.fencing_token });
    expect((await suite.api("POST", "/v1/locks/rt-hot/renew", { lease_id: lease.lease_id, ttl_ms: 60_000 })).status).toBe(200);
    expect((await suite.api("POST", "/v1/locks/rt-hot/release", { lease_id: lease.lease_id })).status).toBe(204);
    expect((await suite.api("POST", "/v1/locks/rt-hot/release", { lease_id: lease.lease_id })).status).toBe(409);
    const next = await suite.api("POST", "/v1/locks/rt-hot/acquire", { holder: "later", ttl_ms: 1_000 });
    expect(next.json.fencing_token).toBeGreaterThan(lease.fencing_token);
  });

  it("40 simultaneous acquires of a 3-permit semaphore → three 201s with slots 0–2, the rest 429", async () => {
    expect((await suite.api("PUT", "/v1/semaphores/rt-sem", { permits: 3 })).status).toBe(201);
    const rs = await Promise.all(Array.from({ length: 40 }, (_, i) => suite.api("POST", "/v1/semaphores/rt-sem/acquire", { holder: `h${i}` })));
    const won = rs.filter((r) => r.status === 201);
    expect(won.map((r) => r.json.slot).sort()).toEqual([0, 1, 2]);
    for (const r of rs.filter((x) => x.status !== 201)) {
      expect([429, 503]).toContain(r.status);
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    }
    const active = await sql(suite.db, "SELECT count(*)::int AS n FROM permits WHERE name = 'rt-sem' AND released_at IS NULL AND timed_out_at IS NULL");
    expect(active).toEqual([{ n: 3 }]);
  });

  it("seed 002: two simultaneous generations for one subscription → 201 and 409; two subscriptions → both 201", async () => {
    const same = await Promise.all([
      suite.api("POST", "/v1/invoices/generate", { subscription_id: "SUB-RT", kind: "usage", work_ms: 2000 }),
      suite.api("POST", "/v1/invoices/generate", { subscription_id: "SUB-RT", kind: "recurring", work_ms: 2000 }),
    ]);
    expect(statuses(same)).toEqual([201, 409]);
    const different = await Promise.all([
      suite.api("POST", "/v1/invoices/generate", { subscription_id: "SUB-RT-1", kind: "usage", work_ms: 500 }),
      suite.api("POST", "/v1/invoices/generate", { subscription_id: "SUB-RT-2", kind: "usage", work_ms: 500 }),
    ]);
    expect(statuses(different)).toEqual([201, 201]);
    expect(await sql(suite.db, "SELECT subscription_id, count(*)::int AS n FROM invoices GROUP BY 1 ORDER BY 1")).toEqual([
      { subscription_id: "SUB-RT", n: 1 },
      { subscription_id: "SUB-RT-1", n: 1 },
      { subscription_id: "SUB-RT-2", n: 1 },
    ]);
  });

  it("the cron sweep marks expired permits timed out", async () => {
    await sql(suite.db, "SELECT admit_permit_acquire(0, 'lease', 'rt-crashed', 'ghost', 1000, 1000, now() - interval '1 hour')");
    const res = await fetch(`${suite.worker.url}/__scheduled?cron=*+*+*+*+*`);
    expect(res.status).toBe(200);
    let rows: unknown[] = [];
    for (let i = 0; i < 50; i++) {
      rows = await sql(suite.db, "SELECT holder FROM permits WHERE name = 'rt-crashed' AND timed_out_at IS NOT NULL");
      if (rows.length === 1) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(rows).toEqual([{ holder: "ghost" }]);
  });
});
