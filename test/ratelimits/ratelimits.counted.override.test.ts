// A deny-cache refusal is counted in the window its cached denial was decided in, also when the
// denial stands less than the rest of the window: a fixed-window denial cached until the key's next
// override boundary (an override starting in an hour) stops there, not at the window's end.
import { describe, expect, it } from "vitest";
import { tallyFor } from "../../functions/core/tally";
import { denyCache } from "../../functions/ratelimits";
import { bindings, servedApp, sql, until } from "../support";

const suite = servedApp("ratelimits_counted_override", { METRICS_FLUSH_MS: "300" }); // deny cache on (the default)
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const flushed = () => until(async () => tallyFor(bindings(suite.db))?.idle ?? true, 30_000, "the tally to flush");

/**
 * A window of about two days in which the database's clock is now in the first seconds, so that
 * an override an hour ahead falls in its first half (where inferring the window from the end of the
 * cached denial picked the previous one) whatever the time of day the test runs at.
 */
async function earlyWindow(): Promise<{ windowMs: number; slot: number; now: number }> {
  const [{ now }] = await sql<{ now: number }>(suite.db, "SELECT floor(extract(epoch FROM now()) * 1000)::float8 AS now");
  const n = Math.floor(now / (2 * DAY));
  const windowMs = Math.floor(now / n);
  expect(now - n * windowMs + HOUR).toBeLessThan(windowMs / 2); // the scenario's premise
  return { windowMs, slot: n, now };
}

async function put(path: string, body: Record<string, unknown>) {
  const res = await suite.api("PUT", path, body);
  expect([200, 201], res.text).toContain(res.status);
}

const slots = (policy: string) =>
  sql<{ slot: number; attempted: number; rejected: number }>(
    suite.db,
    "SELECT slot::float8 AS slot, attempted::int, rejected::int FROM ratelimit_counters WHERE policy = $1 ORDER BY slot",
    [policy],
  );

describe("deny-cache refusals before an override boundary", () => {
  it("a limit of 1 and an override starting in an hour, 10 checks: all 10 in this window's counts, none in the previous one", async () => {
    const { windowMs, slot, now } = await earlyWindow();
    await put("/v1/ratelimits/policies/ovb-one", { algorithm: "fixed_window", limit: 1, window_ms: windowMs });
    await put("/v1/ratelimits/policies/ovb-one/overrides/k", { limit: 5, valid_from: new Date(now + HOUR).toISOString() });
    const answers = [];
    for (let i = 0; i < 10; i++) answers.push(await suite.api("POST", "/v1/ratelimits/check", { policy: "ovb-one", key: "k" }));
    expect(answers.map((r) => r.status)).toEqual([200, ...Array(9).fill(429)]);
    // The denial stands until the override starts (an hour), not until the window ends.
    const hit = answers.find((r) => r.headers.get("admit-cache") === "hit");
    expect(hit, "the deny cache answered some").toBeDefined();
    expect(hit!.json.retry_after_ms).toBeLessThanOrEqual(HOUR);
    await flushed();
    expect(await slots("ovb-one")).toEqual([{ slot, attempted: 10, rejected: 9 }]);
    expect((await suite.api("GET", "/v1/ratelimits/usage?policy=ovb-one&key=k")).json).toMatchObject({ admitted: 1, attempted: 10, rejected: 9 });
    // The cached denial carries the window it was decided in.
    expect(denyCache.lookup("ovb-one", "k", 1, Date.now())?.windowStart).toBe(slot * windowMs);
  });

  it("the same through a multi-policy check: each policy's refusals in its own current window", async () => {
    const { windowMs, slot, now } = await earlyWindow();
    await put("/v1/ratelimits/policies/ovb-m1", { algorithm: "fixed_window", limit: 1, window_ms: windowMs });
    await put("/v1/ratelimits/policies/ovb-m2", { algorithm: "fixed_window", limit: 100, window_ms: windowMs });
    await put("/v1/ratelimits/policies/ovb-m1/overrides/k", { limit: 5, valid_from: new Date(now + HOUR).toISOString() });
    const statuses = [];
    for (let i = 0; i < 10; i++) statuses.push((await suite.api("POST", "/v1/ratelimits/check", { policies: ["ovb-m1", "ovb-m2"], key: "k" })).status);
    expect(statuses).toEqual([200, ...Array(9).fill(429)]);
    await flushed();
    expect(await slots("ovb-m1")).toEqual([{ slot, attempted: 10, rejected: 9 }]);
    expect(await slots("ovb-m2")).toEqual([{ slot, attempted: 10, rejected: 9 }]);
  });
});
