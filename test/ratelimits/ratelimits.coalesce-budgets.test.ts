// Checks of different budgets coalesced into one statement (functions/core/coalesce/send.ts),
// against real Postgres with real simultaneous requests: each keeps its own `timeout_ms` and lock
// timeout in a batch. A short-budget check carrying the batch answers at its
// own deadline; the long-budget check beside it, whose counter row another session holds, is still
// decided and counted, by the batch itself or, when the batch's lock wait was refused, by a
// statement of its own sent on its own budget. How the two are made to share a batch: coalesce-budgets.ts.
import { describe, expect, it } from "vitest";
import { checkCoalescing } from "../../functions/ratelimits/sql";
import { servedApp, until } from "../support";
import { batchedPair, counter, putPolicy, YEAR } from "./coalesce-budgets";

// LOCK_TIMEOUT_MS above every policy's timeout_ms here: each check's lock timeout is its policy's.
const suite = servedApp("ratelimits_coalesce_budgets", { RATELIMIT_DENY_CACHE: "off", COALESCE: "on", LOCK_TIMEOUT_MS: "10000" });
const stats = async () => ({ ...checkCoalescing });

describe("checks of different budgets in one batch each keep their own", () => {
  it("a timeout_ms 20 000 check whose row is held 1.5 s, batched with a timeout_ms 1 000 one: answered 200 and counted; the short one answers for itself", async () => {
    await putPolicy(suite.api, "cb-short", { algorithm: "fixed_window", limit: 1_000_000, window_ms: YEAR, timeout_ms: 1_000 });
    await putPolicy(suite.api, "cb-long", { algorithm: "fixed_window", limit: 1_000_000, window_ms: YEAR, timeout_ms: 20_000 });
    const { s, l, fallbacks } = await batchedPair(suite.api, suite.db, stats, { short: "cb-short", long: "cb-long", queuedMs: 0, heldMs: 1_500 });
    console.log("short:", s.status, s.json?.type ?? s.json?.reason, "long:", l.status, l.json?.type ?? l.json?.reason, { fallbacks });
    expect({ status: l.status, allowed: l.json.allowed, reason: l.json.reason }).toEqual({ status: 200, allowed: true, reason: "limit" });
    expect(l.headers.get("admit-ratelimit-enforced")).toBeNull();
    expect(await counter(suite.db, "cb-long", "l")).toEqual({ admitted: 2, attempted: 2 });
    // The short one: decided (sent again alone, within its own time), or its own fail-closed answer.
    if (s.status === 200) expect(await counter(suite.db, "cb-short", "s")).toEqual({ admitted: 1, attempted: 1 });
    else
      expect({ status: [503, 504].includes(s.status), timeout_ms: s.json.timeout_ms, reason: s.json.reason }).toEqual({
        status: true,
        timeout_ms: 1_000,
        reason: "timeout",
      });
  }, 120_000);

  it("the carrier's deadline passes while the batch waits on a lock: it answers 504 for itself, and the fail-open check beside it is decided by the batch, enforced", async () => {
    await putPolicy(suite.api, "cb-carrier", { algorithm: "fixed_window", limit: 1_000_000, window_ms: YEAR, timeout_ms: 3_000 });
    await putPolicy(suite.api, "cb-open", { algorithm: "fixed_window", limit: 1_000_000, window_ms: YEAR, timeout_ms: 20_000, on_unavailable: "allow" });
    // The carrier has ~1.5 s left when the batch leaves and a lock timeout of 2 950 ms: its deadline
    // passes while the batch waits, and the row is let go 2.2 s after it left, before that lock timeout.
    const { s, l } = await batchedPair(suite.api, suite.db, stats, { short: "cb-carrier", long: "cb-open", queuedMs: 1_500, heldMs: 2_200 });
    console.log("carrier:", s.status, s.json?.type ?? s.json?.reason, "open:", l.status, l.json?.reason);
    expect({ status: l.status, allowed: l.json.allowed, reason: l.json.reason }).toEqual({ status: 200, allowed: true, reason: "limit" });
    expect(l.headers.get("admit-ratelimit-enforced")).toBeNull();
    expect(await counter(suite.db, "cb-open", "l")).toEqual({ admitted: 2, attempted: 2 });
    // Its own deadline: 504 (sent, no answer in time); the batch then committed its check too.
    expect({ status: s.status, type: s.json.type, consumed: s.json.consumed, timeout_ms: s.json.timeout_ms }).toEqual({
      status: 504,
      type: "/problems/outcome-unknown",
      consumed: "unknown",
      timeout_ms: 3_000,
    });
    await until(async () => (await counter(suite.db, "cb-carrier", "s"))?.attempted === 1, 20_000, "the carrier's check committed by the batch");
  }, 120_000);
});
