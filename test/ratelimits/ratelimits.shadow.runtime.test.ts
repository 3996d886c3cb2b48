// Shadow mode and a reset in the real Workers runtime (wrangler dev / workerd), over the bridge's
// bounded pool: 1 000 simultaneous checks of a shadow policy of limit 50 → 1 000 × 200, exactly 950
// marked would-refuse, the counters agreeing; the rateLimit() middleware of another Worker (the
// fixture) lets a shadow policy's refusals through to its handler; a reset racing 500 checks of a
// limit of 10 → at most 20 admitted.
import { describe, expect, it } from "vitest";
import { ownSocket } from "../../dev/wrangler";
import { sql, until, workerSuite } from "../support";
import { postAlone } from "../support/own-connection";

// The fixture Worker: /limited/* behind rateLimit({ policy: "fixture" }), everything else the Admit app.
const suite = workerSuite("ratelimits_shadow_runtime", { config: "test/fixtures/ratelimit-worker/wrangler.toml" });
const YEAR = 366 * 86_400_000;

async function putPolicy(name: string, body: Record<string, unknown>) {
  const res = await suite.api("PUT", `/v1/ratelimits/policies/${name}`, { timeout_ms: 30_000, ...body });
  expect([200, 201], res.text).toContain(res.status);
}
/** One check on a connection of its own (as many different clients would send it), bounded in time. */
const check = (policy: string, key: string) => postAlone(ownSocket(suite.worker), "/v1/ratelimits/check", { policy, key });

describe("in workerd", () => {
  it("a shadow policy of limit 50 under 1 000 simultaneous checks: 1 000 × 200, exactly 950 would-refuse", async () => {
    await putPolicy("rt-shadow", { algorithm: "fixed_window", limit: 50, window_ms: YEAR, shadow: true });
    const results = await Promise.all(Array.from({ length: 1000 }, () => check("rt-shadow", "cust")));
    const statuses: Record<number, number> = {};
    for (const r of results) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    console.log("workerd shadow burst:", statuses);
    expect(statuses).toEqual({ 200: 1000 });
    expect(results.filter((r) => r.headers["admit-ratelimit-shadow"] === "would-refuse")).toHaveLength(950);
    expect(results.filter((r) => r.json.shadow === true)).toHaveLength(950);
    // Refusals the committed counter decides are answered from a read; the isolate's tally counts them.
    const counted = async () =>
      (await sql<{ rejected: number }>(suite.db, "SELECT rejected::int FROM ratelimit_counters WHERE policy = 'rt-shadow'"))[0]?.rejected ?? 0;
    await until(async () => (await counted()) >= 950, 30_000, "the tally to count the refusals read");
    expect(await sql(suite.db, "SELECT admitted::int, rejected::int, would_refuse::int FROM ratelimit_counters WHERE policy = 'rt-shadow'")).toEqual([
      { admitted: 50, rejected: 950, would_refuse: 950 },
    ]);
  }, 300_000);

  it("the rateLimit() middleware: a shadow policy's refusals reach the handler, marked would-refuse", async () => {
    await putPolicy("fixture", { algorithm: "fixed_window", limit: 5, window_ms: YEAR, shadow: true });
    const hello = () => fetch(`${suite.worker.url}/limited/hello`, { headers: { "X-Client": "shadow-tenant" } });
    const results = await Promise.all(Array.from({ length: 20 }, () => hello()));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    for (const r of results) expect(await r.json()).toEqual({ hello: "world" });
    expect(results.filter((r) => r.headers.get("admit-ratelimit-shadow") === "would-refuse")).toHaveLength(15);
    expect(await sql(suite.db, "SELECT admitted::int, would_refuse::int FROM ratelimit_counters WHERE policy = 'fixture' AND key = 'shadow-tenant'")).toEqual([
      { admitted: 5, would_refuse: 15 },
    ]);
  }, 300_000);

  it("a reset racing 500 simultaneous checks of a limit of 10: at most 20 admitted", async () => {
    await putPolicy("rt-reset", { algorithm: "fixed_window", limit: 10, window_ms: YEAR });
    // One check first (the counter row exists), then the burst with the reset sent in its middle.
    const first = await check("rt-reset", "cust");
    expect(first.status).toBe(200);
    const results = Array.from({ length: 250 }, () => check("rt-reset", "cust"));
    const resetting = suite.api("DELETE", "/v1/ratelimits/usage?policy=rt-reset&key=cust");
    results.push(...Array.from({ length: 249 }, () => check("rt-reset", "cust")), Promise.resolve(first));
    const reset = await resetting;
    expect(reset.status, reset.text).toBe(200);
    expect(reset.json.policies).toEqual(["rt-reset"]);
    const statuses = (await Promise.all(results)).map((r) => r.status);
    const admitted = statuses.filter((s) => s === 200).length;
    console.log("workerd reset race:", { admitted, refused: statuses.filter((s) => s === 429).length });
    expect(statuses.every((s) => s === 200 || s === 429)).toBe(true);
    expect(admitted).toBeGreaterThanOrEqual(10);
    expect(admitted).toBeLessThanOrEqual(20);
    const [row] = await sql<{ admitted: number }>(suite.db, "SELECT admitted::int FROM ratelimit_counters WHERE policy = 'rt-reset'");
    expect(row.admitted).toBe(admitted);
  }, 300_000);
});
