// Every call counted (issue 32): with the deny cache on, the calls it answers reach `attempted` and
// `rejected` of their window through the isolate's tally (functions/core/tally.ts), one statement per
// flush after the responses, within METRICS_FLUSH_MS — exactly once. Also the keys of a policy, the
// per-minute decisions, /metrics, Server-Timing and the decision log line.
import { afterEach, describe, expect, it, vi } from "vitest";
import { tallyFor } from "../../functions/core/tally";
import { bindings, SUITE_BUDGET_MS, servedApp, sql, until, withServedApp } from "../support";

const FLUSH_MS = 1_000;
const suite = servedApp("ratelimits_counted", { METRICS_FLUSH_MS: String(FLUSH_MS) });

const YEAR = 366 * 86_400_000;

async function putPolicy(name: string, body: Record<string, unknown>) {
  const res = await suite.api("PUT", `/v1/ratelimits/policies/${name}`, body);
  expect([200, 201]).toContain(res.status);
}

/** POST /v1/ratelimits/check, retrying a 503 (nothing applied, nothing counted) as a client honouring Retry-After would. */
async function check(policy: string, key: string, cost = 1) {
  for (let attempt = 0; ; attempt++) {
    const res = await suite.api("POST", "/v1/ratelimits/check", { policy, key, cost });
    if (res.status !== 503 || attempt >= 20) return res;
    await new Promise((r) => setTimeout(r, 50 + Math.random() * 200));
  }
}

const usage = async (policy: string, key: string) => (await suite.api("GET", `/v1/ratelimits/usage?policy=${policy}&key=${key}`)).json;
/** Waits until the tally of this process holds nothing and has no flush under way: every count has landed. */
const flushed = () => until(async () => tallyFor(bindings(suite.db))?.idle ?? true, 30_000, "the tally to flush");

afterEach(() => vi.restoreAllMocks());

describe("every call counted, the deny cache's too", () => {
  it("500 simultaneous checks on one key, limit 50 → 50 × 200, 450 × 429; once flushed, usage is exactly attempted 500, admitted 50, rejected 450 — and stays so", async () => {
    await putPolicy("burst", { algorithm: "fixed_window", limit: 50, window_ms: YEAR, timeout_ms: 30_000 });
    const results = await Promise.all(Array.from({ length: 500 }, () => check("burst", "cust")));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(50);
    expect(statuses.filter((s) => s === 429)).toHaveLength(450);
    const hits = results.filter((r) => r.headers.get("admit-cache") === "hit").length;
    console.log(`500-burst: ${hits} answered by the deny cache, ${500 - hits} by Postgres`);
    expect(hits).toBeGreaterThan(0); // otherwise this test would not be about the cache
    // Server-Timing on every answer: the database's time, and who answered.
    for (const r of results) {
      const st = r.headers.get("server-timing")!;
      expect(st).toMatch(/^db;dur=\d+\.\d, cache;desc=(hit|miss)$/);
      expect(st.endsWith(r.headers.get("admit-cache")!)).toBe(true);
      if (r.headers.get("admit-cache") === "hit") expect(st).toMatch(/^db;dur=0\.0,/);
    }
    // Within the flush bound (polled: the bound of a broken test, not a timing claim).
    await until(async () => (await usage("burst", "cust")).attempted >= 500, 30_000, "attempted to reach 500");
    await flushed();
    expect(await usage("burst", "cust")).toMatchObject({ admitted: 50, attempted: 500, rejected: 450, consumed: 50 });
    // Another flush interval later: nothing counted twice.
    await new Promise((r) => setTimeout(r, 2 * FLUSH_MS));
    expect(await sql(suite.db, "SELECT admitted::int, attempted::int, rejected::int FROM ratelimit_counters WHERE policy = 'burst'")).toEqual([
      { admitted: 50, attempted: 500, rejected: 450 },
    ]);
    // The decisions counter agrees: 50 allowed, 450 denied.
    expect(
      await sql(
        suite.db,
        "SELECT labels->>'outcome' AS outcome, sum(value)::int AS n FROM metric_minutes WHERE name = 'admit_ratelimit_decisions_total' AND labels->>'policy' = 'burst' GROUP BY 1 ORDER BY 1",
      ),
    ).toEqual([
      { outcome: "allowed", n: 50 },
      { outcome: "denied", n: 450 },
    ]);
  }, 240_000);

  it("several policies answered from the cache count on every policy of the check, as the database would", async () => {
    await putPolicy("m-small", { algorithm: "fixed_window", limit: 2, window_ms: YEAR });
    await putPolicy("m-big", { algorithm: "sliding_window", limit: 100, window_ms: YEAR });
    const multi = () => suite.api("POST", "/v1/ratelimits/check", { policies: ["m-small", "m-big"], key: "k" });
    const statuses = [];
    for (let i = 0; i < 10; i++) statuses.push((await multi()).status);
    expect(statuses).toEqual([200, 200, ...Array(8).fill(429)]);
    await flushed();
    for (const p of ["m-small", "m-big"]) expect(await usage(p, "k")).toMatchObject({ admitted: 2, attempted: 10, rejected: 8 });
  });

  it("a token bucket's cached denials count in its current window", async () => {
    await putPolicy("tb", { algorithm: "token_bucket", limit: 3, window_ms: YEAR });
    for (let i = 0; i < 12; i++) await check("tb", "k");
    await flushed();
    expect(await usage("tb", "k")).toMatchObject({ admitted: 3, attempted: 12, rejected: 9 });
  });
});

describe("the keys of a policy", () => {
  it("by denials and by use, in the current window and the last hour, paged", async () => {
    // A window no run straddles: with a minute's, calls made late in one minute and read in the next
    // (a loaded CI machine) found the current window empty.
    await putPolicy("keys", { algorithm: "fixed_window", limit: 3, window_ms: YEAR });
    // key k<i> makes 3 + i calls: 3 admitted, i denied.
    for (let i = 0; i < 6; i++) for (let j = 0; j < 3 + i; j++) await check("keys", `k${i}`);
    await flushed();
    const page1 = await suite.api("GET", "/v1/ratelimits/policies/keys/keys?limit=2");
    expect(page1.status).toBe(200);
    expect(page1.json.items.map((k: { key: string; rejected: number }) => [k.key, k.rejected])).toEqual([
      ["k5", 5],
      ["k4", 4],
    ]);
    const page2 = await suite.api("GET", `/v1/ratelimits/policies/keys/keys?limit=2&cursor=${page1.json.next_cursor}`);
    const page3 = await suite.api("GET", `/v1/ratelimits/policies/keys/keys?limit=2&cursor=${page2.json.next_cursor}`);
    expect([...page2.json.items, ...page3.json.items].map((k: { key: string }) => k.key)).toEqual(["k3", "k2", "k1"]);
    expect(page3.json.next_cursor).toBeNull();
    const hour = await suite.api("GET", "/v1/ratelimits/policies/keys/keys?window=1h&order=used");
    expect(hour.json.items.map((k: { key: string; consumed: number }) => k.consumed)).toEqual(Array(6).fill(3));
    expect(hour.json.items.map((k: { key: string }) => k.key)).toEqual(["k0", "k1", "k2", "k3", "k4", "k5"]);
    expect((await suite.api("GET", "/v1/ratelimits/policies/nope/keys")).status).toBe(404);
    expect((await suite.api("GET", "/v1/ratelimits/policies/keys/keys?cursor=bogus")).status).toBe(422);
    const minutes = await suite.api("GET", "/v1/ratelimits/policies/keys/decisions?minutes=5");
    expect(minutes.status).toBe(200);
    const sum = (f: "allowed" | "denied") => minutes.json.items.reduce((s: number, m: Record<string, number>) => s + m[f], 0);
    expect([sum("allowed"), sum("denied")]).toEqual([18, 15]);
  });
});

describe("GET /metrics", () => {
  it("needs the token, and exposes the decisions by policy and outcome with no key anywhere", async () => {
    expect((await fetch(`${suite.server.url}/metrics`)).status).toBe(401);
    await flushed();
    const res = await suite.api("GET", "/metrics");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    expect(res.text).toContain("# TYPE admit_ratelimit_decisions_total counter");
    expect(res.text).toContain('admit_ratelimit_decisions_total{outcome="allowed",policy="burst"} 50');
    expect(res.text).toContain('admit_ratelimit_decisions_total{outcome="denied",policy="burst"} 450');
    expect(res.text).toMatch(/^admit_permits_in_use\{kind="semaphore"\} \d+$/m);
    expect(res.text).not.toContain("cust");
  });

  it("a sweep rolls old minute rows into the totals: no counter goes down", async () => {
    await flushed();
    const before = (await suite.api("GET", "/metrics")).text;
    await sql(suite.db, "UPDATE metric_minutes SET minute = minute - interval '2 days'");
    const [{ n }] = await sql<{ n: number }>(suite.db, "SELECT admit_sweep_metrics() AS n");
    expect(n).toBeGreaterThan(0);
    expect(await sql(suite.db, "SELECT count(*)::int AS n FROM metric_minutes")).toEqual([{ n: 0 }]);
    const after = (await suite.api("GET", "/metrics")).text;
    const series = (text: string) => text.split("\n").filter((l) => l.startsWith("admit_ratelimit_decisions_total") || l.startsWith("admit_decisions_total"));
    expect(series(after)).toEqual(series(before));
  });
});

describe("bounded cardinality", () => {
  it('policies past METRICS_MAX_POLICIES count as policy="_other"; a policy once labelled keeps its label', async () => {
    const flush = (policy: string, cap: number) =>
      sql(suite.db, "SELECT admit_observe_flush('[]'::jsonb, $1::jsonb, $2::integer, 1000)", [
        JSON.stringify([{ m: "admit_ratelimit_decisions_total", l: { policy, outcome: "denied" }, n: 3, a: 0 }]),
        cap,
      ]);
    const [{ n }] = await sql<{ n: number }>(suite.db, "SELECT count(*)::int AS n FROM metric_policies");
    await flush("cap-late", n); // no room left: "_other"
    await flush("cap-first", n + 1); // room for one: its own label
    await flush("cap-first", 0); // the cap lowered afterwards: it keeps it
    const rows = await sql(
      suite.db,
      "SELECT labels->>'policy' AS policy, sum(value)::int AS n FROM metric_minutes WHERE labels->>'policy' IN ('cap-late', 'cap-first', '_other') GROUP BY 1 ORDER BY 1",
    );
    expect(rows).toEqual([
      { policy: "_other", n: 3 },
      { policy: "cap-first", n: 6 },
    ]);
  });
});

describe("the decision log", () => {
  it("one JSON object per decision at the configured level, never the key or the info", async () => {
    await putPolicy("logged", { algorithm: "fixed_window", limit: 2, window_ms: YEAR });
    const lines: unknown[] = [];
    vi.spyOn(console, "log").mockImplementation((x: unknown) => void lines.push(x));
    // An app of its own on the same database, logging at "info" (the default is "warn").
    await withServedApp(bindings(suite.db, { DB_BUDGET_MS: SUITE_BUDGET_MS, DECISION_LOG_LEVEL: "info", DECISION_LOG_SAMPLE: "1" }), async (api) => {
      const call = (cost: number) => api("POST", "/v1/ratelimits/check", { policy: "logged", key: "secret-api-key-123", cost, info: { token: "hunter2" } });
      expect([(await call(1)).status, (await call(2)).status, (await call(2)).status]).toEqual([200, 429, 429]);
    });
    const decisions = lines.filter((l) => (l as { event?: string })?.event === "admit.ratelimit.decision") as Array<Record<string, unknown>>;
    // DECISION_LOG_LEVEL=info: the two denials (one by Postgres, one by the cache), not the admit (debug).
    expect(decisions.map((d) => [d.outcome, d.cached, d.level])).toEqual([
      ["denied", false, "info"],
      ["denied", true, "info"],
    ]);
    expect(decisions[0]).toMatchObject({ via: "http", policies: ["logged"], cost: 2, reason: "limit", remaining: 1 });
    expect(decisions[1]).toMatchObject({ reason: "cache", db_ms: 0 });
    expect(typeof decisions[0].key_fnv).toBe("string");
    expect(JSON.stringify(decisions)).not.toMatch(/secret-api-key|hunter2/);
  });
});
