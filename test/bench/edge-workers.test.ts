// The edge rows' Workers under wrangler dev: the driver-alone peer Worker, and the direct socket of
// Admit's Worker that edge rows reach past wrangler's dev proxy.
import { describe, expect, it } from "vitest";
import { DRIVER_WORKER } from "../../bench/stack";
import { startWranglerDev } from "../../dev/wrangler";
import { MAX_WINDOW_MS } from "../../functions/ratelimits/schemas";
import { sql, workerSuite } from "../support";

describe("the driver-alone Worker (bench/peers/driver-worker)", () => {
  const suite = workerSuite("bench_driver_worker", { config: DRIVER_WORKER });

  it("answers the check from Admit's statement in the Workers runtime, over HTTP and over a WebSocket Client: 200 admitted, 429 refused, 404 without the policy", async () => {
    // The longest window (windows start at multiples of their length since the epoch), so the four checks
    // fall in one window; a short one could end between them and give the last check a fresh count.
    await sql(suite.db, `SELECT admit_ratelimit_put_policy('d', 'fixed_window', 2, ${MAX_WINDOW_MS}, false, 604800000)`);
    const check = (path: string, policy: string) => fetch(suite.worker.url + path, { method: "POST", body: JSON.stringify({ policy, key: "k" }) });
    const answers = [];
    for (const path of ["/check/http", "/check/websocket", "/check/http", "/check"]) {
      const res = await check(path, "d");
      answers.push([res.status, (await res.json()).remaining]);
    }
    expect(answers).toEqual([
      [200, 1],
      [200, 0],
      [429, 0],
      [429, 0],
    ]);
    expect((await check("/check/http", "missing")).status).toBe(404);
    expect((await check("/check/websocket", "missing")).status).toBe(404);
    // Admit's statement answers the two refusals from a read (counted: false), leaving the count to a
    // tally the driver-alone Worker does not have: only the admitted checks wrote.
    expect(await sql(suite.db, "SELECT admitted::int, attempted::int FROM ratelimit_counters WHERE policy = 'd'")).toEqual([{ admitted: 2, attempted: 2 }]);
  }, 30_000);
});

describe("edge rows reach the Worker past wrangler's dev proxy", () => {
  it("wrangler dev's user Worker has a socket of its own, found from /proc, that answers as the proxy does", async () => {
    // No database is needed: "/" and an unauthenticated call are answered before any query.
    const worker = await startWranglerDev({
      vars: { DATABASE_URL: "postgres://nobody:x@127.0.0.1:1/none", NEON_WS_PROXY: "127.0.0.1:1/v1", API_TOKEN: "bench-test" },
      devtools: false,
      direct: true,
    });
    try {
      expect(worker.directUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(worker.directUrl).not.toBe(worker.url);
      for (const base of [worker.url, worker.directUrl!]) {
        const root = await fetch(base + "/");
        expect(await root.json()).toMatchObject({ name: "Admit" });
        const check = await fetch(base + "/v1/ratelimits/check", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
        expect(check.status).toBe(401);
        expect(check.headers.get("content-type")).toContain("application/problem+json");
      }
    } finally {
      await worker.stop();
    }
  }, 90_000);
});
