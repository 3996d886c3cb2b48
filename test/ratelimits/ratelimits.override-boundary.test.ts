// Issue 28, item 3: a denial's wait (Retry-After, and the deny cache's lifetime) stops at the key's next
// override boundary, where the limit changes: an override starting later, or the end of one in force.
// Before, the wait ran to the window's end as if the limit in force held: retry_after_ms ≈ 6.4 h for
// an override of 100 starting 6 s later, and the isolate's cache kept refusing after it had started.
// At the SQL functions (the clock input p_now moved, exact to the millisecond) for every path — the
// fixed-window fast path, the general check (a logged policy, sliding window, token bucket) and the
// multi-policy check — and over HTTP with the deny cache on, in real time.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, servedApp, sql } from "../support";

const suite = servedApp("ratelimits_override_boundary"); // deny cache on (the default)

const DAY = 86_400_000;
// 01:00 UTC on a day: the day's window ends 23 h later, far from every boundary below.
const T0 = Date.parse("2031-03-04T01:00:00Z");
const at = (ms: number) => new Date(T0 + ms).toISOString();

type Pg = Awaited<ReturnType<typeof connect>>;
let c: Pg;
beforeAll(async () => {
  c = await connect(suite.db);
});
afterAll(async () => {
  await c?.end();
});

type Row = { allowed: boolean; limit: number; retry_after_ms: number | null; wait1_ms: number };

async function checkAt(policy: string, key: string, cost: number, ms: number): Promise<Row> {
  const { rows } = await c.query("SELECT admit_ratelimit_check($1, $2, $3::integer, NULL, 1000, $4::timestamptz) AS r", [policy, key, cost, at(ms)]);
  return rows[0].r;
}

async function checkMultiAt(policies: string[], key: string, cost: number, ms: number): Promise<{ allowed: boolean; results: Row[] }> {
  const { rows } = await c.query("SELECT admit_ratelimit_check_multi($1::text[], $2, $3::integer, NULL, 1000, $4::timestamptz) AS r", [
    policies,
    key,
    cost,
    at(ms),
  ]);
  return rows[0].r;
}

async function policy(name: string, algorithm: string, limit: number, log = false) {
  await c.query("SELECT admit_ratelimit_put_policy($1, $2, $3::integer, $4::bigint, $5::boolean, 604800000)", [name, algorithm, limit, DAY, log]);
}

async function override(name: string, key: string, limit: number, fromMs: number, toMs: number | null) {
  const { rows } = await c.query("SELECT admit_ratelimit_put_override($1, $2, $3::integer, $4::timestamptz, $5::timestamptz) AS r", [
    name,
    key,
    limit,
    at(fromMs),
    toMs === null ? null : at(toMs),
  ]);
  expect(rows[0].r.status).toBe("created");
}

const kinds = [
  ["fixed window (fast path)", "fixed_window", false],
  ["fixed window, logged (general check)", "fixed_window", true],
  ["sliding window", "sliding_window", false],
  ["token bucket", "token_bucket", false],
] as const;

describe("at the SQL functions (p_now)", () => {
  for (const [label, algorithm, log] of kinds) {
    it(`${label}: an override starting later ends the wait at its start; the limit there decides`, async () => {
      const name = `later-${algorithm}-${log}`;
      await policy(name, algorithm, 1, log);
      await override(name, "k", 100, 6_000, null);
      expect((await checkAt(name, "k", 1, 0)).allowed).toBe(true);
      const denied = await checkAt(name, "k", 1, 400);
      // Before: the window's end or the bucket's refill, hours away (fixed: 23 h − 400 ms).
      expect(denied).toMatchObject({ allowed: false, limit: 1, retry_after_ms: 5_600, wait1_ms: 5_600 });
      // Denied for a cost above the limit in force: still no wait (never fits under this limit).
      expect((await checkAt(name, "k", 2, 500)).retry_after_ms).toBeNull();
      // At the boundary the override's limit decides (the token bucket's TAT still holds the day's
      // debt of the unit taken under limit 1, so it refuses again, with its own wait under limit 100).
      expect(await checkAt(name, "k", 1, 6_000)).toMatchObject({ allowed: algorithm !== "token_bucket", limit: 100 });
    });

    it(`${label}: a penalty override's end ends the wait, and the policy's limit decides after it`, async () => {
      const name = `penalty-${algorithm}-${log}`;
      await policy(name, algorithm, 100, log);
      await override(name, "k", 1, -1_000, 5_000);
      expect((await checkAt(name, "k", 1, 0)).allowed).toBe(true);
      const denied = await checkAt(name, "k", 1, 1_000);
      expect(denied).toMatchObject({ allowed: false, limit: 1, retry_after_ms: 4_000, wait1_ms: 4_000 });
      expect(await checkAt(name, "k", 1, 5_000)).toMatchObject({ allowed: algorithm !== "token_bucket", limit: 100 });
    });
  }

  it("a wait shorter than the boundary is kept; a boundary of another key or policy does not count", async () => {
    await policy("short", "token_bucket", 2, false); // refills one unit every 12 h…
    await c.query("SELECT admit_ratelimit_put_policy('short-w', 'fixed_window', 1, 1000, false, 0)"); // …a 1 s window
    await override("short-w", "k", 1, 60_000, null); // a boundary after the window's end: no effect
    await override("short", "other", 50, 3_000, null); // another key's boundary: no effect
    await override("short-w", "other", 50, 300, null);
    expect((await checkAt("short-w", "k", 1, 100)).allowed).toBe(true);
    expect(await checkAt("short-w", "k", 1, 200)).toMatchObject({ allowed: false, retry_after_ms: 800 });
    await checkAt("short", "k", 2, 0);
    expect((await checkAt("short", "k", 1, 0)).retry_after_ms).toBe(DAY / 2);
  });

  it("the multi-policy check caps each policy's own wait at its boundary", async () => {
    await policy("m-later", "fixed_window", 1);
    await policy("m-daily", "sliding_window", 10);
    await override("m-later", "k", 100, 6_000, null);
    expect((await checkMultiAt(["m-daily", "m-later"], "k", 1, 0)).allowed).toBe(true);
    const denied = await checkMultiAt(["m-daily", "m-later"], "k", 1, 400);
    expect(denied.allowed).toBe(false);
    expect(denied.results[1]).toMatchObject({ allowed: false, retry_after_ms: 5_600, wait1_ms: 5_600 });
    expect(await checkMultiAt(["m-daily", "m-later"], "k", 1, 6_000)).toMatchObject({ allowed: true });
  });
});

describe("over HTTP, with the deny cache", () => {
  const sleepUntil = (t: number) => new Promise((r) => setTimeout(r, Math.max(0, t - Date.now())));
  const check = (policy: string) => suite.api("POST", "/v1/ratelimits/check", { policy, key: "k" });
  // The window is a year: only the override's boundary can end these waits.
  const YEAR = 366 * DAY;

  it("an override of 100 starting 1.5 s later: the 429 says at most 1.5 s, and after it the database admits (not the cache)", async () => {
    expect((await suite.api("PUT", "/v1/ratelimits/policies/http-later", { algorithm: "fixed_window", limit: 1, window_ms: YEAR })).status).toBe(201);
    const start = Date.now() + 1_500;
    const o = await suite.api("PUT", "/v1/ratelimits/policies/http-later/overrides/k", { limit: 100, valid_from: new Date(start).toISOString() });
    expect(o.status).toBe(201);
    expect((await check("http-later")).status).toBe(200);
    const denied = await check("http-later");
    expect(denied.status).toBe(429);
    expect(denied.json.retry_after_ms).toBeLessThanOrEqual(1_500);
    expect(Number(denied.headers.get("retry-after"))).toBeLessThanOrEqual(2);
    await sleepUntil(start + 100);
    const after = await check("http-later");
    expect([after.status, after.json.reason, after.json.limit]).toEqual([200, "limit", 100]);
  });

  it("a penalty of 1 for 1.5 s on 100 a year: refused until it ends, then admitted by the database", async () => {
    expect((await suite.api("PUT", "/v1/ratelimits/policies/http-penalty", { algorithm: "fixed_window", limit: 100, window_ms: YEAR })).status).toBe(201);
    const end = Date.now() + 1_500;
    const o = await suite.api("PUT", "/v1/ratelimits/policies/http-penalty/overrides/k", {
      limit: 1,
      valid_from: new Date(Date.now() - 1_000).toISOString(),
      valid_to: new Date(end).toISOString(),
    });
    expect(o.status).toBe(201);
    expect((await check("http-penalty")).status).toBe(200);
    const denied = await check("http-penalty");
    expect([denied.status, denied.json.limit]).toEqual([429, 1]);
    expect(denied.json.retry_after_ms).toBeLessThanOrEqual(1_500);
    const cached = await check("http-penalty");
    expect([cached.status, cached.json.reason]).toEqual([429, "cache"]);
    await sleepUntil(end + 100);
    const after = await check("http-penalty");
    expect([after.status, after.json.reason, after.json.limit]).toEqual([200, "limit", 100]);
    const [{ n }] = await sql<{ n: number }>(suite.db, "SELECT consumed::int AS n FROM ratelimit_counters WHERE policy = 'http-penalty'");
    expect(n).toBe(2);
  });
});
