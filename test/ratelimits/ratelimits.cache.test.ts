// The in-isolate deny cache: a burst on an exhausted key stops reaching Postgres, it only ever
// short-circuits denials (never admits), respects cost, and local changes clear it.
import { describe, expect, it } from "vitest";
import { tallyFor } from "../../functions/core/tally";
import { DenyCache, denyCache } from "../../functions/ratelimits";
import { bindings, servedApp, sql, until } from "../support";

const suite = servedApp("ratelimits_cache"); // deny cache on (the default)

const YEAR = 366 * 86_400_000;

async function putPolicy(name: string, body: Record<string, unknown>) {
  const res = await suite.api("PUT", `/v1/ratelimits/policies/${name}`, body);
  expect([200, 201]).toContain(res.status);
}

const check = (policy: string, key: string, cost = 1) => suite.api("POST", "/v1/ratelimits/check", { policy, key, cost });

describe("a 10 000-request burst on one key with limit 100", () => {
  it("admits exactly 100, and Postgres decides only about limit + in-flight requests; the rest are cached denials", async () => {
    await putPolicy("burst", { algorithm: "fixed_window", limit: 100, window_ms: YEAR });
    const TOTAL = 10_000;
    const IN_FLIGHT = 32;
    const before = { hits: denyCache.hits, dbCalls: denyCache.dbCalls };
    const statuses: Record<string, number> = {};
    let next = 0;
    let cachedAdmits = 0;
    let retried = 0;
    // IN_FLIGHT clients, each sending its next request as soon as the previous one is answered.
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < TOTAL) {
          next++;
          let res = await check("burst", "hot");
          while (res.status === 503) {
            retried++;
            res = await check("burst", "hot");
          }
          const cache = res.headers.get("admit-cache");
          statuses[`${res.status} ${cache}`] = (statuses[`${res.status} ${cache}`] ?? 0) + 1;
          if (res.status === 200 && cache === "hit") cachedAdmits++;
        }
      }),
    );
    // A 503 reached for the database and decided nothing (it was retried).
    const decided = denyCache.dbCalls - before.dbCalls - retried;
    const hits = denyCache.hits - before.hits;
    console.log(
      `deny cache, ${TOTAL} requests (${IN_FLIGHT} in flight): outcomes ${JSON.stringify(statuses)}; Postgres decided ${decided}, cache answered ${hits}; 503 retried ${retried}`,
    );
    expect(cachedAdmits).toBe(0);
    expect((statuses["200 miss"] ?? 0) + (statuses["200 hit"] ?? 0)).toBe(100);
    expect(hits + decided).toBe(TOTAL);
    // The limit, plus at most the requests already on their way when the 100th admit came back.
    expect(decided).toBeLessThanOrEqual(100 + IN_FLIGHT);
    // Every call is counted once the isolate's tally has flushed (within METRICS_FLUSH_MS): the cache's answers too.
    await until(async () => tallyFor(bindings(suite.db))?.idle ?? true, 30_000, "the tally to flush");
    const [row] = await sql<{ admitted: number; attempted: number }>(
      suite.db,
      "SELECT admitted::int, attempted::int FROM ratelimit_counters WHERE policy = 'burst' AND key = 'hot'",
    );
    expect(row).toEqual({ admitted: 100, attempted: TOTAL });
  }, 300_000); // 10 000 HTTP requests on a machine shared with other suites: generous, never asserted
});

describe("what a cached denial covers", () => {
  it("a denial for cost c covers costs ≥ c only; a smaller cost still reaches Postgres and may pass", async () => {
    await putPolicy("cost", { algorithm: "fixed_window", limit: 10, window_ms: YEAR });
    expect((await check("cost", "k", 8)).json.remaining).toBe(2);
    const five = await check("cost", "k", 5);
    expect([five.status, five.headers.get("admit-cache")]).toEqual([429, "miss"]);
    expect([(await check("cost", "k", 5)).headers.get("admit-cache"), (await check("cost", "k", 9)).headers.get("admit-cache")]).toEqual(["hit", "hit"]);
    const two = await check("cost", "k", 2);
    expect([two.status, two.headers.get("admit-cache")]).toEqual([200, "miss"]);
    // Now nothing is left: any cost is a cached denial.
    const one = await check("cost", "k", 1);
    expect([one.status, one.headers.get("admit-cache"), one.json.remaining]).toEqual([429, "hit", 0]);
    expect(one.json.retry_after_ms).toBeGreaterThan(0);
    expect(one.headers.get("retry-after")).not.toBeNull();
  });

  it("a refund, an override change or a policy change in this isolate clears the entry at once", async () => {
    await putPolicy("clear", { algorithm: "fixed_window", limit: 2, window_ms: YEAR });
    await check("clear", "k", 2);
    expect((await check("clear", "k")).headers.get("admit-cache")).toBe("hit");
    await suite.api("POST", "/v1/ratelimits/refund", { policy: "clear", key: "k", cost: 1 });
    expect((await check("clear", "k")).status).toBe(200);
    expect((await check("clear", "k")).headers.get("admit-cache")).toBe("hit");
    const now = Date.now();
    await suite.api("PUT", "/v1/ratelimits/policies/clear/overrides/k", { limit: 5, valid_from: new Date(now - 60_000).toISOString() });
    const raised = await check("clear", "k");
    expect([raised.status, raised.json.limit]).toEqual([200, 5]);
    await check("clear", "k", 2);
    expect((await check("clear", "k")).headers.get("admit-cache")).toBe("hit");
    await putPolicy("clear", { algorithm: "token_bucket", limit: 2, window_ms: YEAR }); // resets counters
    expect((await check("clear", "other")).status).toBe(200);
    await suite.api("DELETE", "/v1/ratelimits/policies/clear/overrides/k");
    expect((await check("clear", "k")).status).toBe(200);
  });

  it("a policy with log: true is never answered from the cache (every call is logged and counted)", async () => {
    await putPolicy("logged", { algorithm: "fixed_window", limit: 1, window_ms: YEAR, log: true });
    const results = [];
    for (let i = 0; i < 5; i++) results.push(await check("logged", "k"));
    expect(results.map((r) => r.headers.get("admit-cache"))).toEqual(Array(5).fill("miss"));
    expect(await sql(suite.db, "SELECT count(*)::int AS n FROM ratelimit_log WHERE policy = 'logged'")).toEqual([{ n: 5 }]);
  });
});

describe("DenyCache (local elapsed time only)", () => {
  it("expires entries at their moment, bounds its size, forgets by key or by policy", () => {
    const cache = new DenyCache();
    const entry = { until: 1_000, minCost: 2, limit: 5, remaining: 1, resetAt: 1_000, windowMs: 1_000 };
    cache.remember("p", "k", entry);
    expect(cache.lookup("p", "k", 1, 0)).toBeUndefined(); // cost below the cached one
    expect(cache.lookup("p", "k", 2, 999)).toBe(entry);
    expect(cache.lookup("p", "k", 2, 1_000)).toBeUndefined(); // expired, and dropped
    expect(cache.lookup("p", "k", 2, 0)).toBeUndefined();
    for (let i = 0; i < 10_050; i++) cache.remember("p", `k${i}`, { ...entry, until: Infinity });
    let held = 0;
    for (let i = 0; i < 10_050; i++) if (cache.lookup("p", `k${i}`, 5, 0)) held++;
    expect(held).toBe(10_000);
    cache.forget("p", "k10049");
    expect(cache.lookup("p", "k10049", 5, 0)).toBeUndefined();
    cache.forget("p");
    expect(cache.lookup("p", "k10048", 5, 0)).toBeUndefined();
  });
});
