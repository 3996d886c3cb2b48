// Rate limits over HTTP and at the SQL function (with the database-side clock input `p_now` moved
// instead of sleeping): policies, check semantics and headers, overrides, the token bucket, refund,
// usage and the request log.
import { describe, expect, it } from "vitest";
import { MAX_WINDOW_MS } from "../../functions/ratelimits/schemas";
import { connect, roomInDay, roomInWindow, servedApp, sql } from "../support";
import { checkAt, DAY, ratelimitApi, tallyFlushed } from "./helpers";

// The deny cache is exercised in ratelimits.cache.test.ts; here every check reaches Postgres.
const suite = servedApp("ratelimits", { RATELIMIT_DENY_CACHE: "off" });
const { putPolicy, check } = ratelimitApi(suite);
describe("policies", () => {
  it("PUT creates (201) then replaces (200); GET reads; DELETE removes (204, then 404)", async () => {
    const created = await suite.api("PUT", "/v1/ratelimits/policies/p1", { algorithm: "fixed_window", limit: 10, window_ms: 60_000 });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ name: "p1", algorithm: "fixed_window", limit: 10, window_ms: 60_000, log: false, history_ms: 7 * DAY });
    const replaced = await suite.api("PUT", "/v1/ratelimits/policies/p1", { algorithm: "token_bucket", limit: 5, window_ms: 1000, log: true });
    expect(replaced.status).toBe(200);
    expect((await suite.api("GET", "/v1/ratelimits/policies/p1")).json).toMatchObject({ algorithm: "token_bucket", limit: 5, window_ms: 1000, log: true });
    expect((await suite.api("DELETE", "/v1/ratelimits/policies/p1")).status).toBe(204);
    expect((await suite.api("GET", "/v1/ratelimits/policies/p1")).status).toBe(404);
    expect((await suite.api("DELETE", "/v1/ratelimits/policies/p1")).status).toBe(404);
  });

  it("validation: positive integers, window 1 ms … 366 days, known algorithm, header-safe name → else 422 with field errors", async () => {
    const bad = [
      { algorithm: "fixed_window", limit: 0, window_ms: 1000 },
      { algorithm: "fixed_window", limit: 1.5, window_ms: 1000 },
      { algorithm: "fixed_window", limit: 10, window_ms: 0 },
      { algorithm: "fixed_window", limit: 10, window_ms: MAX_WINDOW_MS + 1 },
      { algorithm: "leaky", limit: 10, window_ms: 1000 },
      { limit: 10, window_ms: 1000 },
    ];
    for (const body of bad) {
      const res = await suite.api("PUT", "/v1/ratelimits/policies/v", body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.json.errors.length).toBeGreaterThan(0);
    }
    expect((await suite.api("PUT", "/v1/ratelimits/policies/v", { algorithm: "fixed_window", limit: 1, window_ms: MAX_WINDOW_MS })).status).toBe(201);
    expect((await suite.api("PUT", "/v1/ratelimits/policies/v", { algorithm: "fixed_window", limit: 1, window_ms: 1 })).status).toBe(200);
    expect((await suite.api("PUT", `/v1/ratelimits/policies/${encodeURIComponent('a"b')}`, { algorithm: "fixed_window", limit: 1, window_ms: 1 })).status).toBe(
      422,
    );
    expect((await suite.api("POST", "/v1/ratelimits/check", { policy: "v", key: "" })).status).toBe(422);
    expect((await suite.api("POST", "/v1/ratelimits/check", { policy: "v", key: "k", cost: -1 })).status).toBe(422);
  });
});

describe("check", () => {
  it("fixed window: 200 with body and IETF headers, then 429 with Retry-After; denied calls consume nothing", async () => {
    await putPolicy("api", { algorithm: "fixed_window", limit: 3, window_ms: DAY });
    await roomInDay();
    const first = await check("api", "cust-1");
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ allowed: true, policy: "api", key: "cust-1", limit: 3, remaining: 2 });
    expect(first.json.retry_after_ms).toBeUndefined();
    expect(first.json.reset_ms).toBeGreaterThan(0);
    expect(first.json.reset_ms).toBeLessThanOrEqual(DAY);
    expect(first.headers.get("ratelimit-policy")).toBe('"api";q=3;w=86400');
    expect(first.headers.get("ratelimit")).toBe(`"api";r=2;t=${Math.ceil(first.json.reset_ms / 1000)}`);
    expect(first.headers.get("retry-after")).toBeNull();
    expect((await check("api", "cust-1", 2)).json.remaining).toBe(0);
    for (let i = 0; i < 3; i++) {
      const denied = await check("api", "cust-1");
      expect(denied.status).toBe(429);
      expect(denied.headers.get("content-type")).toMatch(/^application\/json/);
      expect(denied.json).toMatchObject({ allowed: false, limit: 3, remaining: 0 });
      expect(denied.json.retry_after_ms).toBeGreaterThan(0);
      expect(denied.headers.get("retry-after")).toBe(String(Math.ceil(denied.json.retry_after_ms / 1000)));
      expect(denied.headers.get("ratelimit")).toMatch(/^"api";r=0;t=\d+$/);
    }
    await tallyFlushed(suite.db);
    const [row] = await sql<{ consumed: string; admitted: number; attempted: number; rejected: number }>(
      suite.db,
      "SELECT consumed, admitted::int, attempted::int, rejected::int FROM ratelimit_counters WHERE policy = 'api' AND key = 'cust-1'",
    );
    expect(row).toEqual({ consumed: "3", admitted: 2, attempted: 5, rejected: 3 });
    // Other keys are untouched.
    expect((await check("api", "cust-2")).json.remaining).toBe(2);
  });

  it("a cost that does not fit is refused without consuming; a smaller one still fits; cost above the limit has no Retry-After", async () => {
    await putPolicy("cost", { algorithm: "fixed_window", limit: 10, window_ms: DAY });
    await roomInDay();
    expect((await check("cost", "k", 7)).json.remaining).toBe(3);
    const tooBig = await check("cost", "k", 4);
    expect(tooBig.status).toBe(429);
    expect(tooBig.json.remaining).toBe(3);
    expect((await check("cost", "k", 3)).status).toBe(200);
    const never = await check("cost", "other", 11);
    expect(never.status).toBe(429);
    expect(never.json.retry_after_ms).toBeUndefined();
    expect(never.headers.get("retry-after")).toBeNull();
  });

  it("the largest cost on every algorithm, with a long window: 429 without Retry-After, never a 422, on a first check and on an existing counter", async () => {
    // token_bucket once computed the refused check's row expiry as now + cost·(window/limit): a
    // billion days past now, out of Postgres's timestamp range, answered 422 "the database rejected a value".
    for (const algorithm of ["token_bucket", "fixed_window", "sliding_window"]) {
      await putPolicy(`huge-${algorithm}`, { algorithm, limit: 1, window_ms: MAX_WINDOW_MS });
      for (const attempt of ["first", "again"]) {
        const r = await check(`huge-${algorithm}`, "k", 1_000_000_000);
        expect([r.status, r.json.allowed], `${algorithm} ${attempt}: ${r.text}`).toEqual([429, false]);
        expect(r.headers.get("retry-after"), algorithm).toBeNull();
      }
      expect((await check(`huge-${algorithm}`, "k", 1)).status, algorithm).toBe(200);
      const multi = await suite.api("POST", "/v1/ratelimits/check", { policies: [`huge-${algorithm}`], key: "m", cost: 1_000_000_000 });
      expect(multi.status, `${algorithm} multi: ${multi.text}`).toBe(429);
    }
  });

  it("cost 0 peeks: consumes nothing, 200 while one unit fits, 429 once none does", async () => {
    await putPolicy("peek", { algorithm: "fixed_window", limit: 2, window_ms: DAY });
    await roomInDay();
    for (let i = 0; i < 3; i++) expect((await check("peek", "k", 0)).json).toMatchObject({ allowed: true, remaining: 2 });
    await check("peek", "k", 2);
    const peek = await check("peek", "k", 0);
    expect(peek.status).toBe(429);
    expect(peek.json.remaining).toBe(0);
    const [row] = await sql<{ attempted: number }>(suite.db, "SELECT attempted::int FROM ratelimit_counters WHERE policy = 'peek'");
    expect(row.attempted).toBe(1);
  });

  it("unknown policy → 404 problem", async () => {
    const res = await check("nope", "k");
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
  });
});

describe("overrides (the seed's per-customer limits over periods that cannot overlap)", () => {
  it("a key with an override valid now gets its own limit; others keep the policy's", async () => {
    await putPolicy("ov", { algorithm: "fixed_window", limit: 2, window_ms: DAY });
    await roomInDay();
    const now = Date.now();
    const put = await suite.api("PUT", "/v1/ratelimits/policies/ov/overrides/vip", {
      limit: 5,
      valid_from: new Date(now - 3_600_000).toISOString(),
      valid_to: new Date(now + 3_600_000).toISOString(),
    });
    expect(put.status).toBe(201);
    expect(put.json).toMatchObject({ policy: "ov", key: "vip", limit: 5 });
    const future = await suite.api("PUT", "/v1/ratelimits/policies/ov/overrides/later", { limit: 50, valid_from: new Date(now + DAY).toISOString() });
    expect(future.status).toBe(201);
    expect(future.json.valid_to).toBeNull();
    const vip = await Promise.all(Array.from({ length: 5 }, () => check("ov", "vip")));
    expect(vip.every((r) => r.status === 200 && r.json.limit === 5)).toBe(true);
    expect((await check("ov", "vip")).status).toBe(429);
    expect((await check("ov", "vip")).headers.get("ratelimit-policy")).toBe('"ov";q=5;w=86400');
    expect((await check("ov", "plain")).json.limit).toBe(2);
    expect((await check("ov", "later")).json.limit).toBe(2); // not in force yet
  });

  it("overlapping periods → 409 with the conflicts; adjacent periods are fine; the same period again changes its limit (200)", async () => {
    await putPolicy("ov2", { algorithm: "fixed_window", limit: 2, window_ms: DAY });
    const p = "/v1/ratelimits/policies/ov2/overrides/hans%20company";
    expect((await suite.api("PUT", p, { limit: 4, valid_from: "2020-01-01T00:00:00Z", valid_to: "2020-06-30T00:00:00Z" })).status).toBe(201);
    const clash = await suite.api("PUT", p, { limit: 9, valid_from: "2020-06-01T00:00:00Z", valid_to: "2020-12-31T00:00:00Z" });
    expect(clash.status).toBe(409);
    expect(clash.json.type).toBe("/problems/override-conflict");
    expect(clash.json.conflicts).toEqual([
      { policy: "ov2", key: "hans company", limit: 4, valid_from: "2020-01-01T00:00:00Z", valid_to: "2020-06-30T00:00:00Z", shadow: false },
    ]);
    expect((await suite.api("PUT", p, { limit: 9, valid_from: "2020-06-30T00:00:00Z", valid_to: "2020-12-31T00:00:00Z" })).status).toBe(201);
    const same = await suite.api("PUT", p, { limit: 7, valid_from: "2020-01-01T00:00:00Z", valid_to: "2020-06-30T00:00:00Z" });
    expect(same.status).toBe(200);
    expect(same.json.limit).toBe(7);
    const list = await suite.api("GET", p);
    expect(list.json.items.map((o: { limit: number }) => o.limit)).toEqual([7, 9]);
    // An open-ended period overlaps everything after it.
    expect((await suite.api("PUT", p, { limit: 1, valid_from: "2020-03-01T00:00:00Z" })).status).toBe(409);
    expect((await suite.api("PUT", p, { limit: 1, valid_from: "2020-03-01T00:00:00Z", valid_to: "2020-02-01T00:00:00Z" })).status).toBe(422);
    expect((await suite.api("PUT", "/v1/ratelimits/policies/none/overrides/k", { limit: 1, valid_from: "2020-03-01T00:00:00Z" })).status).toBe(404);
    expect((await suite.api("DELETE", `${p}?valid_from=2020-06-30T00:00:00Z`)).status).toBe(204);
    expect((await suite.api("GET", p)).json.items).toHaveLength(1);
    expect((await suite.api("DELETE", p)).status).toBe(204);
    expect((await suite.api("DELETE", p)).status).toBe(404);
  });

  it("20 simultaneous overlapping PUTs → exactly one 201, nineteen 409 (the EXCLUDE constraint decides)", async () => {
    await putPolicy("ov3", { algorithm: "fixed_window", limit: 2, window_ms: DAY });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        suite.api("PUT", "/v1/ratelimits/policies/ov3/overrides/k", {
          limit: 10 + i,
          valid_from: `2030-01-${String(1 + i).padStart(2, "0")}T00:00:00Z`,
          valid_to: "2030-02-01T00:00:00Z",
        }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, ...Array(19).fill(409)]);
    expect(await sql(suite.db, "SELECT count(*)::int AS n FROM ratelimit_overrides WHERE policy = 'ov3'")).toEqual([{ n: 1 }]);
  });

  it("the limit in force at the moment of the check applies (database clock input moved across the boundary)", async () => {
    await putPolicy("ov4", { algorithm: "fixed_window", limit: 1, window_ms: 1000 });
    await suite.api("PUT", "/v1/ratelimits/policies/ov4/overrides/k", { limit: 3, valid_from: "2030-01-01T00:00:10Z", valid_to: "2030-01-01T00:00:20Z" });
    const c = await connect(suite.db);
    try {
      expect((await checkAt(c, "ov4", "k", 1, "2030-01-01T00:00:09.5Z")).limit).toBe(1);
      expect((await checkAt(c, "ov4", "k", 1, "2030-01-01T00:00:10Z")).limit).toBe(3);
      expect((await checkAt(c, "ov4", "k", 1, "2030-01-01T00:00:19.999Z")).limit).toBe(3);
      expect((await checkAt(c, "ov4", "k", 1, "2030-01-01T00:00:20Z")).limit).toBe(1);
    } finally {
      await c.end();
    }
  });
});

describe("token bucket (GCRA)", () => {
  it("a fresh key admits a burst of `limit`, then refills at limit per window (clock input moved, no sleeping)", async () => {
    await putPolicy("tb", { algorithm: "token_bucket", limit: 10, window_ms: 10_000 }); // one token per second
    const c = await connect(suite.db);
    try {
      const t0 = Date.parse("2031-01-01T00:00:00Z");
      const at = (ms: number) => new Date(t0 + ms).toISOString();
      for (let i = 0; i < 10; i++) expect((await checkAt(c, "tb", "k", 1, at(0))).remaining).toBe(9 - i);
      const denied = await checkAt(c, "tb", "k", 1, at(0));
      expect(denied).toMatchObject({ allowed: false, remaining: 0, retry_after_ms: 1000, reset_ms: 10_000 });
      // 999 ms later: still nothing; at 1000 ms exactly one token is back.
      expect((await checkAt(c, "tb", "k", 1, at(999))).allowed).toBe(false);
      expect(await checkAt(c, "tb", "k", 1, at(1000))).toMatchObject({ allowed: true, remaining: 0 });
      expect((await checkAt(c, "tb", "k", 1, at(1000))).allowed).toBe(false);
      // 3.5 s later: 3 tokens (a half token does not count), and a cost-4 call waits 0.5 s more.
      expect(await checkAt(c, "tb", "k", 4, at(4500))).toMatchObject({ allowed: false, remaining: 3, retry_after_ms: 500 });
      expect(await checkAt(c, "tb", "k", 3, at(4500))).toMatchObject({ allowed: true, remaining: 0 });
      // A long idle period fills the bucket to `limit`, never more.
      expect(await checkAt(c, "tb", "k", 1, at(3_600_000))).toMatchObject({ allowed: true, remaining: 9 });
      expect((await checkAt(c, "tb", "k", 11, at(7_200_000))).retry_after_ms).toBeNull();
      // Denials never push the next admission back: 1000 denials, then the token is there on time.
      for (let i = 0; i < 9; i++) await checkAt(c, "tb", "k", 1, at(3_600_000));
      for (let i = 0; i < 50; i++) expect((await checkAt(c, "tb", "k", 1, at(3_600_000 + i))).allowed).toBe(false);
      expect((await checkAt(c, "tb", "k", 1, at(3_601_000))).allowed).toBe(true);
    } finally {
      await c.end();
    }
  });

  it("over a long generated run, admitted units never exceed limit + elapsed·rate", async () => {
    await putPolicy("tb2", { algorithm: "token_bucket", limit: 7, window_ms: 3_000 });
    const c = await connect(suite.db);
    try {
      const t0 = Date.parse("2032-01-01T00:00:00Z");
      let t = 0;
      let seed = 7;
      const rand = () => {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        return seed / 2 ** 31;
      };
      const admitted: Array<[number, number]> = [];
      for (let i = 0; i < 400; i++) {
        t += Math.floor(rand() * 400);
        const cost = 1 + Math.floor(rand() * 3);
        const r = await checkAt(c, "tb2", "k", cost, new Date(t0 + t).toISOString());
        if (r.allowed) admitted.push([t, cost]);
      }
      // GCRA: over any interval [a, b], admitted ≤ limit + (b − a)·limit/window.
      for (let i = 0; i < admitted.length; i++) {
        let sum = 0;
        for (let j = i; j < admitted.length; j++) {
          sum += admitted[j][1];
          expect(sum).toBeLessThanOrEqual(7 + ((admitted[j][0] - admitted[i][0]) * 7) / 3000 + 1e-9);
        }
      }
      expect(admitted.length).toBeGreaterThan(50);
    } finally {
      await c.end();
    }
  }, 240_000);
});

describe("refund", () => {
  it("gives back what was consumed in the current window, never below zero", async () => {
    await putPolicy("rf", { algorithm: "fixed_window", limit: 5, window_ms: DAY });
    await roomInDay();
    await check("rf", "k", 5);
    expect((await check("rf", "k")).status).toBe(429);
    const r = await suite.api("POST", "/v1/ratelimits/refund", { policy: "rf", key: "k", cost: 2 });
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ policy: "rf", key: "k", limit: 5, remaining: 2, refunded: 2 });
    const all = await suite.api("POST", "/v1/ratelimits/refund", { policy: "rf", key: "k", cost: 100 });
    expect(all.json).toMatchObject({ remaining: 5, refunded: 3 });
    expect((await suite.api("POST", "/v1/ratelimits/refund", { policy: "rf", key: "never", cost: 1 })).json).toMatchObject({ remaining: 5, refunded: 0 });
    expect((await suite.api("POST", "/v1/ratelimits/refund", { policy: "rf", key: "k", cost: 0 })).status).toBe(422);
    expect((await suite.api("POST", "/v1/ratelimits/refund", { policy: "nope", key: "k", cost: 1 })).status).toBe(404);
  });

  it("token bucket: a refund returns tokens, never more than the capacity", async () => {
    await putPolicy("rftb", { algorithm: "token_bucket", limit: 4, window_ms: DAY });
    await check("rftb", "k", 4);
    const r = await suite.api("POST", "/v1/ratelimits/refund", { policy: "rftb", key: "k", cost: 1 });
    expect(r.json).toMatchObject({ remaining: 1, refunded: 1 });
    const over = await suite.api("POST", "/v1/ratelimits/refund", { policy: "rftb", key: "k", cost: 50 });
    expect(over.json).toMatchObject({ remaining: 4, refunded: 3 });
    expect((await check("rftb", "k", 4)).status).toBe(200);
    expect((await check("rftb", "k", 1)).status).toBe(429);
  });
});

describe("usage", () => {
  it("current window over HTTP, and per-window history with from/to for fixed windows", async () => {
    await putPolicy("us", { algorithm: "fixed_window", limit: 2, window_ms: 60_000 });
    const c = await connect(suite.db);
    try {
      // Three windows in the past, on the moved clock: 3, 1 and 5 attempts.
      const base = Date.parse("2026-01-01T00:00:00Z");
      for (const [w, n] of [
        [0, 3],
        [1, 1],
        [3, 5],
      ] as const) {
        for (let i = 0; i < n; i++) await checkAt(c, "us", "k", 1, new Date(base + w * 60_000 + i * 1000).toISOString());
      }
    } finally {
      await c.end();
    }
    // The check and the read of its minute's usage must fall in one minute.
    await roomInWindow(60_000, 15_000);
    await check("us", "k");
    const now = await suite.api("GET", "/v1/ratelimits/usage?policy=us&key=k");
    expect(now.status).toBe(200);
    expect(now.json).toMatchObject({
      policy: "us",
      key: "k",
      algorithm: "fixed_window",
      limit: 2,
      admitted: 1,
      attempted: 1,
      rejected: 0,
      consumed: 1,
      windows: null,
    });
    const hist = await suite.api("GET", "/v1/ratelimits/usage?policy=us&key=k&from=2026-01-01T00:00:00Z&to=2026-01-01T01:00:00Z");
    expect(hist.json.windows).toEqual([
      { window_start: "2026-01-01T00:00:00Z", window_end: "2026-01-01T00:01:00Z", admitted: 2, attempted: 3, rejected: 1, would_refuse: 0, consumed: 2 },
      { window_start: "2026-01-01T00:01:00Z", window_end: "2026-01-01T00:02:00Z", admitted: 1, attempted: 1, rejected: 0, would_refuse: 0, consumed: 1 },
      { window_start: "2026-01-01T00:03:00Z", window_end: "2026-01-01T00:04:00Z", admitted: 2, attempted: 5, rejected: 3, would_refuse: 0, consumed: 2 },
    ]);
    expect((await suite.api("GET", "/v1/ratelimits/usage?policy=us&key=k&from=2026-01-01T00:00:00Z")).status).toBe(422);
    expect((await suite.api("GET", "/v1/ratelimits/usage?policy=nope&key=k")).status).toBe(404);
    // The longest window: a bucket's usage is its current window's too, and a minute's end between the
    // checks would split them.
    await putPolicy("ustb", { algorithm: "token_bucket", limit: 2, window_ms: MAX_WINDOW_MS });
    await check("ustb", "k");
    await check("ustb", "k");
    await check("ustb", "k");
    await tallyFlushed(suite.db);
    expect((await suite.api("GET", "/v1/ratelimits/usage?policy=ustb&key=k")).json).toMatchObject({ admitted: 2, attempted: 3, rejected: 1 });
    expect((await suite.api("GET", "/v1/ratelimits/usage?policy=ustb&key=k&from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z")).status).toBe(422);
  });
});

describe("request log (opt-in per policy)", () => {
  it("each check of a logged policy writes one row in the same statement; unlogged policies write none", async () => {
    await putPolicy("lg", { algorithm: "fixed_window", limit: 1, window_ms: DAY, log: true });
    await putPolicy("nolg", { algorithm: "fixed_window", limit: 1, window_ms: DAY });
    await roomInDay();
    await check("lg", "k", 1, { ip: "203.0.113.9", path: "/v1/things" });
    await check("lg", "k");
    await check("nolg", "k");
    const rows = await sql(suite.db, "SELECT policy, key, allowed, cost, info, expires_at > at AS keeps FROM ratelimit_log ORDER BY id");
    expect(rows).toEqual([
      { policy: "lg", key: "k", allowed: true, cost: 1, info: { ip: "203.0.113.9", path: "/v1/things" }, keeps: true },
      { policy: "lg", key: "k", allowed: false, cost: 1, info: null, keeps: true },
    ]);
    // The log row is written by the check's own statement: one function call, one round trip.
    const c = await connect(suite.db);
    try {
      await c.query("BEGIN");
      await c.query("SELECT admit_ratelimit_check('lg', 'k2', 1, '{\"a\":1}', 1000)");
      const [{ n }] = (await c.query("SELECT count(*)::int AS n FROM ratelimit_log WHERE key = 'k2'")).rows;
      expect(n).toBe(1);
      await c.query("ROLLBACK");
    } finally {
      await c.end();
    }
    const big = await check("lg", "k", 1, { blob: "x".repeat(3000) });
    expect(big.status).toBe(422);
  });
});
