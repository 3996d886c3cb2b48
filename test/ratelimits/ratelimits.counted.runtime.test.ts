// Every call counted through the rateLimit() middleware in workerd (test/fixtures/ratelimit-worker):
// the calls its deny cache answers reach attempted/rejected within the flush bound, exactly once; and
// what an isolate evicted before its flush loses, measured.
import { describe, expect, it } from "vitest";
import { sql, until, workerSuite } from "../support";

const FIXTURE = "test/fixtures/ratelimit-worker/wrangler.toml";
const suite = workerSuite("ratelimits_counted_runtime", { config: FIXTURE, vars: { METRICS_FLUSH_MS: "2000" } });

const hello = (worker: { url: string }, clientId: string) => fetch(`${worker.url}/limited/hello`, { headers: { "X-Client": clientId } });

const counters = (db: string, key: string) =>
  sql<{ admitted: number; attempted: number; rejected: number }>(
    db,
    "SELECT admitted::int, attempted::int, rejected::int FROM ratelimit_counters WHERE policy = 'fixture' AND key = $1",
    [key],
  );

describe("rateLimit() middleware: every call counted", () => {
  it("500 simultaneous requests on one key, limit 50 → 50 through, 450 × 429; once flushed, usage is exactly attempted 500, admitted 50, rejected 450, and /metrics agrees", async () => {
    const put = await suite.api("PUT", "/v1/ratelimits/policies/fixture", {
      algorithm: "fixed_window",
      limit: 50,
      window_ms: 366 * 86_400_000,
      timeout_ms: 30_000,
    });
    expect(put.status).toBe(201);
    const results = await Promise.all(
      Array.from({ length: 500 }, () =>
        hello(suite.worker, "burst").then(async (r) => ({ status: r.status, cache: r.headers.get("admit-cache"), body: await r.text() })),
      ),
    );
    const count = (s: number) => results.filter((r) => r.status === s).length;
    console.log(`middleware 500-burst: ${results.filter((r) => r.cache === "hit").length} answered by the deny cache`);
    expect([count(200), count(429)]).toEqual([50, 450]);
    await until(async () => ((await counters(suite.db, "burst"))[0]?.attempted ?? 0) >= 500, 30_000, "attempted to reach 500");
    const usage = await suite.api("GET", "/v1/ratelimits/usage?policy=fixture&key=burst");
    expect(usage.json).toMatchObject({ admitted: 50, attempted: 500, rejected: 450 });
    // Under a burst nearly every call reached Postgres before the first denial was cached; the next
    // 100, one after another, are all the cache's — and counted all the same.
    const more: Array<string | null> = [];
    for (let i = 0; i < 100; i++) more.push((await hello(suite.worker, "burst")).headers.get("admit-cache"));
    expect(more).toEqual(Array(100).fill("hit"));
    await until(async () => ((await counters(suite.db, "burst"))[0]?.attempted ?? 0) >= 600, 30_000, "attempted to reach 600");
    // Two flush intervals later, nothing was counted twice.
    await new Promise((r) => setTimeout(r, 4_000));
    expect(await counters(suite.db, "burst")).toEqual([{ admitted: 50, attempted: 600, rejected: 550 }]);
    const metrics = await suite.api("GET", "/metrics");
    expect(metrics.text).toContain('admit_ratelimit_decisions_total{outcome="allowed",policy="fixture"} 50');
    expect(metrics.text).toContain('admit_ratelimit_decisions_total{outcome="denied",policy="fixture"} 550');
  }, 240_000);
});

describe("an isolate evicted before its flush", () => {
  const slow = workerSuite("ratelimits_evicted", { config: FIXTURE, vars: { METRICS_FLUSH_MS: "60000" } });

  it("loses the deny-cache answers it held since its last flush, and nothing the database decided (measured)", async () => {
    await slow.api("PUT", "/v1/ratelimits/policies/fixture", { algorithm: "fixed_window", limit: 10, window_ms: 366 * 86_400_000 });
    const statuses: number[] = [];
    for (let i = 0; i < 100; i++) statuses.push((await hello(slow.worker, "evict")).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    // The process dies with its flush still waiting (wrangler's process group is killed).
    await slow.worker.stop();
    const [row] = await counters(slow.db, "evict");
    console.log(`evicted isolate: of 100 calls, ${row.attempted} counted, ${100 - row.attempted} lost (deny-cache answers not yet flushed)`);
    expect(row.admitted).toBe(10);
    // Whatever Postgres decided is there; what is missing are cache answers only (at most one flush interval's).
    expect(row.attempted).toBeGreaterThanOrEqual(10);
    expect(row.attempted - row.rejected).toBe(10);
  }, 240_000);
});
