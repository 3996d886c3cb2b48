// Forwarding claims at the Postgres level: admit_webhook_forward_claim and _record called by many
// sessions at once, as many isolates and cron runs would. What must hold, checked in the database
// and in what each claimer got: no attempt (event, n) is claimed twice, no event has two attempts in
// flight at once, a lapsed lease is marked lost and made again, and with `ordered` only the oldest
// pending event of each value is ever claimable.
import { describe, expect, it } from "vitest";
import { connect, freshDatabase, sql } from "../support";
import { newSecret } from "./webhooks.support";

const FORWARD = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({ url: "http://127.0.0.1:9/x", timeout_ms: 1_000, retry_schedule_ms: [1_000], ordered: false, ...extra });

async function source(db: string, name: string, forward: string, orderingKey: string | null = null) {
  await sql(db, "SELECT admit_webhook_put_source($1, 'standard-webhooks', $2, NULL, 300, $3, NULL, NULL, $4::jsonb, $5, NULL)", [
    name,
    newSecret(),
    orderingKey,
    forward,
    newSecret(),
  ]);
}

/** Stores `n` events of `source` through the receiver's function, in order; `value(i)` their ordering value. */
async function events(db: string, name: string, n: number, value: (i: number) => string | null = () => null): Promise<string[]> {
  const ids: string[] = [];
  const c = await connect(db);
  try {
    for (let i = 0; i < n; i++) {
      const { rows } = await c.query("SELECT admit_webhook_receive($1, $2, NULL, NULL, $3, $4, NULL, 1000, '{}'::text[], NULL, NULL) AS r", [
        name,
        `m-${i}`,
        JSON.stringify({ i }),
        value(i),
      ]);
      expect(rows[0].r.forward).toBe(true);
      ids.push(rows[0].r.id);
    }
  } finally {
    await c.end();
  }
  return ids;
}

type Claimed = { id: string; attempt: number; lease: string; ordering_value: string | null };

/** `workers` sessions, each claiming `limit` at a time and recording `outcome(a)` for each, until none is claimable `idleRounds` times running. */
async function race(db: string, name: string, workers: number, limit: number, outcome: (a: Claimed) => string, idleRounds = 3) {
  const got: Array<Claimed & { worker: number; claimedAt: number; recordedAt: number }> = [];
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      const c = await connect(db);
      try {
        let idle = 0;
        while (idle < idleRounds) {
          const { rows } = await c.query("SELECT admit_webhook_forward_claim($1, NULL, $2, 'schedule') AS r", [name, limit]);
          const batch = rows[0].r as Claimed[];
          if (batch.length === 0) {
            idle++;
            await new Promise((r) => setTimeout(r, 20));
            continue;
          }
          idle = 0;
          const claimedAt = performance.now();
          for (const a of batch) {
            const o = outcome(a);
            await c.query("SELECT admit_webhook_forward_record($1, $2, $3, $4, 1, 'x', NULL, NULL)", [a.id, a.lease, o === "delivered" ? 200 : 500, o]);
            got.push({ ...a, worker: w, claimedAt, recordedAt: performance.now() });
          }
        }
      } finally {
        await c.end();
      }
    }),
  );
  return got;
}

describe("forwarding claims (Postgres, many sessions at once)", () => {
  it("8 sessions claiming 300 events at once: each event claimed once, every attempt (event, n) once, all delivered", async () => {
    const db = await freshDatabase("forward_claims");
    await source(db, "race", FORWARD());
    const ids = await events(db, "race", 300);
    const got = await race(db, "race", 8, 5, () => "delivered");
    expect(got).toHaveLength(300);
    expect(new Set(got.map((a) => a.id))).toEqual(new Set(ids));
    expect(new Set(got.map((a) => a.worker)).size).toBeGreaterThan(1); // they did race
    const [row] = await sql<{ attempts: number; distinct: number; delivered: number }>(
      db,
      "SELECT (SELECT count(*)::int FROM webhook_attempts) AS attempts, (SELECT count(DISTINCT (event_id, n))::int FROM webhook_attempts) AS distinct, (SELECT count(*)::int FROM webhook_events WHERE delivery_state = 'delivered') AS delivered",
    );
    expect(row).toEqual({ attempts: 300, distinct: 300, delivered: 300 });
  });

  it("failing attempts retried by racing sessions: never two of one event in flight, attempts numbered 1, 2 without a gap, then failed", async () => {
    const db = await freshDatabase("forward_claims_retry");
    await source(db, "retry", FORWARD({ retry_schedule_ms: [1_000] }));
    await events(db, "retry", 40);
    await sql(db, "UPDATE webhook_events SET next_attempt_at = now()"); // all due at once
    // Every attempt fails; the retry comes due a second later (jitter up to 20 %): keep claiming past it.
    const got = await race(db, "retry", 6, 3, () => "failed", 150);
    expect(got).toHaveLength(80);
    const rows = await sql<{ event_id: string; ns: number[]; overlaps: number }>(
      db,
      `SELECT a.event_id, array_agg(a.n ORDER BY a.n) AS ns,
              (SELECT count(*)::int FROM webhook_attempts x JOIN webhook_attempts y ON x.event_id = y.event_id AND x.n < y.n
                WHERE x.event_id = a.event_id AND y.started_at < x.finished_at) AS overlaps
         FROM webhook_attempts a GROUP BY a.event_id`,
    );
    expect(rows).toHaveLength(40);
    for (const r of rows) expect([r.ns, r.overlaps]).toEqual([[1, 2], 0]);
    expect(await sql(db, "SELECT count(*)::int AS n FROM webhook_events WHERE delivery_state = 'failed'")).toEqual([{ n: 40 }]);
  });

  it("a lease that lapses (its sender died) is marked lost and made again, counting as a failed attempt; the late sender's record changes nothing", async () => {
    const db = await freshDatabase("forward_claims_lease");
    await source(db, "lease", FORWARD());
    const [id] = await events(db, "lease", 1);
    const [{ r: first }] = await sql<{ r: Claimed[] }>(db, "SELECT admit_webhook_forward_claim('lease', NULL, 10, 'received') AS r");
    expect(first.map((a) => a.attempt)).toEqual([1]);
    // While the lease is live nobody else gets the event.
    expect((await sql<{ r: Claimed[] }>(db, "SELECT admit_webhook_forward_claim(NULL, NULL, 10, 'schedule') AS r"))[0].r).toEqual([]);
    await sql(db, "UPDATE webhook_events SET in_flight_until = now() - interval '1 second' WHERE id = $1", [id]);
    const [{ r: second }] = await sql<{ r: Claimed[] }>(db, "SELECT admit_webhook_forward_claim('lease', NULL, 10, 'schedule') AS r");
    expect(second.map((a) => a.attempt)).toEqual([2]);
    const [{ x: late }] = await sql<{ x: { recorded: boolean } }>(db, "SELECT admit_webhook_forward_record($1, $2, 200, 'delivered', 5, '', NULL, NULL) AS x", [
      id,
      first[0].lease,
    ]);
    expect(late.recorded).toBe(false);
    expect(await sql(db, "SELECT n, outcome FROM webhook_attempts ORDER BY n")).toEqual([
      { n: 1, outcome: "lost" },
      { n: 2, outcome: null },
    ]);
    expect(await sql(db, "SELECT delivery_state FROM webhook_events")).toEqual([{ delivery_state: "pending" }]);
    // A lost attempt counts as a failed one: the schedule ([1 s]) is spent when the second lapses too,
    // and the event is failed by the claim that finds it, not claimed a third time.
    await sql(db, "UPDATE webhook_events SET in_flight_until = now() - interval '1 second' WHERE id = $1", [id]);
    expect((await sql<{ r: Claimed[] }>(db, "SELECT admit_webhook_forward_claim('lease', NULL, 10, 'schedule') AS r"))[0].r).toEqual([]);
    expect(await sql(db, "SELECT n, outcome FROM webhook_attempts ORDER BY n")).toEqual([
      { n: 1, outcome: "lost" },
      { n: 2, outcome: "lost" },
    ]);
    expect(await sql(db, "SELECT delivery_state, delivery_attempts FROM webhook_events")).toEqual([{ delivery_state: "failed", delivery_attempts: 2 }]);
  });

  it("ordered: 6 sessions over 5 values × 20 events, some attempts failing: per value, each event claimed only after the one before it was delivered", async () => {
    const db = await freshDatabase("forward_claims_ordered");
    await source(db, "ord", FORWARD({ ordered: true, retry_schedule_ms: [1_000, 1_000, 1_000, 1_000, 1_000, 1_000, 1_000, 1_000] }), "/k");
    await events(db, "ord", 100, (i) => `v${i % 5}`);
    let n = 0;
    const got = await race(db, "ord", 6, 4, () => (n++ % 4 === 3 ? "failed" : "delivered"), 200);
    const delivered = await sql<{ ordering_value: string; seq: string; first_claim: Date; delivered_at: Date }>(
      db,
      `SELECT e.ordering_value, e.seq::text, (SELECT min(started_at) FROM webhook_attempts a WHERE a.event_id = e.id) AS first_claim,
              (SELECT finished_at FROM webhook_attempts a WHERE a.event_id = e.id AND a.outcome = 'delivered') AS delivered_at
         FROM webhook_events e ORDER BY e.ordering_value, e.seq`,
    );
    expect(delivered.filter((d) => d.delivered_at === null)).toEqual([]);
    expect(got.some((a) => a.attempt > 1)).toBe(true); // some were retried
    for (let i = 1; i < delivered.length; i++) {
      const [prev, cur] = [delivered[i - 1], delivered[i]];
      if (prev.ordering_value !== cur.ordering_value) continue;
      expect(cur.first_claim.getTime(), `${cur.ordering_value} seq ${cur.seq}`).toBeGreaterThanOrEqual(prev.delivered_at.getTime());
    }
  });
});
