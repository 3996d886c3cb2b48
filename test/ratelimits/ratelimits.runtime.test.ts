// Rate limits inside the real Workers runtime (wrangler dev / workerd): a small fixture Worker
// (test/fixtures/ratelimit-worker) uses the exported rateLimit() middleware against the same
// database, and also serves the Admit app, so the check route runs in workerd too.
import { parseList, Token } from "structured-headers";
import { describe, expect, it } from "vitest";
import { roomInWindow, sql, until, workerSuite } from "../support";

const suite = workerSuite("ratelimits_runtime", { config: "test/fixtures/ratelimit-worker/wrangler.toml" });

const hello = (clientId: string, cost?: number) =>
  fetch(`${suite.worker.url}/limited/hello`, { headers: { "X-Client": clientId, ...(cost === undefined ? {} : { "X-Cost": String(cost) }) } }).then(
    async (res) => ({
      status: res.status,
      headers: res.headers,
      json: JSON.parse(await res.text()),
    }),
  );

const stats = async () => (await fetch(`${suite.worker.url}/cache-stats`)).json() as Promise<{ hits: number; dbCalls: number }>;

describe("rateLimit() middleware in wrangler dev", () => {
  it("20 simultaneous requests, limit 5 → five pass through to the handler with RateLimit headers, fifteen get 429 problem+json with Retry-After", async () => {
    const put = await suite.api("PUT", "/v1/ratelimits/policies/fixture", {
      algorithm: "fixed_window",
      limit: 5,
      window_ms: 366 * 86_400_000,
      log: true,
      timeout_ms: 60_000,
    });
    expect(put.status).toBe(201);
    const results = await Promise.all(Array.from({ length: 20 }, () => hello("tenant-a")));
    const ok = results.filter((r) => r.status === 200);
    const limited = results.filter((r) => r.status === 429);
    expect(ok).toHaveLength(5);
    expect(limited).toHaveLength(15);
    for (const r of ok) {
      expect(r.json).toEqual({ hello: "world" });
      expect(r.headers.get("ratelimit-policy")).toBe('"fixture";q=5;w=31622400');
      expect(r.headers.get("ratelimit")).toMatch(/^"fixture";r=[0-4];t=\d+$/);
    }
    expect(ok.map((r) => r.headers.get("ratelimit")!.match(/r=(\d)/)![1]).sort()).toEqual(["0", "1", "2", "3", "4"]);
    for (const r of limited) {
      expect(r.headers.get("content-type")).toBe("application/problem+json");
      expect(r.json).toMatchObject({ type: "/problems/rate-limited", status: 429, allowed: false, policy: "fixture", key: "tenant-a", limit: 5, remaining: 0 });
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(r.headers.get("ratelimit")).toMatch(/^"fixture";r=0;t=\d+$/);
    }
    // The database agrees, and the log (log: true) has one row per call with the info the middleware passed.
    expect(
      await sql(
        suite.db,
        "SELECT consumed::int, admitted::int, attempted::int, rejected::int FROM ratelimit_counters WHERE policy = 'fixture' AND key = 'tenant-a'",
      ),
    ).toEqual([{ consumed: 5, admitted: 5, attempted: 20, rejected: 15 }]);
    expect(
      await sql(
        suite.db,
        "SELECT count(*)::int AS n, count(*) FILTER (WHERE allowed)::int AS allowed, min(info->>'path') AS path FROM ratelimit_log WHERE key = 'tenant-a'",
      ),
    ).toEqual([{ n: 20, allowed: 5, path: "/limited/hello" }]);
    // Another client has its own budget.
    expect((await hello("tenant-b")).status).toBe(200);
  });

  it("the deny cache answers repeat denials inside the isolate without Postgres, and never admits", async () => {
    await suite.api("PUT", "/v1/ratelimits/policies/fixture", { algorithm: "fixed_window", limit: 3, window_ms: 366 * 86_400_000 });
    const before = await stats();
    const results = [];
    for (let i = 0; i < 15; i++) results.push(await hello("tenant-c"));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, ...Array(12).fill(429)]);
    const after = await stats();
    // Three admitted calls reached Postgres; the third left nothing, so every later call was a cache hit.
    expect(after.dbCalls - before.dbCalls).toBe(3);
    expect(after.hits - before.hits).toBe(12);
    expect(results.slice(3).every((r) => r.headers.get("admit-cache") === "hit" && Number(r.headers.get("retry-after")) > 0)).toBe(true);
    expect(results.every((r) => /^db;dur=\d+\.\d, cache;desc=(hit|miss)$/.test(r.headers.get("server-timing") ?? ""))).toBe(true);
    // The cache's answers are counted too, once the isolate's tally has flushed (METRICS_FLUSH_MS, 2 s).
    const counters = () => sql(suite.db, "SELECT admitted::int, attempted::int FROM ratelimit_counters WHERE policy = 'fixture' AND key = 'tenant-c'");
    await until(async () => JSON.stringify(await counters()) === JSON.stringify([{ admitted: 3, attempted: 15 }]), 30_000, "attempted to reach 15");
    // A refund through this isolate clears the cached denial at once.
    expect((await suite.api("POST", "/v1/ratelimits/refund", { policy: "fixture", key: "tenant-c", cost: 1 })).json.refunded).toBe(1);
    const again = await hello("tenant-c");
    expect(again.status).toBe(200);
    expect(again.headers.get("admit-cache")).toBe("miss");
  });

  it("POST /v1/ratelimits/check runs in workerd too: a token bucket's burst is exact", async () => {
    await suite.api("PUT", "/v1/ratelimits/policies/rt-tb", { algorithm: "token_bucket", limit: 10, window_ms: 86_400_000 });
    const results = await Promise.all(Array.from({ length: 30 }, () => suite.api("POST", "/v1/ratelimits/check", { policy: "rt-tb", key: "k" })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(10);
    expect(results.filter((r) => r.status === 429)).toHaveLength(20);
    expect(results.every((r) => r.json.remaining >= 0)).toBe(true);
  });
});

/** A Structured Field list as [name, params] pairs (tokens as "token:…"). */
function sfList(value: string | null): Array<[unknown, Record<string, unknown>]> {
  expect(value).not.toBeNull();
  return parseList(value!).map((m) => {
    const [bare, params] = m as [unknown, Map<string, unknown>];
    const p: Record<string, unknown> = {};
    for (const [k, v] of params) p[k] = v instanceof Token ? `token:${v.toString()}` : v;
    return [bare, p];
  });
}

const get = (path: string, clientId = "c") =>
  fetch(`${suite.worker.url}${path}`, { headers: { "X-Client": clientId } }).then(async (res) => {
    const text = await res.text();
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, json, text };
  });

const livePermits = async (name: string) =>
  (
    await sql<{ n: number }>(
      suite.db,
      "SELECT count(*)::int AS n FROM permits WHERE kind = 'semaphore' AND name = $1 AND released_at IS NULL AND timed_out_at IS NULL AND expires_at > now()",
      [name],
    )
  )[0].n;

describe("rateLimit() with several policies and a concurrency limit, in wrangler dev", () => {
  it("policies: [burst, daily] → all-or-nothing; the 429 is a quota-exceeded problem; headers are one list item per policy", async () => {
    await suite.api("PUT", "/v1/ratelimits/policies/fixture-burst", { algorithm: "fixed_window", limit: 2, window_ms: 60_000, timeout_ms: 60_000 });
    await suite.api("PUT", "/v1/ratelimits/policies/fixture-daily", { algorithm: "fixed_window", limit: 5, window_ms: 86_400_000, timeout_ms: 60_000 });
    // The three requests must fall in one of the burst's minutes (windows start at multiples of their
    // length): a minute's end between them would find the burst window fresh again.
    await roomInWindow(60_000, 15_000);
    const results = [];
    for (let i = 0; i < 3; i++) results.push(await get("/both/hello", "multi-a"));
    expect(results.map((r) => r.status)).toEqual([200, 200, 429]);
    expect(results[0].json).toEqual({ hello: "both" });
    expect(sfList(results[0].headers.get("ratelimit-policy"))).toEqual([
      ["fixture-burst", { q: 2, w: 60 }],
      ["fixture-daily", { q: 5, w: 86_400 }],
    ]);
    expect(sfList(results[1].headers.get("ratelimit")).map(([n, p]) => [n, p.r])).toEqual([
      ["fixture-burst", 0],
      ["fixture-daily", 3],
    ]);
    const denied = results[2];
    expect(denied.headers.get("content-type")).toBe("application/problem+json");
    expect(denied.json).toMatchObject({ type: "/problems/quota-exceeded", status: 429, "violated-policies": ["fixture-burst"], allowed: false });
    expect(Number(denied.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await sql(suite.db, "SELECT policy, consumed::int FROM ratelimit_counters WHERE key = 'multi-a' ORDER BY policy")).toEqual([
      { policy: "fixture-burst", consumed: 2 },
      { policy: "fixture-daily", consumed: 2 },
    ]);
  });

  it("concurrency 3: 20 simultaneous slow requests → at most 3 run at once, the others 429 with Retry-After; every permit is back afterwards", async () => {
    const before = (await (await fetch(`${suite.worker.url}/inflight-stats`)).json()) as { peak: number; done: number };
    expect(before.peak).toBe(0);
    const results = await Promise.all(Array.from({ length: 20 }, () => get("/inflight/slow?ms=3000")));
    const counts: Record<number, number> = {};
    for (const r of results) counts[r.status] = (counts[r.status] ?? 0) + 1;
    expect(counts).toEqual({ 200: 3, 429: 17 });
    const stats = (await (await fetch(`${suite.worker.url}/inflight-stats`)).json()) as { peak: number; running: number; done: number };
    expect(stats).toEqual({ peak: 3, running: 0, done: 3 });
    for (const r of results.filter((x) => x.status === 429)) {
      expect(r.headers.get("content-type")).toBe("application/problem+json");
      expect(r.json).toMatchObject({ type: "/problems/concurrency-limited", status: 429, permits: 3, in_use: 3 });
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(sfList(r.headers.get("ratelimit-policy"))).toEqual([["fixture-inflight", { q: 3, qu: "concurrent-requests" }]]);
      expect(sfList(r.headers.get("ratelimit"))).toEqual([["fixture-inflight", { r: 0 }]]);
    }
    for (const r of results.filter((x) => x.status === 200)) {
      expect(sfList(r.headers.get("ratelimit-policy"))).toEqual([["fixture-inflight", { q: 3, qu: "concurrent-requests" }]]);
    }
    // Released before each response left: nothing is held now.
    expect(await livePermits("fixture-inflight")).toBe(0);
    expect(
      await sql(suite.db, "SELECT count(*)::int AS n, count(released_at)::int AS released FROM permits WHERE kind = 'semaphore' AND name = 'fixture-inflight'"),
    ).toEqual([{ n: 3, released: 3 }]);
  }, 60_000);

  it("a handler that throws still gives its permit back; three more then run at once", async () => {
    const failed = await get("/inflight/throw");
    expect(failed.status).toBe(500);
    await until(async () => (await livePermits("fixture-inflight")) === 0, 5_000, "the permit of the failed request to be released");
    const again = await Promise.all(Array.from({ length: 3 }, () => get("/inflight/slow?ms=50")));
    expect(again.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(await livePermits("fixture-inflight")).toBe(0);
  });
});
