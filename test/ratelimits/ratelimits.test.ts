// Rate limits over HTTP and at the SQL function (with the database-side clock input `p_now` moved
// instead of sleeping): policies, overrides, check semantics and headers, refund, usage, log, sweep.
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { auditEntry } from "../../functions/core/audit";
import { mapSqlError, RequestDb } from "../../functions/core/db";
import { call } from "../../functions/http/rpc/call";
import { type RateLimitBinding, rateLimit } from "../../functions/ratelimits";
import { MAX_WINDOW_MS } from "../../functions/ratelimits/schemas";
import { createSemaphore } from "../../functions/ratelimits/sql";
import { bindings, client, connect, roomInDay, roomInWindow, serveApp, servedApp, sql, whileHolding, withServedApp } from "../support";

// The deny cache is exercised in ratelimits.cache.test.ts; here every check reaches Postgres.
const suite = servedApp("ratelimits", { RATELIMIT_DENY_CACHE: "off" });

async function putPolicy(name: string, body: Record<string, unknown>) {
  const res = await suite.api("PUT", `/v1/ratelimits/policies/${name}`, body);
  expect([200, 201]).toContain(res.status);
  return res;
}

const check = (policy: string, key: string, cost?: number, info?: unknown) =>
  suite.api("POST", "/v1/ratelimits/check", { policy, key, ...(cost === undefined ? {} : { cost }), ...(info === undefined ? {} : { info }) });

/** One check at the SQL function with the clock input set to `at` (ISO string). */
async function checkAt(client: Awaited<ReturnType<typeof connect>>, policy: string, key: string, cost: number, at: string) {
  const { rows } = await client.query("SELECT admit_ratelimit_check($1, $2, $3::integer, NULL, 1000, $4::timestamptz) AS r", [policy, key, cost, at]);
  return rows[0].r as { allowed: boolean; remaining: number; reset_ms: number; retry_after_ms: number | null; limit: number };
}

const DAY = 86_400_000;

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
      { policy: "ov2", key: "hans company", limit: 4, valid_from: "2020-01-01T00:00:00Z", valid_to: "2020-06-30T00:00:00Z" },
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
      { window_start: "2026-01-01T00:00:00Z", window_end: "2026-01-01T00:01:00Z", admitted: 2, attempted: 3, rejected: 1, consumed: 2 },
      { window_start: "2026-01-01T00:01:00Z", window_end: "2026-01-01T00:02:00Z", admitted: 1, attempted: 1, rejected: 0, consumed: 1 },
      { window_start: "2026-01-01T00:03:00Z", window_end: "2026-01-01T00:04:00Z", admitted: 2, attempted: 5, rejected: 3, consumed: 2 },
    ]);
    expect((await suite.api("GET", "/v1/ratelimits/usage?policy=us&key=k&from=2026-01-01T00:00:00Z")).status).toBe(422);
    expect((await suite.api("GET", "/v1/ratelimits/usage?policy=nope&key=k")).status).toBe(404);
    // The longest window: a bucket's usage is its current window's too, and a minute's end between the
    // checks would split them.
    await putPolicy("ustb", { algorithm: "token_bucket", limit: 2, window_ms: MAX_WINDOW_MS });
    await check("ustb", "k");
    await check("ustb", "k");
    await check("ustb", "k");
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

describe("counters are built for constant update", () => {
  it("the table has FILLFACTOR 60 and counter updates are HOT (no index maintenance)", async () => {
    const [opt] = await sql<{ reloptions: string[] }>(suite.db, "SELECT reloptions FROM pg_class WHERE relname = 'ratelimit_counters'");
    expect(opt.reloptions).toContain("fillfactor=60");
    await putPolicy("hot", { algorithm: "fixed_window", limit: 1000, window_ms: DAY });
    await putPolicy("hottb", { algorithm: "token_bucket", limit: 1000, window_ms: DAY });
    const c = await connect(suite.db);
    try {
      await c.query("BEGIN");
      for (let i = 0; i < 20; i++) {
        await c.query("SELECT admit_ratelimit_check('hot', 'k', 1, NULL, 1000)");
        await c.query("SELECT admit_ratelimit_check('hottb', 'k', 1, NULL, 1000)");
      }
      const [s] = (
        await c.query(
          "SELECT pg_stat_get_xact_tuples_updated('ratelimit_counters'::regclass)::int AS upd, pg_stat_get_xact_tuples_hot_updated('ratelimit_counters'::regclass)::int AS hot",
        )
      ).rows;
      expect(s).toEqual({ upd: 38, hot: 38 });
      await c.query("COMMIT");
    } finally {
      await c.end();
    }
  });
});

describe("sweep", () => {
  it("admit_sweep_ratelimits() deletes windows past their history and old log rows, keeps the rest", async () => {
    await putPolicy("sw", { algorithm: "fixed_window", limit: 5, window_ms: 1000, history_ms: 60_000, log: true });
    await putPolicy("swtb", { algorithm: "token_bucket", limit: 5, window_ms: 1000 });
    const c = await connect(suite.db);
    try {
      await checkAt(c, "sw", "old", 1, "2020-01-01T00:00:00Z");
      await checkAt(c, "swtb", "old", 1, "2020-01-01T00:00:00Z");
    } finally {
      await c.end();
    }
    await check("sw", "new");
    const [{ r }] = await sql<{ r: Record<string, number> }>(suite.db, "SELECT admit_sweep() AS r");
    expect(r.ratelimits).toBeGreaterThanOrEqual(3);
    const left = await sql(suite.db, "SELECT policy, key FROM ratelimit_counters WHERE policy IN ('sw', 'swtb') ORDER BY policy, key");
    expect(left).toEqual([{ policy: "sw", key: "new" }]);
    expect(await sql(suite.db, "SELECT key FROM ratelimit_log WHERE policy = 'sw'")).toEqual([{ key: "new" }]);
  });
});

describe("sweep: a token bucket is never swept while its TAT is in the future", () => {
  it("after an admitted call on a bucket already ahead of now, the row (and its TAT) survives the sweep", async () => {
    // A window of about N/100.6 (N = the database clock in ms), so that the end of the 100th aligned
    // window lies ~0.6 windows ago: two calls just before that end take 5 + 5 of the 10 tokens, moving
    // the TAT to ~0.4 windows from now, past the aligned window's end and past the first call's TAT.
    const [{ n }] = await sql<{ n: string }>(suite.db, "SELECT floor(extract(epoch FROM now()) * 1000)::text AS n");
    const w = Math.round(Number(n) / 100.6);
    await putPolicy("tbsweep", { algorithm: "token_bucket", limit: 10, window_ms: w });
    const at = new Date(100 * w - 1).toISOString();
    const c = await connect(suite.db);
    try {
      expect((await checkAt(c, "tbsweep", "k", 5, at)).allowed).toBe(true);
      expect((await checkAt(c, "tbsweep", "k", 5, at)).allowed).toBe(true);
    } finally {
      await c.end();
    }
    const [row] = await sql<{ future: boolean }>(suite.db, "SELECT admit_ms_to_ts(tat) > now() AS future FROM ratelimit_counters WHERE policy = 'tbsweep'");
    expect(row).toEqual({ future: true });
    await sql(suite.db, "SELECT admit_sweep_ratelimits()");
    expect(await sql(suite.db, "SELECT key, admit_ms_to_ts(tat) > now() AS future FROM ratelimit_counters WHERE policy = 'tbsweep'")).toEqual([
      { key: "k", future: true },
    ]);
    // ~6 of the 10 tokens are back by now, not 10: a call of 7 is refused (a bucket reset to full would serve it).
    const now = await check("tbsweep", "k", 7);
    expect(now.json.allowed).toBe(false);
  });
});

describe("counters past 2^31 (a hammered key)", () => {
  it("admitted, attempted and rejected count on past 2 147 483 647: the check answers, usage shows the count", async () => {
    await putPolicy("hammered", { algorithm: "fixed_window", limit: 5, window_ms: 3_600_000 });
    // Both checks and the usage read in one hour: the counts are set on this hour's row.
    await roomInWindow(3_600_000, 20_000);
    expect((await check("hammered", "k")).status).toBe(200);
    await sql(suite.db, "UPDATE ratelimit_counters SET admitted = 2147483647, attempted = 2147483647, rejected = 2147483647 WHERE policy = 'hammered'");
    const again = await check("hammered", "k");
    expect([200, 429]).toContain(again.status);
    const usage = await suite.api("GET", "/v1/ratelimits/usage?policy=hammered&key=k");
    expect(usage.status).toBe(200);
    expect(usage.json.attempted).toBe(2147483648);
  });

  it("a value out of range in the database (22003) is never answered as the caller's 422", () => {
    expect(() => mapSqlError("22003", new Error("integer out of range"))).toThrow(/22003/);
    expect(mapSqlError("22007", new Error("invalid input syntax for type timestamp")).problem.status).toBe(422);
  });
});

describe("no hangs, honest failures", () => {
  it("a burst of denials in one fixed window does not touch the next window: it starts full", async () => {
    await putPolicy("nw", { algorithm: "fixed_window", limit: 3, window_ms: 60_000 });
    const c = await connect(suite.db);
    try {
      for (let i = 0; i < 3; i++) expect((await checkAt(c, "nw", "k", 1, "2034-01-01T00:00:00Z")).allowed).toBe(true);
      for (let i = 0; i < 50; i++)
        expect(await checkAt(c, "nw", "k", 1, `2034-01-01T00:00:${String(1 + (i % 58)).padStart(2, "0")}Z`)).toMatchObject({ allowed: false, remaining: 0 });
      const denied = await checkAt(c, "nw", "k", 1, "2034-01-01T00:00:59.5Z");
      expect(denied).toMatchObject({ retry_after_ms: 500, reset_ms: 500 });
      expect(await checkAt(c, "nw", "k", 1, "2034-01-01T00:01:00Z")).toMatchObject({ allowed: true, remaining: 2, reset_ms: 60_000 });
    } finally {
      await c.end();
    }
  });

  it("a key whose counter row is held too long → 503 lock-timeout with Retry-After, nothing applied", async () => {
    await putPolicy("lk", { algorithm: "fixed_window", limit: 5, window_ms: MAX_WINDOW_MS });
    expect((await check("lk", "k")).status).toBe(200);
    await whileHolding(suite.db, "SELECT 1 FROM ratelimit_counters WHERE policy = 'lk' AND key = 'k' FOR UPDATE", [], () =>
      withServedApp(bindings(suite.db, { LOCK_TIMEOUT_MS: "200", RATELIMIT_DENY_CACHE: "off" }), async (api) => {
        const res = await api("POST", "/v1/ratelimits/check", { policy: "lk", key: "k" });
        expect(res.status).toBe(503);
        expect(res.json.type).toBe("/problems/lock-timeout");
        expect(res.headers.get("retry-after")).toBe("1");
      }),
    );
    expect(await sql(suite.db, "SELECT attempted::int FROM ratelimit_counters WHERE policy = 'lk'")).toEqual([{ attempted: 1 }]);
  });

  it("an unreachable database → 503 + Retry-After from the check route and from the rateLimit() middleware", async () => {
    const down = bindings("postgres://admit:x@127.0.0.1:1/nothing");
    const dead = await serveApp(down);
    try {
      const res = await client(dead.url)("POST", "/v1/ratelimits/check", { policy: "api", key: "k" });
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).not.toBeNull();
    } finally {
      await dead.close();
    }
    const other = new Hono();
    other.use("*", rateLimit({ policy: "api", key: () => "k" }));
    other.get("/x", (c) => c.text("reached"));
    const res = await other.request("/x", {}, down);
    expect(res.status).toBe(503);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(res.headers.get("retry-after")).not.toBeNull();
  });

  it("a key or cost the check route refuses is the same 422 from the middleware on its own handle as over the binding; a negative cost gives no unit back", async () => {
    // The longest window: the six counted requests below must fall in one window.
    await putPolicy("mw-bounds", { algorithm: "fixed_window", limit: 5, window_ms: MAX_WINDOW_MS });
    const env = bindings(suite.db, { RATELIMIT_DENY_CACHE: "off" });
    // The binding as the entrypoint runs it (test/rpc/rpc.runtime.test.ts runs it in workerd).
    const binding: RateLimitBinding = {
      rateLimitGate: (input) => call(env, undefined, "rateLimitGate", input),
      releasePermit: (input) => call(env, undefined, "releasePermit", input),
    };
    const app = (key: string, cost: number, via?: RateLimitBinding, info?: Record<string, unknown>) => {
      const a = new Hono();
      a.use("*", rateLimit({ policy: "mw-bounds", key: () => key, cost, binding: via, info: info && (() => info) }));
      a.get("/x", (c) => c.text("reached"));
      return a;
    };
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    const bad: [string, string, number, string, Record<string, unknown>?][] = [
      ["empty key", "", 1, "key"],
      ["key over 500 characters", "x".repeat(501), 1, "key"],
      ["negative cost", "k", -3, "cost"],
      ["fractional cost", "k", 1.5, "cost"],
      ["NaN cost", "k", Number.NaN, "cost"],
      ["info with a cycle (was a thrown TypeError: 500)", "k", 1, "info", cycle],
      ["info with a BigInt", "k", 1, "info", { n: 1n }],
    ];
    for (const [what, key, cost, field, info] of bad) {
      const local = await app(key, cost, undefined, info).request("/x", {}, env);
      const remote = await app(key, cost, binding, info).request("/x", {}, env);
      const body = await local.json();
      expect([local.status, local.headers.get("content-type")], what).toEqual([422, "application/problem+json"]);
      expect(
        body.errors.map((e: { path: string }) => e.path),
        what,
      ).toEqual([field]);
      expect([remote.status, await remote.json()], what).toEqual([422, body]);
    }
    // Nothing was consumed nor given back: five units, then a refusal.
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await app("k", 1).request("/x", {}, env)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  });

  it("a concurrency limit's name must fit a RateLimit header, as a policy's must: refused when the middleware is made, and a 422 over the binding", async () => {
    // It is sent in RateLimit-Policy; a name outside printable ASCII made Headers.set throw after the
    // permit was taken: a 500 on every request, and the permit held until its TTL.
    for (const bad of ["日本-inflight", "in\nflight", "a b", ""]) {
      expect(() => rateLimit({ concurrency: { name: bad, permits: 3 } }), JSON.stringify(bad)).toThrow(/rateLimit\(\): .* must be 1–100 characters/);
      expect(() => rateLimit({ policy: bad, key: () => "k" }), JSON.stringify(bad)).toThrow(/rateLimit\(\)/);
      const r = (await call(bindings(suite.db), undefined, "rateLimitGate", { concurrency: { name: bad, permits: 3 } })) as { error: Record<string, any> };
      expect(r.error, JSON.stringify(bad)).toMatchObject({ status: 422, errors: [{ in: "body", path: "concurrency.name" }] });
    }
    const [{ n }] = await sql<{ n: number }>(suite.db, "SELECT count(*)::int AS n FROM semaphores WHERE name = ANY($1)", [
      ["日本-inflight", "in\nflight", "a b"],
    ]);
    expect(n).toBe(0);
  });

  it("a concurrency limit's first use creates its semaphore and never resizes one that exists (two isolates, or another size configured)", async () => {
    await suite.api("PUT", "/v1/semaphores/mw-existing", { permits: 5, default_ttl_ms: 90_000 });
    const db = new RequestDb(bindings(suite.db));
    try {
      // What gate() calls on "not found": twice, with other sizes, as two isolates meeting a missing one would.
      const audit = (name: string) => auditEntry(undefined, {}, "semaphores.put", name, { first_use: true });
      await createSemaphore(db, "mw-existing", 1, 60_000, { lockTimeoutMs: 1_000, withinMs: 5_000 }, audit("mw-existing"));
      await createSemaphore(db, "mw-new", 2, 60_000, { lockTimeoutMs: 1_000, withinMs: 5_000 }, audit("mw-new"));
      await createSemaphore(db, "mw-new", 7, 10_000, { lockTimeoutMs: 1_000, withinMs: 5_000 }, audit("mw-new"));
    } finally {
      await db.close();
    }
    const rows = await sql<{ name: string; permits: number; default_ttl_ms: number }>(
      suite.db,
      "SELECT name, permits, default_ttl_ms FROM semaphores WHERE name IN ('mw-existing', 'mw-new') ORDER BY name",
    );
    expect(rows).toEqual([
      { name: "mw-existing", permits: 5, default_ttl_ms: 90_000 },
      { name: "mw-new", permits: 2, default_ttl_ms: 60_000 },
    ]);
    // An audit row for the one creation, none for the calls that found it there.
    const audits = await sql(suite.db, "SELECT target, change FROM admit_audit WHERE target IN ('mw-existing', 'mw-new') AND change ? 'first_use'");
    expect(audits).toEqual([{ target: "mw-new", change: { first_use: true } }]);
  });

  it("a concurrency limit names its holder after any path: 200 code units, a pair cut in half or a NUL made U+FFFD", async () => {
    const a = new Hono();
    a.use("*", rateLimit({ concurrency: { name: "mw-holder", permits: 2 } }));
    let holder = "";
    a.get("*", async (c) => {
      const [s] = await sql<{ holder: string }>(suite.db, "SELECT holder FROM permits WHERE kind = 'semaphore' AND name = 'mw-holder' AND released_at IS NULL");
      holder = s.holder;
      return c.text("reached");
    });
    // "GET /" is 5 units, so the emoji's pair straddles unit 200.
    const cut = `/${"a".repeat(194)}%F0%9F%98%80tail`;
    const res = await a.request(cut, {}, bindings(suite.db));
    expect([res.status, await res.text()]).toEqual([200, "reached"]);
    expect(holder).toBe(`GET /${"a".repeat(194)}\ufffd`);
    const nul = await a.request("/with%00nul", {}, bindings(suite.db));
    expect(nul.status).toBe(200);
    expect(holder).not.toContain("\u0000");
  });

  it("a middleware whose policy does not exist refuses with 503 naming the fix, and never calls next()", async () => {
    const other = new Hono();
    other.use("*", rateLimit({ policy: "never-created", key: () => "k" }));
    other.get("/x", (c) => c.text("reached"));
    const res = await other.request("/x", {}, bindings(suite.db));
    expect(res.status).toBe(503);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(res.headers.get("retry-after")).toBe("30");
    expect(await res.json()).toMatchObject({
      type: "/problems/ratelimit-policy-missing",
      detail: expect.stringContaining("PUT /v1/ratelimits/policies/never-created"),
    });
  });
});
