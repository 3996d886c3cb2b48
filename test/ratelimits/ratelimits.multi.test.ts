// Several rate-limit policies in one check (issue 19, item 1): one all-or-nothing SQL statement,
// results per policy, the quota-exceeded problem, the draft -11 headers as Structured Field lists,
// exact under simultaneous bursts, and no deadlock between checks naming overlapping sets in any order.
import { parseList, Token } from "structured-headers";
import { describe, expect, it } from "vitest";
import { roomInWindow, servedApp, sql } from "../support";

// Every check reaches Postgres here (the deny cache has its own test below, on a second app).
const suite = servedApp("ratelimits_multi", { RATELIMIT_DENY_CACHE: "off" });
const cached = servedApp("ratelimits_multi_cache");

const DAY = 86_400_000;
const LONG = 366 * DAY;

async function putPolicy(api: typeof suite.api, name: string, body: Record<string, unknown>) {
  // A generous budget: these suites count exact outcomes under bursts on a shared machine.
  const res = await api("PUT", `/v1/ratelimits/policies/${name}`, { timeout_ms: 60_000, ...body });
  expect([200, 201]).toContain(res.status);
  return res;
}

const check = (body: Record<string, unknown>, api = suite.api) => api("POST", "/v1/ratelimits/check", body);

/** A Structured Field list (RFC 9651) as [name, params] pairs; throws on anything not a list of string items. */
function sfList(value: string | null): Array<[string, Record<string, unknown>]> {
  expect(value).not.toBeNull();
  return parseList(value!).map((member) => {
    const [bare, params] = member as [unknown, Map<string, unknown>];
    if (typeof bare !== "string") throw new Error(`list item ${String(bare)} is not an sf-string`);
    const p: Record<string, unknown> = {};
    for (const [k, v] of params) p[k] = v instanceof Token ? `token:${v.toString()}` : v;
    return [bare, p];
  });
}

function counters(db: string, key: string) {
  return sql<{ policy: string; consumed: number; admitted: number; attempted: number; rejected: number }>(
    db,
    "SELECT policy, consumed::int, admitted::int, attempted::int, rejected::int FROM ratelimit_counters WHERE key = $1 ORDER BY policy",
    [key],
  );
}

describe("POST /v1/ratelimits/check with policies", () => {
  it("all-or-nothing: admitted while every policy admits; when one denies, none consumes and each counts the attempt", async () => {
    await putPolicy(suite.api, "m-burst", { algorithm: "fixed_window", limit: 2, window_ms: LONG });
    await putPolicy(suite.api, "m-daily", { algorithm: "token_bucket", limit: 5, window_ms: DAY });
    const body = { policies: ["m-burst", "m-daily"], key: "k1" };
    const first = await check(body);
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ allowed: true, key: "k1", reason: "limit", policy: "m-burst", limit: 2, remaining: 1 });
    expect(first.json.results).toEqual([
      { allowed: true, policy: "m-burst", key: "k1", limit: 2, remaining: 1, reset_ms: expect.any(Number), reason: "limit" },
      { allowed: true, policy: "m-daily", key: "k1", limit: 5, remaining: 4, reset_ms: expect.any(Number), reason: "limit" },
    ]);
    expect(first.json.violated_policies).toBeUndefined();
    expect((await check(body)).status).toBe(200);

    // m-burst is spent: the third check is denied, and m-daily keeps its 3 units.
    const denied = await check(body);
    expect(denied.status).toBe(429);
    expect(denied.headers.get("content-type")).toBe("application/problem+json");
    expect(denied.json).toMatchObject({
      type: "/problems/quota-exceeded",
      status: 429,
      "violated-policies": ["m-burst"],
      violated_policies: ["m-burst"],
      allowed: false,
      policy: "m-burst",
      remaining: 0,
      reason: "limit",
    });
    expect(denied.json.results.map((r: { policy: string; allowed: boolean; remaining: number }) => [r.policy, r.allowed, r.remaining])).toEqual([
      ["m-burst", false, 0],
      ["m-daily", true, 3],
    ]);
    expect(Number(denied.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await counters(suite.db, "k1")).toEqual([
      { policy: "m-burst", consumed: 2, admitted: 2, attempted: 3, rejected: 1 },
      { policy: "m-daily", consumed: 2, admitted: 2, attempted: 3, rejected: 1 },
    ]);
    // m-daily alone still has its 3 units: the denied multi check took none.
    const alone = await check({ policy: "m-daily", key: "k1", cost: 3 });
    expect(alone.status).toBe(200);
    expect(alone.json).toMatchObject({ remaining: 0, reason: "limit" });
  });

  it("results follow the order asked; the flat fields are the most restrictive policy's; a peek writes nothing", async () => {
    await putPolicy(suite.api, "o-a", { algorithm: "fixed_window", limit: 10, window_ms: LONG });
    await putPolicy(suite.api, "o-b", { algorithm: "sliding_window", limit: 4, window_ms: LONG });
    const r = await check({ policies: ["o-b", "o-a"], key: "k2", cost: 3 });
    expect(r.status).toBe(200);
    expect(r.json.results.map((x: { policy: string }) => x.policy)).toEqual(["o-b", "o-a"]);
    expect(r.json).toMatchObject({ policy: "o-b", limit: 4, remaining: 1 });
    const peek = await check({ policies: ["o-a", "o-b"], key: "k2", cost: 0 });
    expect(peek.status).toBe(200);
    expect(peek.json.results.map((x: { remaining: number }) => x.remaining)).toEqual([7, 1]);
    // Cost 2 fits o-a (7 left) but not o-b (1 left): denied by o-b alone, with o-b's wait.
    const over = await check({ policies: ["o-a", "o-b"], key: "k2", cost: 2 });
    expect(over.status).toBe(429);
    expect(over.json["violated-policies"]).toEqual(["o-b"]);
    expect(over.json.results[0]).toMatchObject({ policy: "o-a", allowed: true, remaining: 7 });
    expect(await counters(suite.db, "k2")).toEqual([
      { policy: "o-a", consumed: 3, admitted: 1, attempted: 2, rejected: 1 },
      { policy: "o-b", consumed: 3, admitted: 1, attempted: 2, rejected: 1 },
    ]);
  });

  it("validation and missing policies: 422 for both or neither of policy/policies, duplicates, more than 8; 404 naming a missing policy, nothing counted", async () => {
    await putPolicy(suite.api, "v-a", { algorithm: "fixed_window", limit: 1, window_ms: LONG });
    for (const bad of [
      { key: "k" },
      { policy: "v-a", policies: ["v-a"], key: "k" },
      { policies: [], key: "k" },
      { policies: ["v-a", "v-a"], key: "k" },
      { policies: Array.from({ length: 9 }, (_, i) => `p${i}`), key: "k" },
    ]) {
      const r = await check(bad);
      expect(r.status, JSON.stringify(bad)).toBe(422);
    }
    const missing = await check({ policies: ["v-a", "nope"], key: "k3" });
    expect(missing.status).toBe(404);
    expect(missing.json.detail).toContain('"nope"');
    expect(await counters(suite.db, "k3")).toEqual([]);
  });

  it("headers per draft -11: one Structured Field list item per policy, in the order asked", async () => {
    await putPolicy(suite.api, "burst", { algorithm: "fixed_window", limit: 100, window_ms: 60_000 });
    await putPolicy(suite.api, "daily", { algorithm: "fixed_window", limit: 10_000, window_ms: DAY });
    // Both checks of "burst" below must fall in one of its minutes (99 left, then 98).
    await roomInWindow(60_000, 15_000);
    const r = await check({ policies: ["burst", "daily"], key: "h1" });
    expect(r.status).toBe(200);
    expect(sfList(r.headers.get("ratelimit-policy"))).toEqual([
      ["burst", { q: 100, w: 60 }],
      ["daily", { q: 10_000, w: 86_400 }],
    ]);
    const rl = sfList(r.headers.get("ratelimit"));
    expect(rl.map(([name, p]) => [name, p.r])).toEqual([
      ["burst", 99],
      ["daily", 9_999],
    ]);
    for (const [, p] of rl) expect(Number.isInteger(p.t) && (p.t as number) >= 0).toBe(true);
    expect((rl[0][1].t as number) <= 60 && (rl[1][1].t as number) <= 86_400).toBe(true);
    // One policy: a one-item list, same syntax.
    const one = await check({ policy: "burst", key: "h1" });
    expect(sfList(one.headers.get("ratelimit-policy"))).toEqual([["burst", { q: 100, w: 60 }]]);
    expect(sfList(one.headers.get("ratelimit"))[0][1].r).toBe(98);
    expect(one.json.reason).toBe("limit");
  });
});

describe("the OpenAPI document", () => {
  it("shows policy and policies, the per-policy results, the quota-exceeded problem and the header lists", async () => {
    const doc = (await suite.api("GET", "/openapi.json")).json;
    const schemas = doc.components.schemas;
    expect(Object.keys(schemas.RateLimitCheck.properties)).toEqual(expect.arrayContaining(["policy", "policies", "key", "cost"]));
    expect(schemas.RateLimitCheck.properties.policies).toMatchObject({ type: "array", minItems: 1, maxItems: 8 });
    expect(Object.keys(schemas.RateLimitResult.properties)).toEqual(expect.arrayContaining(["reason", "results", "violated_policies"]));
    // A problem document: the Problem schema (type, title, status, detail) extended.
    const qe = schemas.RateLimitQuotaExceeded;
    expect(qe.allOf[0]).toEqual({ $ref: "#/components/schemas/Problem" });
    expect(Object.keys(qe.allOf[1].properties)).toEqual(expect.arrayContaining(["violated-policies", "violated_policies", "results", "retry_after_ms"]));
    expect(Object.keys(schemas.RateLimitPolicyInput.properties)).toEqual(expect.arrayContaining(["timeout_ms", "on_unavailable"]));
    const check = doc.paths["/v1/ratelimits/check"].post;
    expect(Object.keys(check.responses["429"].content)).toEqual(["application/json", "application/problem+json"]);
    expect(check.responses["200"].headers["RateLimit-Policy"].description).toContain('"burst";q=100;w=60, "daily";q=10000;w=86400');
    expect(check.responses["200"].headers.RateLimit.description).toContain('"burst";r=40;t=30, "daily";r=9000;t=5000');
  });
});

describe("multi-policy checks under simultaneous bursts", () => {
  it("300 simultaneous checks on one key, policies of limit 20 and 50 → exactly 20 admitted, 20 consumed on both", async () => {
    await putPolicy(suite.api, "c-20", { algorithm: "fixed_window", limit: 20, window_ms: LONG });
    await putPolicy(suite.api, "c-50", { algorithm: "token_bucket", limit: 50, window_ms: DAY });
    const results = await Promise.all(Array.from({ length: 300 }, (_, i) => check({ policies: i % 2 ? ["c-20", "c-50"] : ["c-50", "c-20"], key: "hot" })));
    const statuses: Record<number, number> = {};
    for (const r of results) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    expect(statuses).toEqual({ 200: 20, 429: 280 });
    expect(
      results.filter((r) => r.status === 429).every((r) => r.json["violated-policies"].includes("c-20") && !r.json["violated-policies"].includes("c-50")),
    ).toBe(true);
    expect(await counters(suite.db, "hot")).toEqual([
      { policy: "c-20", consumed: 20, admitted: 20, attempted: 300, rejected: 280 },
      { policy: "c-50", consumed: 20, admitted: 20, attempted: 300, rejected: 280 },
    ]);
  }, 120_000);

  it("1000 mixed checks over overlapping policy sets in opposite orders never deadlock: zero 409/503/500", async () => {
    for (const p of ["d-a", "d-b", "d-c"]) await putPolicy(suite.api, p, { algorithm: "fixed_window", limit: 600, window_ms: LONG });
    const sets = [
      ["d-a", "d-b"],
      ["d-b", "d-a"],
      ["d-a", "d-b", "d-c"],
      ["d-c", "d-b", "d-a"],
      ["d-c", "d-a"],
      ["d-b", "d-c"],
    ];
    const jobs = Array.from({ length: 1000 }, (_, i) => ({ policies: sets[i % sets.length], key: i % 5 === 0 ? "cold" : "shared" }));
    // 100 in flight at a time: every check overlaps others on the same rows, within the bridge's pool.
    const statuses: Record<number, number> = {};
    const outcome: number[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 100 }, async () => {
        while (next < jobs.length) {
          const i = next++;
          const r = await check(jobs[i]);
          outcome[i] = r.status;
          statuses[r.status] = (statuses[r.status] ?? 0) + 1;
        }
      }),
    );
    expect(Object.keys(statuses).sort()).toEqual(
      Object.keys(statuses)
        .filter((s) => s === "200" || s === "429")
        .sort(),
    );
    expect((statuses[200] ?? 0) + (statuses[429] ?? 0)).toBe(1000);
    // What was admitted is what the counters hold, on every policy.
    const rows = await sql<{ policy: string; key: string; admitted: number; attempted: number }>(
      suite.db,
      "SELECT policy, key, admitted::int, attempted::int FROM ratelimit_counters WHERE policy LIKE 'd-%' ORDER BY policy, key",
    );
    const count = (p: string, key: string, status?: number) =>
      jobs.filter((j, i) => j.key === key && j.policies.includes(p) && (status === undefined || outcome[i] === status)).length;
    expect(rows).toHaveLength(6);
    for (const r of rows) {
      expect(r.attempted).toBe(count(r.policy, r.key));
      // All-or-nothing under contention: every policy admitted exactly the checks answered 200 that named it.
      expect(r.admitted, `${r.policy}/${r.key}`).toBe(count(r.policy, r.key, 200));
    }
    expect(statuses[429] ?? 0).toBeGreaterThan(0); // the limits did bite, so partial consumption had its chance
  }, 180_000);
});

describe("the deny cache with several policies", () => {
  it("a multi-policy denial is cached under the policy that refused only; a check without it is still admitted", async () => {
    await putPolicy(cached.api, "dc-burst", { algorithm: "fixed_window", limit: 1, window_ms: LONG });
    await putPolicy(cached.api, "dc-daily", { algorithm: "fixed_window", limit: 100, window_ms: LONG });
    const body = { policies: ["dc-burst", "dc-daily"], key: "k" };
    expect((await check(body, cached.api)).status).toBe(200);
    const again = await check(body, cached.api);
    expect(again.status).toBe(429);
    expect(again.headers.get("admit-cache")).toBe("hit");
    expect(again.json).toMatchObject({ reason: "cache", "violated-policies": ["dc-burst"] });
    expect(again.json.results).toEqual([
      expect.objectContaining({ policy: "dc-burst", allowed: false, reason: "cache" }),
      { policy: "dc-daily", key: "k", reason: "not-checked" },
    ]);
    // The headers list only what the answer knows, still as valid lists.
    expect(sfList(again.headers.get("ratelimit")).map(([n]) => n)).toEqual(["dc-burst"]);
    // dc-daily was never blamed: alone it admits.
    const daily = await check({ policy: "dc-daily", key: "k" }, cached.api);
    expect(daily.status).toBe(200);
    expect(daily.json.remaining).toBe(98);
    expect(await counters(cached.db, "k")).toEqual([
      { policy: "dc-burst", consumed: 1, admitted: 1, attempted: 1, rejected: 0 },
      { policy: "dc-daily", consumed: 2, admitted: 2, attempted: 2, rejected: 0 },
    ]);
  });

  it("never answers from the cache when a policy of the set logs: every call is logged and counted", async () => {
    await putPolicy(cached.api, "dl-burst", { algorithm: "fixed_window", limit: 1, window_ms: LONG });
    await putPolicy(cached.api, "dl-logged", { algorithm: "fixed_window", limit: 100, window_ms: LONG, log: true });
    const body = { policies: ["dl-burst", "dl-logged"], key: "k" };
    const statuses = [];
    for (let i = 0; i < 4; i++) {
      const r = await check(body, cached.api);
      statuses.push(r.status);
      expect(r.headers.get("admit-cache")).toBe("miss");
    }
    expect(statuses).toEqual([200, 429, 429, 429]);
    expect(
      await sql(cached.db, "SELECT count(*)::int AS n, count(*) FILTER (WHERE allowed)::int AS ok FROM ratelimit_log WHERE policy = 'dl-logged' AND key = 'k'"),
    ).toEqual([{ n: 4, ok: 1 }]);
  });
});
