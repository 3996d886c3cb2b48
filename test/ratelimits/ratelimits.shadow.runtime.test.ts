// Shadow mode and a reset in the real Workers runtime (wrangler dev / workerd), over the bridge's
// bounded pool: 1 000 simultaneous checks of a shadow policy of limit 50 → 1 000 × 200, exactly 950
// marked would-refuse, the counters agreeing; a reset racing 500 checks of a limit of 10 → at most
// 20 admitted.
import { describe, expect, it } from "vitest";
import { sql, workerSuite } from "../support";

const suite = workerSuite("ratelimits_shadow_runtime");
const YEAR = 366 * 86_400_000;

async function putPolicy(name: string, body: Record<string, unknown>) {
  const res = await suite.api("PUT", `/v1/ratelimits/policies/${name}`, { timeout_ms: 30_000, ...body });
  expect([200, 201], res.text).toContain(res.status);
}
const check = (policy: string, key: string) => suite.api("POST", "/v1/ratelimits/check", { policy, key });

describe("in workerd", () => {
  it("a shadow policy of limit 50 under 1 000 simultaneous checks: 1 000 × 200, exactly 950 would-refuse", async () => {
    await putPolicy("rt-shadow", { algorithm: "fixed_window", limit: 50, window_ms: YEAR, shadow: true });
    const results = await Promise.all(Array.from({ length: 1000 }, () => check("rt-shadow", "cust")));
    const statuses: Record<number, number> = {};
    for (const r of results) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    console.log("workerd shadow burst:", statuses);
    expect(statuses).toEqual({ 200: 1000 });
    expect(results.filter((r) => r.headers.get("admit-ratelimit-shadow") === "would-refuse")).toHaveLength(950);
    expect(results.filter((r) => r.json.shadow === true)).toHaveLength(950);
    expect(await sql(suite.db, "SELECT admitted::int, rejected::int, would_refuse::int FROM ratelimit_counters WHERE policy = 'rt-shadow'")).toEqual([
      { admitted: 50, rejected: 950, would_refuse: 950 },
    ]);
  }, 300_000);

  it("a reset racing 500 simultaneous checks of a limit of 10: at most 20 admitted", async () => {
    await putPolicy("rt-reset", { algorithm: "fixed_window", limit: 10, window_ms: YEAR });
    let settled = 0;
    let firstDone!: () => void;
    const first = new Promise<void>((r) => (firstDone = r));
    const results = Array.from({ length: 500 }, () =>
      check("rt-reset", "cust").then((r) => {
        if (++settled === 5) firstDone();
        return r;
      }),
    );
    await first;
    const reset = await suite.api("DELETE", "/v1/ratelimits/usage?policy=rt-reset&key=cust");
    expect(reset.status, reset.text).toBe(200);
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
