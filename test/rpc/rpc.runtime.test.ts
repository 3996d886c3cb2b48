// Admit's RPC entrypoint in the real Workers runtime: Admit (wrangler.toml) and the example gateway
// Worker (examples/gateway/wrangler.toml, a Service Binding to Admit's `Admit` entrypoint and no
// database settings) run in two `wrangler dev` processes sharing a dev registry of their own.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ROOT } from "../../dev/local";
import { ownSocket, startWranglerDev, type WranglerDev } from "../../dev/wrangler";
import gatewayWorker from "../../examples/gateway/index";
import { lockKey } from "../../functions/core/lock-keys";
import type { AdmitBinding } from "../../functions/http/rpc/client";
import { MAX_WINDOW_MS } from "../../functions/ratelimits/schemas";
import { client, freshDatabase, SUITE_BUDGET_MS, sql, TOKEN, whileHolding } from "../support";

const suite = {} as { db: string; admit: WranglerDev; gateway: WranglerDev; api: ReturnType<typeof client>; registry: string };

beforeAll(async () => {
  suite.registry = mkdtempSync(join(tmpdir(), "admit-rpc-registry-"));
  const env = { WRANGLER_REGISTRY_PATH: suite.registry };
  suite.db = await freshDatabase("rpc_runtime");
  suite.admit = await startWranglerDev({
    env,
    direct: true,
    vars: { DATABASE_URL: suite.db, NEON_WS_PROXY: inject("wsProxy"), API_TOKEN: TOKEN, DB_BUDGET_MS: SUITE_BUDGET_MS },
  });
  // GATEWAY_TEST_ROUTES: the gateway's /rpc/:method and /measure/http-check, which the tests below
  // use; without it they answer 404 (examples/gateway/index.ts).
  suite.gateway = await startWranglerDev({ env, direct: true, config: "examples/gateway/wrangler.toml", vars: { GATEWAY_TEST_ROUTES: "1" } });
  suite.api = client(ownSocket(suite.admit));
}, 180_000);

afterAll(async () => {
  await suite.gateway?.stop();
  await suite.admit?.stop();
  if (suite.registry) rmSync(suite.registry, { recursive: true, force: true });
});

const gw = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(ownSocket(suite.gateway) + path, {
    method,
    headers: { ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...headers },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text ? JSON.parse(text) : undefined };
};
const rpc = (method: string, input: unknown) => gw("POST", `/rpc/${method}`, input);

describe("the gateway example over the Service Binding", () => {
  it("is reached, like Admit, on its Worker's own workerd socket, past wrangler's dev proxy (ownSocket in dev/wrangler.ts)", () => {
    for (const worker of [suite.admit, suite.gateway]) {
      expect(worker.directUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(worker.directUrl).not.toBe(worker.url);
    }
  });

  it("its wrangler.toml binds Admit and holds no database URL and no API token", () => {
    const toml = readFileSync(join(ROOT, "examples/gateway/wrangler.toml"), "utf8");
    expect(toml).toMatch(/binding = "ADMIT"/);
    expect(toml).toMatch(/entrypoint = "Admit"/);
    const settings = toml
      .split("\n")
      .filter((l) => !l.trim().startsWith("#"))
      .join("\n");
    expect(settings).not.toMatch(/DATABASE_URL|API_TOKEN|NEON_WS_PROXY|postgres(ql)?:\/\//i);
    // The test-only routes (an unauthenticated call of any method, a relay of the Authorization
    // header to any URL) stay off wherever the example is run from its own configuration.
    expect(settings).not.toMatch(/GATEWAY_TEST_ROUTES/);
  });

  // The gateway's own fetch handler, in Node, with a stub binding: no third `wrangler dev` needed to
  // see the routes' gate, which reads nothing but env.
  it('without GATEWAY_TEST_ROUTES = "1" its test-only routes answer 404 and call nothing', async () => {
    const calls: string[] = [];
    const ADMIT = new Proxy({} as AdmitBinding, {
      get: (_t, method) => async () => {
        calls.push(String(method));
        return { allowed: true };
      },
    });
    const post = (path: string, vars: Record<string, string>) =>
      gatewayWorker.fetch(
        new Request(`http://gateway${path}`, {
          method: "POST",
          headers: { "Content-Type": "application/json", Authorization: "Bearer secret", "X-Admit-Url": "http://127.0.0.1:9" },
          body: JSON.stringify({ policy: "p", key: "k" }),
        }),
        { ADMIT, ...vars },
      );
    for (const vars of [{}, { GATEWAY_TEST_ROUTES: "0" }, { GATEWAY_TEST_ROUTES: "true" }] as Record<string, string>[]) {
      expect((await post("/rpc/checkRateLimit", vars)).status).toBe(404);
      expect((await post("/measure/http-check", vars)).status).toBe(404);
    }
    expect(calls).toEqual([]);
    // The same request with the var reaches the binding: the 404s above are the gate, not the route.
    const on = await post("/rpc/checkRateLimit", { GATEWAY_TEST_ROUTES: "1" });
    expect(on.status).toBe(200);
    expect(calls).toEqual(["checkRateLimit"]);
  });

  it("300 simultaneous requests to a route limited to 20 → exactly 20 × 200 and 280 × 429", async () => {
    const put = await suite.api("PUT", "/v1/ratelimits/policies/gateway", {
      algorithm: "fixed_window",
      limit: 20,
      window_ms: MAX_WINDOW_MS,
      timeout_ms: 60_000,
    });
    expect(put.status).toBe(201);
    const results = await Promise.all(Array.from({ length: 300 }, () => gw("GET", "/api/hello", undefined, { "X-Client": "burst" })));
    const byStatus: Record<number, number> = {};
    for (const r of results) byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
    expect(byStatus).toEqual({ 200: 20, 429: 280 });
    for (const r of results.filter((x) => x.status === 200)) {
      expect(r.json).toEqual({ hello: "from behind the gateway" });
      expect(r.headers.get("ratelimit-policy")).toBe('"gateway";q=20;w=31622400');
    }
    for (const r of results.filter((x) => x.status === 429)) {
      expect(r.headers.get("content-type")).toBe("application/problem+json");
      expect(r.json).toMatchObject({ type: "/problems/rate-limited", status: 429, allowed: false, policy: "gateway", key: "burst", remaining: 0 });
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
    }
    expect(await sql(suite.db, "SELECT consumed::int, admitted::int FROM ratelimit_counters WHERE policy = 'gateway' AND key = 'burst'")).toEqual([
      { consumed: 20, admitted: 20 },
    ]);
  }, 120_000);

  it("a concurrency limit over the binding: never more than 2 in flight, the rest 429 concurrency-limited, every permit given back", async () => {
    const results = await Promise.all(Array.from({ length: 6 }, () => gw("GET", "/slow/work?ms=1500")));
    const ok = results.filter((r) => r.status === 200);
    const limited = results.filter((r) => r.status === 429);
    expect(ok.length + limited.length).toBe(6);
    expect(ok.length).toBeGreaterThanOrEqual(2);
    expect(limited.length).toBeGreaterThanOrEqual(1);
    for (const r of limited) expect(r.json).toMatchObject({ type: "/problems/concurrency-limited", permits: 2, in_use: 2 });
    expect(ok[0].headers.get("ratelimit-policy")).toBe('"gateway-inflight";q=2;qu="concurrent-requests"');
    expect((await gw("GET", "/slow-stats")).json.peak).toBeLessThanOrEqual(2);
    const live = await sql<{ n: number }>(
      suite.db,
      "SELECT count(*)::int AS n FROM permits WHERE kind = 'semaphore' AND name = 'gateway-inflight' AND released_at IS NULL AND timed_out_at IS NULL",
    );
    expect(live).toEqual([{ n: 0 }]);
  }, 60_000);

  it("a reservation through the binding: created, then a conflict as a value ({created: false, conflicts}), and a 422 as AdmitError", async () => {
    const body = { resource: "rack-1/server-7", holder: "alice", start: "2030-01-01T10:00:00Z", end: "2030-01-01T12:00:00Z" };
    const first = await gw("POST", "/book", body);
    expect(first.status).toBe(201);
    expect(first.json).toMatchObject({ created: true, resource: "rack-1/server-7", holder: "alice", start: "2030-01-01T10:00:00Z" });
    const second = await gw("POST", "/book", { ...body, holder: "bob", start: "2030-01-01T11:00:00Z", end: "2030-01-01T13:00:00Z" });
    expect(second.status).toBe(409);
    expect(second.json).toEqual({ created: false, conflicts: [expect.objectContaining({ id: first.json.id, holder: "alice" })] });
    const bad = await gw("POST", "/book", { ...body, end: "2030-01-01T09:00:00Z" });
    expect(bad.status).toBe(422);
    expect(bad.json).toMatchObject({ status: 422, type: "/problems/validation" });
    expect(bad.json.message).toContain("end must be after start");
    expect(bad.headers.get("retry-after")).toBeNull();
    // A body that is not JSON: the client's 400, not a 500 from the gateway.
    const notJson = await gw("POST", "/book", "{not json");
    expect([notJson.status, notJson.json]).toEqual([400, { status: 400, type: "/problems/bad-request", message: "The body is not JSON." }]);

    // Admit's lock timeout (the resource's lock held elsewhere): 503 with Retry-After as a header.
    const held = { ...body, resource: "rack-9/locked" };
    const busy = await whileHolding(suite.db, "SELECT pg_advisory_xact_lock($1::bigint)", [lockKey("reservation", held.resource)], () =>
      gw("POST", "/book", held),
    );
    expect([busy.status, busy.json.type]).toEqual([503, "/problems/lock-timeout"]);
    expect(busy.headers.get("retry-after")).toBe(String(busy.json.retryAfter));
  });

  it("a client's Idempotency-Key passed on over the binding: 30 simultaneous retries of one booking → one reservation, one answer", async () => {
    const body = { resource: "rack-2/server-1", holder: "carol", start: "2030-03-01T10:00:00Z", end: "2030-03-01T12:00:00Z" };
    const answers = await Promise.all(Array.from({ length: 30 }, () => gw("POST", "/book", body, { "Idempotency-Key": "carol-rack-2" })));
    const made = answers.filter((a) => a.status === 201);
    const inProgress = answers.filter((a) => a.status === 409 && a.json.type === "/problems/idempotency-key-in-use");
    expect(made.length + inProgress.length, JSON.stringify(answers.map((a) => a.status))).toBe(30);
    expect(new Set(made.map((a) => a.json.id)).size).toBe(1);
    expect(await sql(suite.db, "SELECT count(*)::int AS n FROM reservations WHERE resource = $1", [body.resource])).toEqual([{ n: 1 }]);
    const other = await gw("POST", "/book", { ...body, holder: "dave" }, { "Idempotency-Key": "carol-rack-2" });
    expect(other.status).toBe(422);
    expect(other.json).toMatchObject({ type: "/problems/idempotency-key-reused" });
  });

  it("raw answers: the same 422 errors as HTTP, refusals as values, a missing policy as { error } (404)", async () => {
    const badBody = { resource: "r", holder: "h", start: "2030-01-01T10:00:00Z", end: "2030-01-01T09:00:00Z" };
    const viaRpc = await rpc("reserve", badBody);
    const viaHttp = await suite.api("POST", "/v1/reservations", badBody);
    expect(viaHttp.status).toBe(422);
    expect(viaRpc.json.result.error).toEqual(viaHttp.json);

    const lease = await rpc("acquireLease", { key: "nightly", holder: "w1", ttl_ms: 60_000 });
    expect(lease.json.result).toMatchObject({ acquired: true, key: "nightly", holder: "w1", fencing_token: expect.any(Number) });
    const held = await rpc("acquireLease", { key: "nightly", holder: "w2", ttl_ms: 60_000 });
    expect(held.json.result).toMatchObject({ acquired: false, key: "nightly", holder: "w1" });
    expect((await rpc("releaseLease", { key: "nightly", lease_id: lease.json.result.lease_id })).json.result).toEqual({ released: true });
    expect((await rpc("releaseLease", { key: "nightly", lease_id: lease.json.result.lease_id })).json.result).toMatchObject({
      released: false,
      state: "released",
    });

    // The longest window: two checks a minute's end fell between would both be allowed.
    await suite.api("PUT", "/v1/ratelimits/policies/rpc-one", { algorithm: "fixed_window", limit: 1, window_ms: MAX_WINDOW_MS, timeout_ms: 60_000 });
    expect((await rpc("checkRateLimit", { policy: "rpc-one", key: "k" })).json.result).toMatchObject({ allowed: true, remaining: 0, reason: "limit" });
    expect((await rpc("checkRateLimit", { policy: "rpc-one", key: "k" })).json.result).toMatchObject({ allowed: false, remaining: 0 });
    expect((await rpc("checkRateLimit", { policy: "no-such-policy", key: "k" })).json.result.error).toMatchObject({ status: 404, type: "/problems/not-found" });

    await suite.api("PUT", "/v1/inventory/hotel%2Fdouble/stock", { from: "2030-02-01", to: "2030-02-03", quantity: 1 });
    const booked = await rpc("book", { item: "hotel/double", check_in: "2030-02-01", check_out: "2030-02-03", quantity: 1, holder: "a" });
    expect(booked.json.result).toMatchObject({ created: true, status: "confirmed" });
    const short = await rpc("book", { item: "hotel/double", check_in: "2030-02-02", check_out: "2030-02-03", quantity: 1, holder: "b" });
    expect(short.json.result).toEqual({ created: false, short: [{ date: "2030-02-02", available: 0 }] });
  });

  // What npm run bench's binding-vs-http scenario times (bench/binding.ts): the same check from the
  // gateway over the binding and over HTTP to Admit's own workerd socket. Here only that both ways
  // answer the same decision, and carry the time taken; how long each takes is the bench's to judge.
  it("the bench's measurement: the same check over the binding and over HTTP from the gateway answers alike, with its time", async () => {
    await suite.api("PUT", "/v1/ratelimits/policies/rpc-bench", { algorithm: "fixed_window", limit: 4, window_ms: MAX_WINDOW_MS, timeout_ms: 60_000 });
    const input = { policy: "rpc-bench", key: "k" };
    const http = () => gw("POST", "/measure/http-check", input, { "X-Admit-Url": ownSocket(suite.admit), Authorization: `Bearer ${TOKEN}` });
    const answers = [await rpc("checkRateLimit", input), await http(), await rpc("checkRateLimit", input), await http(), await http()];
    for (const a of answers) expect(a.json.ms).toEqual(expect.any(Number));
    // One counter, whichever way the check came: 4 allowed with 3, 2, 1, 0 left, then denied.
    expect(answers.map((a) => [a.json.result.allowed, a.json.result.remaining])).toEqual([
      [true, 3],
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
  }, 120_000);
});
