// The in-isolate deny cache: a burst on an exhausted key stops reaching Postgres, it only ever
// short-circuits denials (never admits), respects cost, and local changes clear it.
import { describe, expect, it } from "vitest";
import { RequestDb } from "../../functions/core/db";
import { tallyFor } from "../../functions/core/tally";
import { DenyCache, decideMany, decideOne, denyCache } from "../../functions/ratelimits";
import { DENY_BELIEF_MS } from "../../functions/ratelimits/cache";
import { checkCoalescing } from "../../functions/ratelimits/sql";
import { bindings, connect, SUITE_BUDGET_MS, servedApp, sql, until, withServedApp } from "../support";

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
    const started = Date.now();
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
    // The limit, plus at most the requests already on their way when the 100th admit came back, and
    // again each time the cached denial stopped being believed (every DENY_BELIEF_MS).
    const lapses = Math.floor((Date.now() - started) / DENY_BELIEF_MS);
    expect(decided).toBeLessThanOrEqual(100 + IN_FLIGHT * (1 + lapses));
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

  // Issue 28, item 2: a check queued on a hot key's counter row decides on the limit it read before
  // the wait. When a PUT raising the limit finishes first through this isolate, that check's 429 is
  // stale: it must not be stored after the PUT cleared the entry (before the fix every later check
  // answered 429 `reason: "cache"` for the rest of the window while the database allowed 100).
  const waitingOnRow = (fn: string) =>
    until(
      async () =>
        (
          await sql<{ n: number }>(
            suite.db,
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%${fn}%'`,
          )
        )[0].n === 1,
      10_000,
      `a ${fn} waiting on the held row`,
    );
  // (A refund takes the same path, but it queues on the same row behind the check, so it cannot
  // finish first here.)
  for (const change of ["policy PUT", "override PUT"] as const) {
    it(`a check in flight across a ${change} through this isolate does not store its (stale) denial`, async () => {
      const policy = `stale-${change.replace(" ", "-")}`;
      // Lock waits long enough for the steps below on a busy machine (a judge of decisions, not of latency).
      const env = bindings(suite.db, { DB_BUDGET_MS: SUITE_BUDGET_MS, LOCK_TIMEOUT_MS: "20000" });
      await withServedApp(env, async (api) => {
        const put = (limit: number) =>
          api("PUT", `/v1/ratelimits/policies/${policy}`, { algorithm: "sliding_window", limit, window_ms: YEAR, timeout_ms: 30_000 });
        const check = () => api("POST", "/v1/ratelimits/check", { policy, key: "k" });
        expect((await put(1)).status).toBe(201);
        // The unit is being spent by another isolate, its row locked until it commits (this isolate
        // has no entry, and the committed counter refuses nothing yet, so its check takes the locked write).
        const holder = await connect(suite.db);
        let pending: ReturnType<typeof check>;
        try {
          await holder.query("BEGIN");
          await holder.query("SELECT admit_ratelimit_check($1, 'k', 1, NULL, 1000)", [policy]);
          pending = check();
          await waitingOnRow("admit_ratelimit_check");
          if (change === "policy PUT") expect((await put(100)).status).toBe(200);
          else {
            const o = await api("PUT", `/v1/ratelimits/policies/${policy}/overrides/k`, {
              limit: 100,
              valid_from: new Date(Date.now() - 60_000).toISOString(),
            });
            expect(o.status).toBe(201);
          }
          await holder.query("COMMIT");
        } finally {
          await holder.end();
        }
        const first = await pending;
        // Decided on the limit it read before its wait.
        expect([first.status, first.json.reason, first.json.limit]).toEqual([429, "limit", 1]);
        const next = await check();
        expect([next.status, next.json.reason, next.headers.get("admit-cache")]).toEqual([200, "limit", "miss"]);
      });
    });
  }

  it("a policy with log: true is never answered from the cache (every call is logged and counted)", async () => {
    await putPolicy("logged", { algorithm: "fixed_window", limit: 1, window_ms: YEAR, log: true });
    const results = [];
    for (let i = 0; i < 5; i++) results.push(await check("logged", "k"));
    expect(results.map((r) => r.headers.get("admit-cache"))).toEqual(Array(5).fill("miss"));
    expect(await sql(suite.db, "SELECT count(*)::int AS n FROM ratelimit_log WHERE policy = 'logged'")).toEqual([{ n: 5 }]);
  });
});

describe("checks queued behind a statement (coalescing on)", () => {
  it("300 checks at once on one key, limit 1: the denial the first answer taught the cache answers the checks still queued, unsent", async () => {
    await putPolicy("queued", { algorithm: "fixed_window", limit: 1, window_ms: YEAR });
    const sentBefore = checkCoalescing.alone + checkCoalescing.batched;
    // All 300 are asked in one turn, so all but the first wait in the coalescer's queue while the first is in the air.
    const dbs = Array.from({ length: 300 }, () => new RequestDb(bindings(suite.db, { COALESCE: "on", DB_BUDGET_MS: SUITE_BUDGET_MS })));
    const decisions = await Promise.all(dbs.map((db) => decideOne(db, { policy: "queued", key: "k" })));
    await Promise.all(dbs.map((db) => db.close()));
    const sent = checkCoalescing.alone + checkCoalescing.batched - sentBefore;
    const by = (allowed: boolean, reason: string) => decisions.filter((d) => d?.result.allowed === allowed && d.result.reason === reason).length;
    expect(by(true, "limit")).toBe(1);
    expect(by(false, "limit") + by(false, "cache")).toBe(299);
    // Each was either sent or answered by the cache while queued. Before, every check queued when
    // the first left was sent after it: 300 decisions to Postgres, none from the cache. (How many go
    // out before the first answer lands depends on its speed: past its stall time a second
    // statement takes up to MAX_BATCH of them, and the rest still wait for the first.)
    expect(by(false, "cache")).toBeGreaterThan(0);
    expect(sent + by(false, "cache")).toBe(300);
    // Postgres saw exactly the decisions that were sent, and admitted one.
    const [row] = await sql<{ admitted: number; attempted: number }>(
      suite.db,
      "SELECT admitted::int, attempted::int FROM ratelimit_counters WHERE policy = 'queued'",
    );
    expect(row).toEqual({ admitted: 1, attempted: sent });
    for (const d of decisions.filter((d) => d?.result.reason === "cache")) expect(d?.result).toMatchObject({ allowed: false, remaining: 0, limit: 1 });
  }, 120_000);
  it("the same for multi-policy checks: 200 at once on two policies, one with limit 1 — one admitted, the queued ones answered by the cache, unsent", async () => {
    await putPolicy("queued-a", { algorithm: "fixed_window", limit: 1, window_ms: YEAR });
    await putPolicy("queued-b", { algorithm: "fixed_window", limit: 1000, window_ms: YEAR });
    const sentBefore = checkCoalescing.alone + checkCoalescing.batched;
    const dbs = Array.from({ length: 200 }, () => new RequestDb(bindings(suite.db, { COALESCE: "on", DB_BUDGET_MS: SUITE_BUDGET_MS })));
    const decisions = await Promise.all(dbs.map((db) => decideMany(db, { policies: ["queued-a", "queued-b"], key: "m" })));
    await Promise.all(dbs.map((db) => db.close()));
    const sent = checkCoalescing.alone + checkCoalescing.batched - sentBefore;
    const answered = decisions.filter((d) => "result" in d) as Array<Exclude<(typeof decisions)[number], { missing: string[] }>>;
    expect(answered).toHaveLength(200);
    expect(answered.filter((d) => d.result.allowed)).toHaveLength(1);
    const cached = answered.filter((d) => d.cached);
    expect(cached.length).toBeGreaterThan(0);
    expect(sent + cached.length).toBe(200);
    // All-or-nothing held: policy b counted exactly the checks Postgres decided, and admitted only the one a admitted.
    const rows = await sql<{ policy: string; admitted: number; attempted: number }>(
      suite.db,
      "SELECT policy, admitted::int, attempted::int FROM ratelimit_counters WHERE policy IN ('queued-a', 'queued-b') ORDER BY policy",
    );
    expect(rows).toEqual([
      { policy: "queued-a", admitted: 1, attempted: sent },
      { policy: "queued-b", admitted: 1, attempted: sent },
    ]);
  }, 120_000);
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

  it("drops answers marked before a change of their key or policy, and only those", () => {
    const cache = new DenyCache();
    const entry = { until: Infinity, minCost: 1, limit: 1, remaining: 0, resetAt: 0, windowMs: 1_000 };
    const before = cache.mark();
    cache.forget("p", "a");
    cache.remember("p", "a", entry, before); // decided before "a" changed: dropped
    cache.remember("p", "b", entry, before); // another key: stored
    cache.remember("q", "a", entry, before); // another policy: stored
    expect([cache.lookup("p", "a", 1, 0), cache.lookup("p", "b", 1, 0), cache.lookup("q", "a", 1, 0)].map(Boolean)).toEqual([false, true, true]);
    cache.remember("p", "a", entry, cache.mark()); // decided after it: stored
    expect(cache.lookup("p", "a", 1, 0)).toBe(entry);
    const settings = { log: false, window_ms: 1_000 };
    const m = cache.mark();
    cache.forget("p"); // the whole policy: its keys and its settings
    cache.remember("p", "c", entry, m);
    cache.learn("p", settings, m);
    expect([cache.lookup("p", "c", 1, 0), cache.policies.get("p")]).toEqual([undefined, undefined]);
    // The record of changes is bounded; a mark older than a record it dropped counts as changed.
    const old = cache.mark();
    for (let i = 0; i < 10_050; i++) cache.forget("r", `k${i}`);
    cache.remember("s", "x", entry, old);
    expect(cache.lookup("s", "x", 1, 0)).toBeUndefined();
    cache.remember("s", "x", entry, cache.mark());
    expect(cache.lookup("s", "x", 1, 0)).toBe(entry);
  });
});
