// DELETE /v1/ratelimits/usage: a key's fresh window. A reset racing a burst of checks of the key never
// admits more than the old window's and one fresh window's units (real simultaneous requests, real
// Postgres, counters read back); each algorithm restarts; the reset is audited, clears this
// isolate's cached denial at once, and without `policy` touches only the policies the key may.
import { describe, expect, it } from "vitest";
import { DENY_BELIEF_MS, DenyCache } from "../../functions/ratelimits/cache";
import { client, servedApp, sql } from "../support";
import { DAY, ratelimitApi } from "./helpers";

const suite = servedApp("ratelimits_reset"); // deny cache on (the default)
const { putPolicy, check } = ratelimitApi(suite);
const reset = (query: string, api = suite.api) => api("DELETE", `/v1/ratelimits/usage?${query}`);

describe("a reset racing checks", () => {
  it("500 simultaneous checks of a limit of 10 with a reset among them: at most 20 admitted, and the counter agrees", async () => {
    await putPolicy("race", { algorithm: "fixed_window", limit: 10, window_ms: 366 * DAY });
    // One check first (the counter row exists), then the burst with the reset sent in its middle.
    const first = await check("race", "cust");
    expect(first.status).toBe(200);
    const results = Array.from({ length: 250 }, () => check("race", "cust"));
    const resetting = reset("policy=race&key=cust");
    results.push(...Array.from({ length: 249 }, () => check("race", "cust")), Promise.resolve(first));
    const r = await resetting;
    expect(r.status, r.text).toBe(200);
    expect(r.json).toMatchObject({ key: "cust", policies: ["race"] });
    const statuses = (await Promise.all(results)).map((x) => x.status);
    const admitted = statuses.filter((s) => s === 200).length;
    console.log("reset racing 500 checks:", {
      admitted,
      refused: statuses.filter((s) => s === 429).length,
      other: statuses.filter((s) => s !== 200 && s !== 429),
    });
    expect(statuses.every((s) => s === 200 || s === 429 || s === 503)).toBe(true);
    expect(admitted).toBeGreaterThanOrEqual(10);
    expect(admitted).toBeLessThanOrEqual(20);
    const [row] = await sql<{ admitted: number; consumed: number }>(
      suite.db,
      "SELECT admitted::int, consumed::int FROM ratelimit_counters WHERE policy = 'race' AND key = 'cust'",
    );
    // The counts of calls stay through a reset; `consumed` restarted at the reset, so it is what was admitted after it.
    expect(row.admitted).toBe(admitted);
    expect(row.consumed).toBeLessThanOrEqual(10);
    expect(admitted - row.consumed).toBeLessThanOrEqual(10);
  }, 240_000);
});

describe("a fresh window", () => {
  it.each([
    ["fixed_window", 3],
    ["sliding_window", 3],
    ["token_bucket", 3],
  ])("%s: spent and refused, reset, admitted again up to the limit; the admitted count stays", async (algorithm, limit) => {
    const p = `fresh-${algorithm}`;
    await putPolicy(p, { algorithm, limit, window_ms: 366 * DAY });
    for (let i = 0; i < limit; i++) expect((await check(p, "k")).status).toBe(200);
    expect((await check(p, "k")).status).toBe(429);
    expect((await reset(`policy=${p}&key=k`)).json.policies).toEqual([p]);
    for (let i = 0; i < limit; i++) expect((await check(p, "k")).status).toBe(200);
    expect((await check(p, "k")).status).toBe(429);
    if (algorithm !== "token_bucket") {
      const u = await suite.api("GET", `/v1/ratelimits/usage?policy=${p}&key=k`);
      expect(u.json).toMatchObject({ admitted: 2 * limit, consumed: limit });
    }
  });

  it("clears this isolate's cached denial at once", async () => {
    await putPolicy("cached", { algorithm: "fixed_window", limit: 1, window_ms: 366 * DAY });
    expect((await check("cached", "k")).status).toBe(200);
    expect((await check("cached", "k")).status).toBe(429);
    const hit = await check("cached", "k");
    expect(hit.headers.get("Admit-Cache")).toBe("hit");
    expect((await reset("policy=cached&key=k")).status).toBe(200);
    const after = await check("cached", "k");
    expect(after.status).toBe(200);
    expect(after.headers.get("Admit-Cache")).toBe("miss");
  });

  it("another isolate's cached denial is believed for at most DENY_BELIEF_MS (5 s), its Retry-After unchanged", () => {
    const cache = new DenyCache();
    const now = Date.now();
    cache.remember("p", "k", { until: now + 3_600_000, minCost: 1, limit: 1, remaining: 0, resetAt: now + 3_600_000, windowMs: 3_600_000 });
    expect(DENY_BELIEF_MS).toBeLessThanOrEqual(5_000);
    expect(cache.lookup("p", "k", 1, now + DENY_BELIEF_MS - 50)?.until).toBe(now + 3_600_000);
    expect(cache.lookup("p", "k", 1, Date.now() + DENY_BELIEF_MS + 1)).toBeUndefined();
  });

  it("unknown policy → 404 and no audit row; a key that used nothing → 200 with no policies", async () => {
    const r = await reset("policy=nope&key=k");
    expect(r.status).toBe(404);
    await putPolicy("unused", { algorithm: "fixed_window", limit: 1, window_ms: DAY });
    expect((await reset("policy=unused&key=never")).json).toMatchObject({ key: "never", policies: [] });
    expect(await sql(suite.db, "SELECT target FROM admit_audit WHERE action = 'ratelimits.usage.reset' AND target = 'nope'")).toEqual([]);
  });
});

describe("every policy of a key, audited, within the caller's names", () => {
  it("without policy: resets each policy the key may touch and leaves the others", async () => {
    await putPolicy("team-a", { algorithm: "fixed_window", limit: 1, window_ms: 366 * DAY });
    await putPolicy("team-b", { algorithm: "token_bucket", limit: 1, window_ms: 366 * DAY });
    await putPolicy("other", { algorithm: "fixed_window", limit: 1, window_ms: 366 * DAY });
    for (const p of ["team-a", "team-b", "other"]) {
      expect((await check(p, "who")).status).toBe(200);
      expect((await check(p, "who")).status).toBe(429);
    }
    const k = await suite.api("POST", "/v1/keys", { name: "support", scopes: ["ratelimits:admin"], names: ["team-*"] });
    expect(k.status, k.text).toBe(201);
    const support = client(suite.server.url, k.json.secret);
    expect((await reset("policy=other&key=who", support)).status).toBe(403);
    const r = await reset("key=who", support);
    expect(r.status, r.text).toBe(200);
    expect(r.json.policies).toEqual(["team-a", "team-b"]);
    expect((await check("team-a", "who")).status).toBe(200);
    expect((await check("team-b", "who")).status).toBe(200);
    expect((await check("other", "who")).status).toBe(429);
    const audit = await sql<{ target: string; key_name: string; change: any }>(
      suite.db,
      "SELECT target, key_name, change FROM admit_audit WHERE action = 'ratelimits.usage.reset' AND change->>'key' = 'who'",
    );
    expect(audit).toEqual([{ target: "*", key_name: "support", change: { key: "who", policy: null } }]);
    const dec = await suite.api("POST", "/v1/keys", { name: "decider", scopes: ["ratelimits:decide"] });
    expect((await reset("key=who", client(suite.server.url, dec.json.secret))).status).toBe(403);
  });
});
