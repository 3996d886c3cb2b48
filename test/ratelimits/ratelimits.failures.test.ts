// Rate limits that never hang and fail honestly: lock timeouts, an unreachable database, and the
// rateLimit() middleware's input checks, concurrency limits and missing policies.
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { auditEntry } from "../../functions/core/audit";
import { RequestDb } from "../../functions/core/db";
import { call } from "../../functions/http/rpc/call";
import { type RateLimitBinding, rateLimit } from "../../functions/ratelimits";
import { MAX_WINDOW_MS } from "../../functions/ratelimits/schemas";
import { createSemaphore } from "../../functions/ratelimits/sql";
import { bindings, client, connect, serveApp, servedApp, sql, whileHolding, withServedApp } from "../support";
import { checkAt, ratelimitApi } from "./helpers";

// The deny cache is exercised in ratelimits.cache.test.ts; here every check reaches Postgres.
const suite = servedApp("ratelimits_failures", { RATELIMIT_DENY_CACHE: "off" });
const { putPolicy, check } = ratelimitApi(suite);
describe("no hangs, honest failures", () => {
  it("a burst of denials in one fixed window does not touch the next window: it starts full", async () => {
    await putPolicy("nw", { algorithm: "fixed_window", limit: 3, window_ms: 60_000 });
    const c = await connect(suite.db);
    try {
      for (let i = 0; i < 3; i++) expect((await checkAt(c, "nw", "k", 1, "2034-01-01T00:00:00Z")).allowed).toBe(true);
      for (let i = 0; i < 50; i++)
        expect(await checkAt(c, "nw", "k", 1, `2034-01-01T00:00:${String(1 + (i % 58)).padStart(2, "0")}Z`)).toMatchObject({ allowed: false, remaining: 0 });
      const denied = await checkAt(c, "nw", "k", 1, "2034-01-01T00:00:59.5Z");
      expect(denied).toMatchObject({ retry_after_ms: 500, reset_ms: 500 });
      expect(await checkAt(c, "nw", "k", 1, "2034-01-01T00:01:00Z")).toMatchObject({ allowed: true, remaining: 2, reset_ms: 60_000 });
    } finally {
      await c.end();
    }
  });

  it("a key whose counter row is held too long → 503 lock-timeout with Retry-After, nothing applied", async () => {
    await putPolicy("lk", { algorithm: "fixed_window", limit: 5, window_ms: MAX_WINDOW_MS });
    expect((await check("lk", "k")).status).toBe(200);
    await whileHolding(suite.db, "SELECT 1 FROM ratelimit_counters WHERE policy = 'lk' AND key = 'k' FOR UPDATE", [], () =>
      withServedApp(bindings(suite.db, { LOCK_TIMEOUT_MS: "200", RATELIMIT_DENY_CACHE: "off" }), async (api) => {
        const res = await api("POST", "/v1/ratelimits/check", { policy: "lk", key: "k" });
        expect(res.status).toBe(503);
        expect(res.json.type).toBe("/problems/lock-timeout");
        expect(res.headers.get("retry-after")).toBe("1");
      }),
    );
    expect(await sql(suite.db, "SELECT attempted::int FROM ratelimit_counters WHERE policy = 'lk'")).toEqual([{ attempted: 1 }]);
  });

  it("an unreachable database → 503 + Retry-After from the check route and from the rateLimit() middleware", async () => {
    const down = bindings("postgres://admit:x@127.0.0.1:1/nothing");
    const dead = await serveApp(down);
    try {
      const res = await client(dead.url)("POST", "/v1/ratelimits/check", { policy: "api", key: "k" });
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).not.toBeNull();
    } finally {
      await dead.close();
    }
    const other = new Hono();
    other.use("*", rateLimit({ policy: "api", key: () => "k" }));
    other.get("/x", (c) => c.text("reached"));
    const res = await other.request("/x", {}, down);
    expect(res.status).toBe(503);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(res.headers.get("retry-after")).not.toBeNull();
  });

  it("a key or cost the check route refuses is the same 422 from the middleware on its own handle as over the binding; a negative cost gives no unit back", async () => {
    // The longest window: the six counted requests below must fall in one window.
    await putPolicy("mw-bounds", { algorithm: "fixed_window", limit: 5, window_ms: MAX_WINDOW_MS });
    const env = bindings(suite.db, { RATELIMIT_DENY_CACHE: "off" });
    // The binding as the entrypoint runs it (test/rpc/rpc.runtime.test.ts runs it in workerd).
    const binding: RateLimitBinding = {
      rateLimitGate: (input) => call(env, undefined, "rateLimitGate", input),
      releasePermit: (input) => call(env, undefined, "releasePermit", input),
    };
    const app = (key: string, cost: number, via?: RateLimitBinding, info?: Record<string, unknown>) => {
      const a = new Hono();
      a.use("*", rateLimit({ policy: "mw-bounds", key: () => key, cost, binding: via, info: info && (() => info) }));
      a.get("/x", (c) => c.text("reached"));
      return a;
    };
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    const bad: [string, string, number, string, Record<string, unknown>?][] = [
      ["empty key", "", 1, "key"],
      ["key over 500 characters", "x".repeat(501), 1, "key"],
      ["negative cost", "k", -3, "cost"],
      ["fractional cost", "k", 1.5, "cost"],
      ["NaN cost", "k", Number.NaN, "cost"],
      ["info with a cycle (was a thrown TypeError: 500)", "k", 1, "info", cycle],
      ["info with a BigInt", "k", 1, "info", { n: 1n }],
    ];
    for (const [what, key, cost, field, info] of bad) {
      const local = await app(key, cost, undefined, info).request("/x", {}, env);
      const remote = await app(key, cost, binding, info).request("/x", {}, env);
      const body = await local.json();
      expect([local.status, local.headers.get("content-type")], what).toEqual([422, "application/problem+json"]);
      expect(
        body.errors.map((e: { path: string }) => e.path),
        what,
      ).toEqual([field]);
      expect([remote.status, await remote.json()], what).toEqual([422, body]);
    }
    // Nothing was consumed nor given back: five units, then a refusal.
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await app("k", 1).request("/x", {}, env)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  });

  it("a concurrency limit's name must fit a RateLimit header, as a policy's must: refused when the middleware is made, and a 422 over the binding", async () => {
    // It is sent in RateLimit-Policy; a name outside printable ASCII made Headers.set throw after the
    // permit was taken: a 500 on every request, and the permit held until its TTL.
    for (const bad of ["日本-inflight", "in\nflight", "a b", ""]) {
      expect(() => rateLimit({ concurrency: { name: bad, permits: 3 } }), JSON.stringify(bad)).toThrow(/rateLimit\(\): .* must be 1–100 characters/);
      expect(() => rateLimit({ policy: bad, key: () => "k" }), JSON.stringify(bad)).toThrow(/rateLimit\(\)/);
      const r = (await call(bindings(suite.db), undefined, "rateLimitGate", { concurrency: { name: bad, permits: 3 } })) as { error: Record<string, any> };
      expect(r.error, JSON.stringify(bad)).toMatchObject({ status: 422, errors: [{ in: "body", path: "concurrency.name" }] });
    }
    const [{ n }] = await sql<{ n: number }>(suite.db, "SELECT count(*)::int AS n FROM semaphores WHERE name = ANY($1)", [
      ["日本-inflight", "in\nflight", "a b"],
    ]);
    expect(n).toBe(0);
  });

  it("a concurrency limit's first use creates its semaphore and never resizes one that exists (two isolates, or another size configured)", async () => {
    await suite.api("PUT", "/v1/semaphores/mw-existing", { permits: 5, default_ttl_ms: 90_000 });
    const db = new RequestDb(bindings(suite.db));
    try {
      // What admitRequest() (admission.ts) calls on "not found": twice, with other sizes, as two isolates meeting a missing one would.
      const audit = (name: string) => auditEntry(undefined, {}, "semaphores.put", name, { first_use: true });
      await createSemaphore(db, "mw-existing", 1, 60_000, { lockTimeoutMs: 1_000, withinMs: 5_000 }, audit("mw-existing"));
      await createSemaphore(db, "mw-new", 2, 60_000, { lockTimeoutMs: 1_000, withinMs: 5_000 }, audit("mw-new"));
      await createSemaphore(db, "mw-new", 7, 10_000, { lockTimeoutMs: 1_000, withinMs: 5_000 }, audit("mw-new"));
    } finally {
      await db.close();
    }
    const rows = await sql<{ name: string; permits: number; default_ttl_ms: number }>(
      suite.db,
      "SELECT name, permits, default_ttl_ms FROM semaphores WHERE name IN ('mw-existing', 'mw-new') ORDER BY name",
    );
    expect(rows).toEqual([
      { name: "mw-existing", permits: 5, default_ttl_ms: 90_000 },
      { name: "mw-new", permits: 2, default_ttl_ms: 60_000 },
    ]);
    // An audit row for the one creation, none for the calls that found it there.
    const audits = await sql(suite.db, "SELECT target, change FROM admit_audit WHERE target IN ('mw-existing', 'mw-new') AND change ? 'first_use'");
    expect(audits).toEqual([{ target: "mw-new", change: { first_use: true } }]);
  });

  it("a concurrency limit names its holder after any path: 200 code units, a pair cut in half or a NUL made U+FFFD", async () => {
    const a = new Hono();
    a.use("*", rateLimit({ concurrency: { name: "mw-holder", permits: 2 } }));
    let holder = "";
    a.get("*", async (c) => {
      const [s] = await sql<{ holder: string }>(suite.db, "SELECT holder FROM permits WHERE kind = 'semaphore' AND name = 'mw-holder' AND released_at IS NULL");
      holder = s.holder;
      return c.text("reached");
    });
    // "GET /" is 5 units, so the emoji's pair straddles unit 200.
    const cut = `/${"a".repeat(194)}%F0%9F%98%80tail`;
    const res = await a.request(cut, {}, bindings(suite.db));
    expect([res.status, await res.text()]).toEqual([200, "reached"]);
    expect(holder).toBe(`GET /${"a".repeat(194)}\ufffd`);
    const nul = await a.request("/with%00nul", {}, bindings(suite.db));
    expect(nul.status).toBe(200);
    expect(holder).not.toContain("\u0000");
  });

  it("a middleware whose policy does not exist refuses with 503 naming the fix, and never calls next()", async () => {
    const other = new Hono();
    other.use("*", rateLimit({ policy: "never-created", key: () => "k" }));
    other.get("/x", (c) => c.text("reached"));
    const res = await other.request("/x", {}, bindings(suite.db));
    expect(res.status).toBe(503);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(res.headers.get("retry-after")).toBe("30");
    expect(await res.json()).toMatchObject({
      type: "/problems/ratelimit-policy-missing",
      detail: expect.stringContaining("PUT /v1/ratelimits/policies/never-created"),
    });
  });
});
