// How rate-limit counters are stored: HOT updates, the sweeper (windows past their history, a token
// bucket never while its TAT is ahead), and counts past 2^31.
import { describe, expect, it } from "vitest";
import { mapSqlError } from "../../functions/core/db";
import { connect, roomInWindow, servedApp, sql } from "../support";
import { checkAt, DAY, ratelimitApi } from "./helpers";

// The deny cache is exercised in ratelimits.cache.test.ts; here every check reaches Postgres.
const suite = servedApp("ratelimits_storage", { RATELIMIT_DENY_CACHE: "off" });
const { putPolicy, check } = ratelimitApi(suite);
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
