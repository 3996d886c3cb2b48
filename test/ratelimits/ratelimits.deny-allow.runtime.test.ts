// Deny and allow lists in the real Workers runtime (wrangler dev / workerd): 1 000 simultaneous
// checks of a denied key → 1 000 × 403 denied-by-list and no counter row; the rateLimit() middleware
// of another Worker (the fixture) refuses a denied client with 403 before its handler and lets an
// allow-listed one through uncounted.
import { describe, expect, it } from "vitest";
import { ownSocket } from "../../dev/wrangler";
import { sql, workerSuite } from "../support";
import { postAlone } from "../support/own-connection";

// The fixture Worker: /limited/* behind rateLimit({ policy: "fixture", key: X-Client }), everything else the Admit app.
const suite = workerSuite("ratelimits_lists_runtime", { config: "test/fixtures/ratelimit-worker/wrangler.toml" });
const YEAR = 366 * 86_400_000;
const counterRows = async (key: string) => (await sql<{ n: number }>(suite.db, "SELECT count(*)::int AS n FROM ratelimit_counters WHERE key = $1", [key]))[0].n;

/** One check on a connection of its own (as many different clients would send it), bounded in time. */
const check = (policy: string, key: string) => postAlone(ownSocket(suite.worker), "/v1/ratelimits/check", { policy, key });

describe("in workerd", () => {
  it("a denied key under 1 000 simultaneous checks: 1 000 × 403 denied-by-list, no counter row", async () => {
    expect(
      (await suite.api("PUT", "/v1/ratelimits/policies/rt-deny", { algorithm: "fixed_window", limit: 1000, window_ms: YEAR, timeout_ms: 30_000 })).status,
    ).toBe(201);
    const put = await suite.api("PUT", "/v1/ratelimits/lists/deny", { kind: "key", value: "blocked", policy: "rt-deny", reason: "fraud" });
    expect(put.status, put.text).toBe(201);
    const results = await Promise.all(Array.from({ length: 1000 }, () => check("rt-deny", "blocked")));
    const statuses: Record<number, number> = {};
    for (const r of results) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    console.log("workerd deny burst:", statuses);
    expect(statuses).toEqual({ 403: 1000 });
    expect(results.every((r) => r.json.type === "/problems/denied-by-list" && r.json.entry.reason === "fraud")).toBe(true);
    expect(await counterRows("blocked")).toBe(0);
  }, 300_000);

  it("the rateLimit() middleware: a denied client → 403 before the handler; an allow-listed one passes uncounted", async () => {
    expect(
      (await suite.api("PUT", "/v1/ratelimits/policies/fixture", { algorithm: "fixed_window", limit: 2, window_ms: YEAR, timeout_ms: 30_000 })).status,
    ).toBe(201);
    expect((await suite.api("PUT", "/v1/ratelimits/lists/deny", { kind: "prefix", value: "bad-", policy: "fixture" })).status).toBe(201);
    expect((await suite.api("PUT", "/v1/ratelimits/lists/allow", { kind: "key", value: "internal-job" })).status).toBe(201);
    const hello = (client: string) => fetch(`${suite.worker.url}/limited/hello`, { headers: { "X-Client": client } });
    const denied = await hello("bad-actor");
    expect([denied.status, denied.headers.get("content-type"), (await denied.json()).type]).toEqual([
      403,
      "application/problem+json",
      "/problems/denied-by-list",
    ]);
    const allowed = await Promise.all(Array.from({ length: 10 }, () => hello("internal-job")));
    expect(allowed.map((r) => r.status)).toEqual(Array(10).fill(200));
    for (const r of allowed) expect(r.headers.get("admit-ratelimit-list")).toBe("allow");
    expect(await counterRows("internal-job")).toBe(0);
    expect(await counterRows("bad-actor")).toBe(0);
    // Anyone else is limited as usual: 2 admitted, then 429.
    expect([(await hello("someone")).status, (await hello("someone")).status, (await hello("someone")).status]).toEqual([200, 200, 429]);
  }, 300_000);
});
