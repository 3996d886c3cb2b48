// A rate-limit check never stalls the gateway (issue 19, item 2): with Postgres stalled behind this
// suite's own bridge (dev/bridge/ fault modes), a check answers within its policy's timeout_ms plus
// a bound — fail open (200, reason "timeout", Admit-RateLimit-Enforced: false) or fail closed (504
// outcome-unknown when the statement was sent, 503 when it certainly was not), each saying whether a
// unit may have been consumed. The bound asserted is BOUND_MS: generous, since the machine is shared;
// it is the feature's promise ("answered before timeout_ms + bound"), not a performance claim.

import { Hono } from "hono";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Bridge, type Faults, startBridge } from "../../dev/bridge";
import { auditEntry } from "../../functions/core/audit";
import { RequestDb } from "../../functions/core/db";
import { call } from "../../functions/http/rpc/call";
import { denyCache, rateLimit } from "../../functions/ratelimits";
import { type PolicyInput, putPolicy } from "../../functions/ratelimits/sql";
import { bindings, client, freshDatabase, type Served, serveApp, settled, sql, withFaults as withBridgeFaults } from "../support";

const BOUND_MS = 1_000;
let db: string;
let bridge: Bridge;
let app: Served;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  db = await freshDatabase("ratelimits_faults");
  bridge = await startBridge();
  app = await serveApp(bindings(db, { NEON_WS_PROXY: bridge.wsProxy, RATELIMIT_DENY_CACHE: "off" }));
  api = client(app.url);
  for (const [name, on_unavailable] of [
    ["open", "allow"],
    ["open2", "allow"],
    ["closed", "deny"],
  ] as const) {
    const put = await api("PUT", `/v1/ratelimits/policies/${name}`, {
      algorithm: "fixed_window",
      limit: 100,
      window_ms: 86_400_000,
      timeout_ms: 400,
      on_unavailable,
    });
    expect(put.status).toBe(201);
    expect(put.json).toMatchObject({ timeout_ms: 400, on_unavailable });
  }
});
afterAll(async () => {
  await app?.close();
  await bridge?.close();
});

const withFaults = <T>(faults: Faults, fn: () => Promise<T>): Promise<T> => withBridgeFaults(bridge, faults, fn);

const stall: Faults = { statement: { match: "admit_ratelimit_check", action: "stall-before" } };

/** POST /v1/ratelimits/check, timed; a client-side cap well past every budget turns a hang into a failure. */
async function timedCheck(body: Record<string, unknown>) {
  const started = Date.now();
  const res = await Promise.race([
    api("POST", "/v1/ratelimits/check", body),
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error("no answer within 15 s")), 15_000)),
  ]);
  return { ...res, ms: Date.now() - started };
}

const settle = () => settled(bridge, (text) => sql(db, text));

/** Creates a policy behind the app's back (straight through sql.ts, not the bridge under faults): no PUT, GET or check tells this process its settings. */
async function putPolicyDirectly(name: string, p: PolicyInput): Promise<void> {
  const rdb = new RequestDb(bindings(db));
  try {
    await putPolicy(rdb, name, p, auditEntry(undefined, {}, "ratelimits.policy.put", name, {}));
  } finally {
    await rdb.close();
  }
}

describe("a check against a stalled database answers within timeout_ms + bound", () => {
  it("fail open: 200, allowed, reason timeout, consumed unknown, Admit-RateLimit-Enforced: false", async () => {
    for (const action of ["stall-before", "stall-after"] as const) {
      const res = await withFaults({ statement: { match: "admit_ratelimit_check", action } }, () => timedCheck({ policy: "open", key: `k-${action}` }));
      expect(res.status, res.text).toBe(200);
      expect(res.json).toMatchObject({ allowed: true, policy: "open", reason: "timeout", consumed: "unknown", timeout_ms: 400 });
      expect(res.headers.get("admit-ratelimit-enforced")).toBe("false; reason=timeout");
      expect(res.ms).toBeLessThan(400 + BOUND_MS);
    }
    await settle();
  });

  it("fail open with an idempotency key (HTTP header or RPC option): the same fail-open answer, not stored — was a 500", async () => {
    const keyed = await withFaults(stall, async () => {
      const started = Date.now();
      const res = await api("POST", "/v1/ratelimits/check", { policy: "open", key: "k-keyed" }, { "Idempotency-Key": "fail-open-1" });
      return { ...res, ms: Date.now() - started };
    });
    expect(keyed.status, keyed.text).toBe(200);
    // The check ran inside the key's transaction, which is rolled back: certainly nothing consumed.
    expect(keyed.json).toMatchObject({ allowed: true, reason: "timeout", consumed: "none" });
    expect(keyed.headers.get("admit-ratelimit-enforced")).toBe("false; reason=timeout");
    expect(keyed.headers.get("idempotent-replayed")).toBeNull();
    expect(keyed.ms).toBeLessThan(400 + BOUND_MS);
    const viaRpc = await withFaults(stall, () =>
      call(
        bindings(db, { NEON_WS_PROXY: bridge.wsProxy, RATELIMIT_DENY_CACHE: "off" }),
        undefined,
        "checkRateLimit",
        { policy: "open", key: "k-rpc" },
        { idempotencyKey: "fail-open-2" },
      ),
    );
    expect(viaRpc).toMatchObject({ allowed: true, reason: "timeout", consumed: "none" });
    await settle();
    // Nothing was stored for either key: the fail-open answer is not the check's outcome.
    expect(await sql(db, "SELECT key FROM idempotency_keys WHERE key IN ('fail-open-1', 'fail-open-2')")).toEqual([]);
  });

  it("fail closed: 504 outcome-unknown + Retry-After (the statement was sent), reason timeout, within the budget", async () => {
    const res = await withFaults(stall, () => timedCheck({ policy: "closed", key: "k" }));
    expect(res.status, res.text).toBe(504);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(res.json).toMatchObject({ type: "/problems/outcome-unknown", reason: "timeout", consumed: "unknown", policy: "closed", timeout_ms: 400 });
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(res.headers.get("admit-ratelimit-enforced")).toBe("false; reason=timeout");
    expect(res.ms).toBeLessThan(400 + BOUND_MS);
    await settle();
  });

  it("an unreachable database: fail closed → 503 consumed none; fail open → 200 reason unavailable", async () => {
    const closed = await withFaults({ refuse: true }, () => timedCheck({ policy: "closed", key: "k" }));
    expect(closed.status, closed.text).toBe(503);
    expect(closed.json).toMatchObject({ reason: "unavailable", consumed: "none" });
    expect(Number(closed.headers.get("retry-after"))).toBeGreaterThan(0);
    const open = await withFaults({ refuse: true }, () => timedCheck({ policy: "open", key: "k" }));
    expect(open.status, open.text).toBe(200);
    expect(open.json).toMatchObject({ allowed: true, reason: "unavailable", consumed: "none" });
    expect(open.headers.get("admit-ratelimit-enforced")).toBe("false; reason=unavailable");
  });

  it("several policies: any fail-closed one decides; all fail-open → 200; the shortest timeout_ms is the budget", async () => {
    const mixed = await withFaults(stall, () => timedCheck({ policies: ["open", "closed"], key: "m" }));
    expect(mixed.status, mixed.text).toBe(504);
    expect(mixed.json).toMatchObject({ reason: "timeout", policies: ["open", "closed"] });
    expect(mixed.ms).toBeLessThan(400 + BOUND_MS);
    const open = await withFaults(stall, () => timedCheck({ policies: ["open", "open2"], key: "m" }));
    expect(open.status, open.text).toBe(200);
    expect(open.json).toMatchObject({ allowed: true, reason: "timeout", policies: ["open", "open2"] });
    expect(open.ms).toBeLessThan(400 + BOUND_MS);
    await settle();
  });

  it("traffic delayed past the budget (delayMs) → the fail mode answers within the bound, and later checks decide normally", async () => {
    const res = await withFaults({ delayMs: 3_000 }, () => timedCheck({ policy: "open", key: "slow" }));
    expect(res.status, res.text).toBe(200);
    expect(res.json.reason).toBe("timeout");
    expect(res.ms).toBeLessThan(400 + BOUND_MS);
    await settle();
    const after = await timedCheck({ policy: "open", key: "slow" });
    expect(after.status).toBe(200);
    expect(after.json.reason).toBe("limit");
  });

  it("the very first time (a policy this isolate has never seen) the defaults apply: the request budget (5 000 ms), fail closed", async () => {
    // Created behind the app's back: no PUT, GET or check through this process has told it the settings.
    await putPolicyDirectly("unseen", {
      algorithm: "fixed_window",
      limit: 10,
      window_ms: 60000,
      log: false,
      history_ms: 0,
      timeout_ms: 200,
      on_unavailable: "allow",
    });
    expect(denyCache.policies.has("unseen")).toBe(false);
    const first = await withFaults(stall, () => timedCheck({ policy: "unseen", key: "k" }));
    expect(first.status, first.text).toBe(504);
    // The default is the request budget, and a budget is never more than what is left of the request's.
    expect(first.json).toMatchObject({ reason: "timeout" });
    expect(first.json.timeout_ms).toBeGreaterThan(4_500);
    expect(first.json.timeout_ms).toBeLessThanOrEqual(5_000);
    expect(first.ms).toBeLessThan(5_000 + BOUND_MS);
    await settle();
    // One answer later (every check tells its policies' settings) the isolate knows: 200 ms, fail open.
    expect((await timedCheck({ policy: "unseen", key: "k" })).status).toBe(200);
    const later = await withFaults(stall, () => timedCheck({ policy: "unseen", key: "k" }));
    expect(later.status, later.text).toBe(200);
    expect(later.json).toMatchObject({ allowed: true, reason: "timeout", timeout_ms: 200 });
    await settle();
  });
});

describe("the rateLimit() middleware under the same faults", () => {
  const env = () => bindings(db, { NEON_WS_PROXY: bridge.wsProxy, RATELIMIT_DENY_CACHE: "off" });

  it("fail open: the handler runs, with Admit-RateLimit-Enforced: false; fail closed: 504 problem, the handler never runs", async () => {
    let ran = 0;
    const other = new Hono();
    other.use("/open/*", rateLimit({ policy: "open", key: () => "mw" }));
    other.use("/closed/*", rateLimit({ policies: ["open", "closed"], key: () => "mw" }));
    other.get("*", (c) => {
      ran++;
      return c.json({ ran: true });
    });
    const started = Date.now();
    const open = await withFaults(stall, async () => other.request("/open/x", {}, env()));
    expect(open.status).toBe(200);
    expect(open.headers.get("admit-ratelimit-enforced")).toBe("false; reason=timeout");
    expect(Date.now() - started).toBeLessThan(400 + BOUND_MS);
    const closedStarted = Date.now();
    const closed = await withFaults(stall, async () => other.request("/closed/x", {}, env()));
    expect(closed.status).toBe(504);
    expect(closed.headers.get("content-type")).toBe("application/problem+json");
    expect(Number(closed.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Date.now() - closedStarted).toBeLessThan(400 + BOUND_MS);
    expect(ran).toBe(1);
    await settle();
  });

  it("the middleware's own timeout_ms / on_unavailable apply from the very first request", async () => {
    await putPolicyDirectly("mw-unseen", {
      algorithm: "fixed_window",
      limit: 10,
      window_ms: 60000,
      log: false,
      history_ms: 0,
      timeout_ms: 5000,
      on_unavailable: "deny",
    });
    const other = new Hono();
    other.use("*", rateLimit({ policy: "mw-unseen", key: () => "k", timeout_ms: 300, on_unavailable: "allow" }));
    other.get("*", (c) => c.json({ ran: true }));
    const started = Date.now();
    const res = await withFaults(stall, async () => other.request("/x", {}, env()));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ran: true });
    expect(res.headers.get("admit-ratelimit-enforced")).toBe("false; reason=timeout");
    expect(Date.now() - started).toBeLessThan(300 + BOUND_MS);
    await settle();
  });
});

describe("rateLimit({ concurrency }) under the same faults", () => {
  const env = (extra: Record<string, string> = {}) => bindings(db, { NEON_WS_PROXY: bridge.wsProxy, ...extra });
  const live = async (name: string) =>
    (
      await sql<{ n: number }>(
        db,
        "SELECT count(*)::int AS n FROM permits WHERE kind = 'semaphore' AND name = $1 AND released_at IS NULL AND timed_out_at IS NULL AND expires_at > now()",
        [name],
      )
    )[0].n;

  it("a handler slower than the request's budget still gives its permit back before the response leaves", async () => {
    const other = new Hono();
    other.use("*", rateLimit({ concurrency: { name: "slow-handler", permits: 1, ttl_ms: 600_000 } }));
    other.get("*", async (c) => {
      await new Promise((r) => setTimeout(r, 600));
      return c.json({ ran: true });
    });
    // DB_BUDGET_MS 300: the request's own handle is spent long before the handler returns.
    for (let i = 0; i < 2; i++) {
      const res = await other.request("/x", {}, env({ DB_BUDGET_MS: "300" }));
      expect(res.status, await res.clone().text()).toBe(200);
      expect(await live("slow-handler")).toBe(0);
    }
  });

  it("the acquire stalled: on_unavailable allow → the handler runs, not enforced; the default → 504 within the request budget (5 000 ms) + bound", async () => {
    const open = new Hono();
    open.use("*", rateLimit({ concurrency: { name: "stalled-c", permits: 2 }, timeout_ms: 300, on_unavailable: "allow" }));
    open.get("*", (c) => c.json({ ran: true }));
    const closed = new Hono();
    closed.use("*", rateLimit({ concurrency: { name: "stalled-c", permits: 2 } }));
    closed.get("*", (c) => c.json({ ran: true }));
    expect((await closed.request("/x", {}, env())).status).toBe(200); // creates the semaphore
    const acquireStall: Faults = { statement: { match: "admit_permit_acquire", action: "stall-before" } };
    let started = Date.now();
    const a = await withFaults(acquireStall, async () => open.request("/x", {}, env()));
    expect(a.status).toBe(200);
    expect(a.headers.get("admit-ratelimit-enforced")).toBe("false; reason=timeout");
    expect(Date.now() - started).toBeLessThan(300 + BOUND_MS);
    started = Date.now();
    const b = await withFaults(acquireStall, async () => closed.request("/x", {}, env()));
    expect([503, 504]).toContain(b.status);
    expect(b.headers.get("content-type")).toBe("application/problem+json");
    expect(Number(b.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Date.now() - started).toBeLessThan(5_000 + BOUND_MS);
    await settle();
  });
});
