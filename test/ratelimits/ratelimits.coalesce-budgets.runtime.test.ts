// Checks of different budgets in one coalesced statement in the real Workers runtime (wrangler dev /
// workerd). There a fetch belongs to the request that made it and ends with it, unless the request
// is kept open by `waitUntil`: the request carrying a batch answers at its own deadline, and the
// batch, which runs to the latest deadline among its checks, must still land for the others
// (functions/core/db.ts keepAlive, closed in waitUntil). How the two checks are made to share a
// batch: coalesce-budgets.ts; this isolate's coalescer counters come from the fixture's /coalesce-stats.
import { describe, expect, it } from "vitest";
import { until, workerSuite } from "../support";
import { batchedPair, counter, putPolicy, YEAR } from "./coalesce-budgets";

const suite = workerSuite("ratelimits_coalesce_budgets_runtime", {
  config: "test/fixtures/ratelimit-worker/wrangler.toml",
  vars: { COALESCE: "on", RATELIMIT_DENY_CACHE: "off", LOCK_TIMEOUT_MS: "10000" },
});
const stats = async () => (await fetch(`${suite.worker.url}/coalesce-stats`)).json();

describe("checks of different budgets in one batch, in wrangler dev", () => {
  it("the carrier answers 504 at its own deadline while the batch waits on a lock; the batch lands after its response and decides the check beside it", async () => {
    await putPolicy(suite.api, "cb-carrier", { algorithm: "fixed_window", limit: 1_000_000, window_ms: YEAR, timeout_ms: 3_000 });
    await putPolicy(suite.api, "cb-long", { algorithm: "fixed_window", limit: 1_000_000, window_ms: YEAR, timeout_ms: 20_000 });
    const { s, l } = await batchedPair(suite.api, suite.db, stats, { short: "cb-carrier", long: "cb-long", queuedMs: 1_500, heldMs: 2_200 });
    console.log("carrier:", s.status, s.json?.type, "long:", l.status, l.json?.reason ?? l.json?.type);
    expect({ status: l.status, allowed: l.json.allowed, reason: l.json.reason }).toEqual({ status: 200, allowed: true, reason: "limit" });
    expect(await counter(suite.db, "cb-long", "l")).toEqual({ admitted: 2, attempted: 2 });
    expect({ status: s.status, type: s.json.type }).toEqual({ status: 504, type: "/problems/outcome-unknown" });
    await until(async () => (await counter(suite.db, "cb-carrier", "s"))?.attempted === 1, 20_000, "the carrier's check committed by the batch");
  }, 120_000);
});
