// Rate limits under real simultaneous HTTP requests against real Postgres, invariants checked in the
// database afterwards; and the sliding window's documented approximation bound on a generated workload.
import { describe, expect, it } from "vitest";
import { bindings, connect, servedApp, sql, until, whileHolding, withServedApp } from "../support";
import { tallyFlushed } from "./helpers";

// Every check reaches Postgres here (the deny cache has its own suite), so attempted counts are exact.
const suite = servedApp("ratelimits_burst", { RATELIMIT_DENY_CACHE: "off" });

const DAY = 86_400_000;

/**
 * POST /v1/ratelimits/check, retrying a 503 (nothing was applied: e.g. the test Postgres ran out of
 * connections under the burst) after a short pause, as a client honouring Retry-After would.
 */
let retried503 = 0;
async function check(policy: string, key: string, cost = 1) {
  for (let attempt = 0; ; attempt++) {
    const res = await suite.api("POST", "/v1/ratelimits/check", { policy, key, cost });
    if (res.status !== 503 || attempt >= 20) return res;
    retried503++;
    await new Promise((r) => setTimeout(r, 50 + Math.random() * 200));
  }
}

async function putPolicy(name: string, body: Record<string, unknown>) {
  const res = await suite.api("PUT", `/v1/ratelimits/policies/${name}`, body);
  expect([200, 201]).toContain(res.status);
}

function tally(results: Array<{ status: number }>) {
  const counts: Record<number, number> = {};
  for (const r of results) counts[r.status] = (counts[r.status] ?? 0) + 1;
  return counts;
}

describe("simultaneous bursts on one key", () => {
  it("fixed window: 500 simultaneous checks, limit 50 → exactly 50 allowed, 450 denied; usage reads 50 / 500 / 450", async () => {
    await putPolicy("fw", { algorithm: "fixed_window", limit: 50, window_ms: 366 * DAY });
    retried503 = 0;
    const results = await Promise.all(Array.from({ length: 500 }, () => check("fw", "cust")));
    console.log("fixed window burst:", tally(results), "503s retried:", retried503);
    expect(tally(results)).toEqual({ 200: 50, 429: 450 });
    expect(results.every((r) => r.json.remaining >= 0)).toBe(true);
    expect(
      results
        .filter((r) => r.status === 200)
        .map((r) => r.json.remaining)
        .sort((a, b) => a - b),
    ).toEqual(Array.from({ length: 50 }, (_, i) => i));
    await tallyFlushed(suite.db);
    const usage = await suite.api("GET", "/v1/ratelimits/usage?policy=fw&key=cust");
    expect(usage.json).toMatchObject({ admitted: 50, attempted: 500, rejected: 450, consumed: 50 });
    expect(await sql(suite.db, "SELECT consumed::int, admitted::int, attempted::int, rejected::int FROM ratelimit_counters WHERE policy = 'fw'")).toEqual([
      { consumed: 50, admitted: 50, attempted: 500, rejected: 450 },
    ]);
  }, 240_000);

  it("token bucket (GCRA): 300 simultaneous checks, capacity 100 → exactly 100 allowed; the stored TAT is exactly 100 emission intervals after the first call to take the row", async () => {
    await putPolicy("gcra", { algorithm: "token_bucket", limit: 100, window_ms: DAY, log: true });
    const results = await Promise.all(Array.from({ length: 300 }, () => check("gcra", "cust")));
    expect(tally(results)).toEqual({ 200: 100, 429: 200 });
    expect(results.every((r) => r.json.remaining >= 0 && r.json.remaining <= 100)).toBe(true);
    // T = window/limit = 864 s, far longer than the burst: no refill happened during it, so the first
    // call to take the row set TAT = its now + T and each later admit added exactly T. TAT is therefore
    // exactly one window after the database time of one admitted call (the log holds each call's time).
    const [row] = await sql<{ admitted: number; rejected: number; logged: number; anchored: boolean }>(
      suite.db,
      `SELECT c.admitted::int AS admitted, c.rejected::int AS rejected,
              (SELECT count(*)::int FROM ratelimit_log WHERE policy = 'gcra') AS logged,
              EXISTS (SELECT 1 FROM ratelimit_log l WHERE l.policy = 'gcra' AND l.allowed AND admit_ts_to_ms(l.at) = c.tat - $1) AS anchored
         FROM ratelimit_counters c WHERE c.policy = 'gcra'`,
      [DAY],
    );
    expect(row).toEqual({ admitted: 100, rejected: 200, logged: 300, anchored: true });
  }, 240_000);

  it("sliding window: 300 simultaneous checks, limit 60, empty previous window → exactly 60 allowed", async () => {
    await putPolicy("sw", { algorithm: "sliding_window", limit: 60, window_ms: 366 * DAY });
    const results = await Promise.all(Array.from({ length: 300 }, () => check("sw", "cust")));
    expect(tally(results)).toEqual({ 200: 60, 429: 240 });
  }, 240_000);

  it("mixed costs: 200 simultaneous checks costing 1–5 against 100 units → admitted units ≤ 100, equal to what the counter holds; denied calls consumed nothing", async () => {
    await putPolicy("mix", { algorithm: "fixed_window", limit: 100, window_ms: 366 * DAY });
    const costs = Array.from({ length: 200 }, (_, i) => 1 + ((i * 7) % 5));
    const results = await Promise.all(costs.map((c) => check("mix", "cust", c)));
    expect(Object.keys(tally(results)).sort()).toEqual(["200", "429"]);
    const admittedUnits = results.reduce((s, r, i) => s + (r.status === 200 ? costs[i] : 0), 0);
    expect(admittedUnits).toBeLessThanOrEqual(100);
    expect(admittedUnits).toBeGreaterThanOrEqual(96); // only a cost above what is left can be refused while units remain
    await tallyFlushed(suite.db);
    const [row] = await sql<{ consumed: number; admitted: number; attempted: number }>(
      suite.db,
      "SELECT consumed::int, admitted::int, attempted::int FROM ratelimit_counters WHERE policy = 'mix'",
    );
    expect(row).toEqual({ consumed: admittedUnits, admitted: results.filter((r) => r.status === 200).length, attempted: 200 });
    expect(results.every((r) => r.json.remaining >= 0)).toBe(true);
  }, 240_000);

  it("many keys at once never wait for each other's rows: 200 checks over 20 keys, limit 5 → exactly 5 per key", async () => {
    await putPolicy("keys", { algorithm: "fixed_window", limit: 5, window_ms: 366 * DAY });
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => check("keys", `k${i % 20}`)));
    const perKey = new Map<string, number>();
    for (const r of results) if (r.status === 200) perKey.set(r.json.key, (perKey.get(r.json.key) ?? 0) + 1);
    expect([...perKey.values()]).toEqual(Array(20).fill(5));
  }, 240_000);
});

describe("sliding window: the documented approximation bound on a generated workload", () => {
  it("S(t) ≤ L + P·f for every admission, S(t) + cost > L − P·(1 − f) for every denial, and each aligned window ≤ L", async () => {
    const W = 1000;
    const L = 20;
    await putPolicy("approx", { algorithm: "sliding_window", limit: L, window_ms: W });
    const t0 = Date.parse("2033-01-01T00:00:00Z"); // a multiple of W: aligned windows start at t0 + k·W
    // Phases of different rates (quiet, bursty, steady over the limit), costs 1–3: deterministic PRNG.
    let seed = 12345;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const events: Array<{ t: number; cost: number }> = [];
    let t = 0;
    for (let i = 0; i < 1500; i++) {
      const phase = Math.floor(i / 250) % 3;
      const meanGap = phase === 0 ? 60 : phase === 1 ? 8 : 30;
      t += Math.floor(-Math.log(1 - rand()) * meanGap);
      events.push({ t, cost: rand() < 0.8 ? 1 : 1 + Math.floor(rand() * 3) });
    }
    const c = await connect(suite.db);
    const decided: Array<{ t: number; cost: number; allowed: boolean }> = [];
    try {
      for (const e of events) {
        const { rows } = await c.query("SELECT (admit_ratelimit_check('approx', 'k', $1::integer, NULL, 1000, $2::timestamptz)->>'allowed')::boolean AS a", [
          e.cost,
          new Date(t0 + e.t).toISOString(),
        ]);
        decided.push({ ...e, allowed: rows[0].a });
      }
    } finally {
      await c.end();
    }
    const admitted = decided.filter((d) => d.allowed);
    // Units admitted among the first n decisions with time in (from, to], or in the aligned window [start, start + W).
    const unitsIn = (n: number, from: number, to: number) => decided.slice(0, n).reduce((s, d) => s + (d.allowed && d.t > from && d.t <= to ? d.cost : 0), 0);
    const unitsInWindow = (start: number) => admitted.reduce((s, d) => s + (d.t >= start && d.t < start + W ? d.cost : 0), 0);
    let worstOver = 0;
    let worstUnder = 0;
    decided.forEach((d, i) => {
      const ws = Math.floor(d.t / W) * W;
      const f = (d.t - ws) / W;
      const P = unitsInWindow(ws - W);
      const S = unitsIn(i + 1, d.t - W, d.t); // the true sliding-window count at t, this call included if admitted
      if (d.allowed) {
        expect(S).toBeLessThanOrEqual(L + P * f + 1e-9);
        expect(S).toBeLessThan(2 * L);
        worstOver = Math.max(worstOver, S - L);
      } else {
        expect(S + d.cost).toBeGreaterThan(L - P * (1 - f) - 1e-9);
        if (S + d.cost <= L) worstUnder = Math.max(worstUnder, L - S - d.cost + 1);
      }
    });
    for (let ws = 0; ws <= t; ws += W) expect(unitsInWindow(ws)).toBeLessThanOrEqual(L);
    const denied = decided.length - admitted.length;
    console.log(
      `sliding window approximation on ${decided.length} calls (${admitted.length} admitted, ${denied} denied): worst overshoot of the true sliding count ${worstOver} units over L=${L}; worst false denial ${worstUnder} units below L`,
    );
    expect(admitted.length).toBeGreaterThan(200);
    expect(denied).toBeGreaterThan(100);
  }, 240_000);
});

// Identical PUTs at the same moment (issue 18, item 4). The table lock lines all ten up on their
// write, then lets them go together: the interleaving that used to lose, every time.
async function tenAtOnce<T>(table: string, send: (i: number) => Promise<T>) {
  let pending: Promise<T[]> | undefined;
  await whileHolding(suite.db, `LOCK TABLE ${table} IN SHARE MODE`, [], async () => {
    pending = Promise.all(Array.from({ length: 10 }, (_, i) => send(i)));
    await until(
      async () => {
        const [{ n }] = await sql<{ n: number }>(
          suite.db,
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%admit_ratelimit_put%'",
        );
        return n === 10;
      },
      10_000,
      "ten PUTs waiting on the table",
    );
  });
  return pending!;
}

describe("identical simultaneous PUTs are idempotent", () => {
  it("ten identical override writes released together, 30 rounds: never a deadlock (40P01), one created and nine updated each time", async () => {
    // At the SQL function, ten sessions at once behind the table lock of tenAtOnce():
    // the exclusion constraint's checks deadlocked in about one round in four before the
    // (policy, key) advisory lock.
    await suite.api("PUT", "/v1/ratelimits/policies/put-race-sql", { algorithm: "fixed_window", limit: 10, window_ms: 60_000 });
    const clients = await Promise.all(Array.from({ length: 10 }, () => connect(suite.db)));
    const outcomes: Record<string, number> = {};
    try {
      for (let round = 0; round < 30; round++) {
        const key = `round-${round}`;
        const statuses = (
          await tenAtOnce("ratelimit_overrides", (i) =>
            clients[i].query("SELECT admit_ratelimit_put_override('put-race-sql', $1, 1000, '2026-01-01', '2027-01-01') AS r", [key]).then(
              (r: { rows: { r: { status: string } }[] }) => r.rows[0].r.status,
              (e: { code?: string }) => `error ${e.code}`,
            ),
          )
        ).sort();
        for (const st of statuses) outcomes[st] = (outcomes[st] ?? 0) + 1;
        expect(statuses, `round ${round}`).toEqual(["created", ...Array(9).fill("updated")]);
      }
    } finally {
      for (const c of clients) await c.end();
    }
    console.log("override writes:", outcomes);
  }, 120_000);

  it("ten identical override PUTs: all succeed, exactly one 201, one override row", async () => {
    expect((await suite.api("PUT", "/v1/ratelimits/policies/put-race", { algorithm: "fixed_window", limit: 10, window_ms: 60_000 })).status).toBe(201);
    const body = { limit: 1000, valid_from: "2026-01-01T00:00:00Z", valid_to: "2027-01-01T00:00:00Z" };
    const results = await tenAtOnce("ratelimit_overrides", () => suite.api("PUT", "/v1/ratelimits/policies/put-race/overrides/cust", body));
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    for (const r of results)
      expect(r.json).toMatchObject({ policy: "put-race", key: "cust", limit: 1000, valid_from: body.valid_from, valid_to: body.valid_to });
    expect(await sql(suite.db, "SELECT quota FROM ratelimit_overrides WHERE policy = 'put-race' AND key = 'cust'")).toEqual([{ quota: 1000 }]);
    // A different overlapping period is still a conflict.
    const other = await suite.api("PUT", "/v1/ratelimits/policies/put-race/overrides/cust", { ...body, valid_from: "2026-06-01T00:00:00Z" });
    expect(other.status).toBe(409);
    expect(other.json.type).toBe("/problems/override-conflict");
  });

  it("ten simultaneous creates of one policy: exactly one 201, the rest 200", async () => {
    const body = { algorithm: "token_bucket", limit: 7, window_ms: 1000 };
    const results = await tenAtOnce("ratelimit_policies", () => suite.api("PUT", "/v1/ratelimits/policies/create-race", body));
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201]);
    for (const r of results) expect(r.json).toMatchObject({ name: "create-race", ...body });
  });
});

// Issue 28, item 4: an override PUT racing the DELETE of its policy. Two sessions, in the order
// that lost: the delete has run but not committed, the PUT arrives and waits on the policy, the
// delete commits. Before the fix the PUT had read the policy without a lock, its insert's foreign
// key check waited on the deleted row and failed with 23503: 500 /problems/internal.
describe("an override PUT racing the DELETE of its policy", () => {
  /** Until one statement calling `fn` waits on a lock. */
  const waitingOnLock = (fn: string) =>
    until(
      async () =>
        (
          await sql<{ n: number }>(
            suite.db,
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%' || $1 || '%'",
            [fn],
          )
        )[0].n === 1,
      10_000,
      `${fn} waiting on a lock`,
    );
  const override = { limit: 50, valid_from: "2026-01-01T00:00:00Z" };

  it("the delete commits while the PUT waits: the PUT is the policy's 404, nothing is left behind", async () => {
    await putPolicy("del-race", { algorithm: "fixed_window", limit: 10, window_ms: 60_000 });
    const deleter = await connect(suite.db);
    try {
      await deleter.query("BEGIN");
      await deleter.query("SELECT admit_ratelimit_delete_policy('del-race')");
      const put = suite.api("PUT", "/v1/ratelimits/policies/del-race/overrides/cust", override);
      await waitingOnLock("admit_ratelimit_put_override");
      await deleter.query("COMMIT");
      const res = await put;
      expect([res.status, res.json.type]).toEqual([404, "/problems/not-found"]);
      expect(res.json.detail).toContain("del-race");
    } finally {
      await deleter.end();
    }
    expect(await sql(suite.db, "SELECT count(*)::int AS n FROM ratelimit_overrides WHERE policy = 'del-race'")).toEqual([{ n: 0 }]);
  });

  it("the PUT commits first: the DELETE waits for it and takes the override with the policy", async () => {
    await putPolicy("del-race-2", { algorithm: "fixed_window", limit: 10, window_ms: 60_000 });
    const writer = await connect(suite.db);
    try {
      await writer.query("BEGIN");
      await writer.query("SELECT admit_ratelimit_put_override('del-race-2', 'cust', 50, '2026-01-01', NULL)");
      const del = suite.api("DELETE", "/v1/ratelimits/policies/del-race-2");
      await waitingOnLock("admit_ratelimit_delete_policy");
      await writer.query("COMMIT");
      expect((await del).status).toBe(204);
    } finally {
      await writer.end();
    }
    expect(await sql(suite.db, "SELECT count(*)::int AS n FROM ratelimit_overrides WHERE policy = 'del-race-2'")).toEqual([{ n: 0 }]);
  });

  it("a PUT that waits on the policy longer than LOCK_TIMEOUT_MS is a 503 lock-timeout, not a 504 at the budget", async () => {
    await putPolicy("del-race-3", { algorithm: "fixed_window", limit: 10, window_ms: 60_000 });
    const env = bindings(suite.db, { RATELIMIT_DENY_CACHE: "off", DB_BUDGET_MS: "4000", LOCK_TIMEOUT_MS: "300" });
    await whileHolding(suite.db, "SELECT 1 FROM ratelimit_policies WHERE name = 'del-race-3' FOR UPDATE", [], () =>
      withServedApp(env, async (api) => {
        const res = await api("PUT", "/v1/ratelimits/policies/del-race-3/overrides/cust", override);
        expect([res.status, res.json.type, res.headers.get("retry-after")]).toEqual([503, "/problems/lock-timeout", "1"]);
      }),
    );
    expect(await sql(suite.db, "SELECT count(*)::int AS n FROM ratelimit_overrides WHERE policy = 'del-race-3'")).toEqual([{ n: 0 }]);
  });
});
