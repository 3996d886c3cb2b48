// The RPC methods (functions/http/rpc/) in Node, as the entrypoint runs them: call() with a per-call
// database handle, refusals as values, problems as `{ error }`, and the caller's admit() wrapper
// turning those back into AdmitError. test/rpc/rpc.runtime.test.ts runs them over a real binding.

import { type AdmitBinding, AdmitError, admit } from "@admit/hono";
import { beforeAll, describe, expect, it } from "vitest";
import type { Bindings } from "../../functions/core/env";
import { call, type RpcOptions } from "../../functions/http/rpc/call";
import { METHODS, type MethodName } from "../../functions/http/rpc/methods";
import { bindings, freshDatabase, SUITE_BUDGET_MS, sql } from "../support";

let db = "";
beforeAll(async () => {
  db = await freshDatabase("rpc_node");
});

/** A stand-in for `env.ADMIT`: each method is call() on these bindings, as the entrypoint's are. */
function binding(env: () => Bindings): AdmitBinding {
  return Object.fromEntries(
    Object.keys(METHODS).map((name) => [name, (input: unknown, options?: RpcOptions) => call(env(), undefined, name as MethodName, input as never, options)]),
  ) as AdmitBinding;
}
const env = () => bindings(db, { DB_BUDGET_MS: SUITE_BUDGET_MS });
const raw = binding(env);

describe("RPC methods", () => {
  it("every method refuses malformed input with the HTTP route's 422 (errors list, same wording)", async () => {
    for (const name of Object.keys(METHODS) as MethodName[]) {
      const r = (await raw[name]({} as never)) as { error?: { status: number; type: string; errors: unknown[] } };
      expect(r.error, name).toMatchObject({ status: 422, type: "/problems/validation" });
      expect(r.error!.errors.length, name).toBeGreaterThan(0);
    }
    const r = (await raw.acquireLease({ key: "k", holder: "h", ttl_ms: 5 })) as unknown as { error: { errors: unknown[] } };
    expect(r.error.errors).toEqual([{ in: "body", path: "ttl_ms", message: expect.stringContaining("1000") }]);
  });

  it("refusals are values: a full semaphore, a reservation conflict, a stale permit; a missing thing is an AdmitError (404)", async () => {
    const api = admit(raw);
    await expect(api.acquirePermit({ name: "upstream", holder: "a" })).rejects.toMatchObject({ status: 404, type: "/problems/not-found" });
    const { putSemaphore } = await import("../../functions/permits/sql");
    const { RequestDb } = await import("../../functions/core/db");
    const { auditEntry } = await import("../../functions/core/audit");
    await putSemaphore(new RequestDb(env()), "upstream", 1, 60_000, auditEntry(undefined, {}, "semaphores.put", "upstream", {}));
    const first = await api.acquirePermit({ name: "upstream", holder: "a" });
    expect(first).toMatchObject({ acquired: true, semaphore: "upstream", holder: "a" });
    expect(await api.acquirePermit({ name: "upstream", holder: "b" })).toMatchObject({ acquired: false, permits: 1, in_use: 1 });
    if (!first.acquired) throw new Error("unreachable");
    expect(await api.renewPermit({ name: "upstream", permit_id: first.permit_id, ttl_ms: 30_000 })).toMatchObject({ renewed: true, ttl_ms: 30_000 });
    expect(await api.releasePermit({ name: "upstream", permit_id: first.permit_id })).toEqual({ released: true });
    expect(await api.renewPermit({ name: "upstream", permit_id: first.permit_id })).toMatchObject({ renewed: false, state: "released" });

    const r = { resource: "rpc/1", holder: "a", start: "2031-01-01T00:00:00Z", end: "2031-01-02T00:00:00Z" };
    const made = await api.reserve(r);
    expect(made).toMatchObject({ created: true, resource: "rpc/1" });
    expect(await api.reserve({ ...r, holder: "b" })).toMatchObject({ created: false, conflicts: [{ holder: "a" }] });
    if (!made.created) throw new Error("unreachable");
    expect(await api.cancelReservation({ id: made.id })).toMatchObject({ cancelled: true, id: made.id });
    await expect(api.cancelReservation({ id: "00000000-0000-4000-8000-000000000000" })).rejects.toBeInstanceOf(AdmitError);

    await expect(api.claimWebhookEvents({ source: "nowhere" })).rejects.toMatchObject({ status: 404 });
  });

  it("an unreachable or unconfigured database is { error } with the HTTP status and Retry-After; admit() throws it as AdmitError", async () => {
    const none = binding(() => ({ DB_BUDGET_MS: "2000" }));
    const r = (await none.checkRateLimit({ policy: "p", key: "k" })) as { error: { status: number; type: string; retry_after: number } };
    expect(r.error).toMatchObject({ status: 503, type: "/problems/database-not-configured", retry_after: 30 });
    const err = await admit(none)
      .reserve({ resource: "x", holder: "h", start: "2031-01-01T00:00:00Z", end: "2031-01-02T00:00:00Z" })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AdmitError);
    expect(err).toMatchObject({ name: "AdmitError", status: 503, type: "/problems/database-not-configured", retryAfter: 30 });
    expect((err as AdmitError).message).toContain("DATABASE_URL is not set");

    // A database that does not exist behind the bridge: 503, nothing applied, retry.
    const gone = binding(() => bindings(db.replace(/\/[^/]+$/, "/no_such_database"), { DB_BUDGET_MS: "5000" }));
    const down = (await gone.acquireLease({ key: "k", holder: "h", ttl_ms: 5_000 })) as { error: { status: number; retry_after?: number } };
    expect(down.error.status).toBe(503);
    expect(down.error.retry_after).toBeGreaterThan(0);
  });
});

describe("RPC calls with an idempotency key", () => {
  const stay = { resource: "keyed/1", holder: "a", start: "2032-01-01T00:00:00Z", end: "2032-01-02T00:00:00Z" };
  const rows = async (resource: string) => (await sql<{ n: number }>(db, "SELECT count(*)::int AS n FROM reservations WHERE resource = $1", [resource]))[0].n;

  it("the client can be awaited and returned from an async function (it is not a thenable)", async () => {
    const made = async () => admit(raw);
    const settled = await Promise.race([made(), new Promise((r) => setTimeout(() => r("never settled"), 10_000))]);
    expect(settled).not.toBe("never settled");
    expect(await (settled as ReturnType<typeof admit>).reserve({ ...stay, resource: "keyed/awaited" })).toMatchObject({ created: true });
    expect((admit(raw) as unknown as { then?: unknown }).then).toBeUndefined();
  });

  it("a retried call answers the first call's answer and applies once; other input or another method with the key is a 422", async () => {
    const api = admit(raw);
    const first = await api.reserve(stay, { idempotencyKey: "book-keyed-1" });
    expect(first).toMatchObject({ created: true, resource: "keyed/1" });
    // The retry (its first answer lost) gets the same reservation, not a conflict with itself.
    expect(await api.reserve(stay, { idempotencyKey: "book-keyed-1" })).toEqual(first);
    expect(await rows("keyed/1")).toBe(1);
    // Without the key the same call runs again: a conflict with the first.
    expect(await api.reserve(stay)).toMatchObject({ created: false, conflicts: [{ holder: "a" }] });

    // The same input built with its keys in another order is the same call (canonical JSON), not other input.
    const reordered = Object.fromEntries(Object.entries(stay).reverse()) as typeof stay;
    expect(JSON.stringify(reordered)).not.toBe(JSON.stringify(stay));
    expect(await api.reserve(reordered, { idempotencyKey: "book-keyed-1" })).toEqual(first);
    expect(await rows("keyed/1")).toBe(1);

    const other = (await raw.reserve({ ...stay, holder: "b" }, { idempotencyKey: "book-keyed-1" })) as { error: Record<string, unknown> };
    expect(other.error).toMatchObject({ status: 422, type: "/problems/idempotency-key-reused" });
    expect(other.error.errors).toEqual([{ in: "options", path: "idempotencyKey", message: "already used with a different body" }]);
    const elsewhere = (await raw.cancelReservation({ id: (first as { id: string }).id }, { idempotencyKey: "book-keyed-1" })) as {
      error: Record<string, unknown>;
    };
    expect(elsewhere.error).toMatchObject({ status: 422, type: "/problems/idempotency-key-reused" });
    expect(elsewhere.error.detail).toContain("for RPC Admit.reserve");
  });

  it("a keyed rate-limit denial is not stored but is counted and logged, as over HTTP (issue 28, item 6)", async () => {
    await sql(db, "SELECT admit_ratelimit_put_policy('rpc-logged', 'fixed_window', 1, 31622400000, true, 604800000)");
    const input = { policy: "rpc-logged", key: "k" };
    const answers = [];
    for (const k of ["rl-1", "rl-2", "rl-3"]) answers.push(((await raw.checkRateLimit(input, { idempotencyKey: k })) as { allowed: boolean }).allowed);
    answers.push(((await raw.checkRateLimit(input)) as { allowed: boolean }).allowed);
    expect(answers).toEqual([true, false, false, false]);
    const [usage] = await sql<{ attempted: number; rejected: number }>(
      db,
      "SELECT attempted::int, rejected::int FROM ratelimit_counters WHERE policy = 'rpc-logged' AND key = 'k'",
    );
    expect(usage).toEqual({ attempted: 4, rejected: 3 });
    expect(await sql(db, "SELECT count(*)::int AS n FROM ratelimit_log WHERE policy = 'rpc-logged'")).toEqual([{ n: 4 }]);
    expect(await sql(db, "SELECT key FROM idempotency_keys WHERE key LIKE 'rl-%'")).toEqual([{ key: "rl-1" }]);
  });

  it("input with no JSON form (NaN, Infinity, a lone surrogate, a cycle) under a key is a 422 and stores nothing", async () => {
    const cycle: Record<string, unknown> = { ...stay, resource: "keyed/cycle" };
    cycle.self = cycle;
    const inputs = [{ ...stay, holder: "\ud800" }, { ...stay, n: Number.NaN }, { ...stay, n: Number.POSITIVE_INFINITY }, cycle];
    for (const [i, input] of inputs.entries()) {
      const r = (await raw.reserve(input as typeof stay, { idempotencyKey: `no-json-${i}` })) as { error: Record<string, unknown> };
      expect(r.error, String(i)).toMatchObject({ status: 422, type: "/problems/validation" });
      expect(r.error.errors, String(i)).toEqual([{ in: "body", path: "", message: expect.any(String) }]);
    }
    const stored = await sql<{ n: number }>(db, "SELECT count(*)::int AS n FROM idempotency_keys WHERE key LIKE 'no-json-%'");
    expect(stored).toEqual([{ n: 0 }]);
  });

  it("metadata or info that JSON cannot carry (NaN, a cycle, a BigInt) is a 422 naming the field, with or without a key; nothing is stored", async () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    for (const [i, metadata] of [{ n: Number.NaN }, { n: Number.POSITIVE_INFINITY }, cycle, { n: 10n }].entries()) {
      for (const options of [undefined, { idempotencyKey: `meta-${i}` }]) {
        const r = (await raw.reserve({ ...stay, resource: "keyed/meta", metadata }, options)) as { error: Record<string, any> };
        expect(r.error, `${i} ${JSON.stringify(options)}`).toMatchObject({ status: 422, type: "/problems/validation" });
        expect(r.error.errors.map((e: { path: string }) => e.path)).toEqual([options ? "" : "metadata"]);
      }
    }
    expect(await rows("keyed/meta")).toBe(0);
    await raw.reserve({ ...stay, resource: "keyed/meta", metadata: { big: "x".repeat(300 * 1024) } }).then((r) => {
      expect((r as { error: Record<string, any> }).error.errors[0]).toMatchObject({
        path: "metadata",
        message: expect.stringContaining("at most 262144 bytes"),
      });
    });
    const info = (await raw.checkRateLimit({ policy: "p", key: "k", info: { n: 1n } })) as { error: Record<string, any> };
    expect(info.error).toMatchObject({ status: 422, errors: [{ in: "body", path: "info", message: expect.stringContaining("must be plain JSON") }] });
    // info is measured in bytes of UTF-8, as documented: 1 100 × "é" is 2 200 bytes.
    const wide = (await raw.checkRateLimit({ policy: "p", key: "k", info: { t: "é".repeat(1100) } })) as { error: Record<string, any> };
    expect(wide.error).toMatchObject({ status: 422, errors: [{ path: "info", message: "must serialise to at most 2048 bytes" }] });
  });

  it("50 simultaneous calls with one key: one reservation; every answer is it, or 409 in progress with retry_after", async () => {
    const burst = { ...stay, resource: "keyed/burst" };
    const answers = await Promise.all(Array.from({ length: 50 }, () => raw.reserve(burst, { idempotencyKey: "burst-key" })));
    expect(await rows("keyed/burst")).toBe(1);
    const made = answers.filter((a) => "created" in a && a.created);
    const busy = answers.filter((a) => "error" in a);
    expect(made.length + busy.length).toBe(50);
    expect(new Set(made.map((a) => (a as { id: string }).id)).size).toBe(1);
    for (const b of busy) expect((b as { error: unknown }).error).toMatchObject({ status: 409, type: "/problems/idempotency-key-in-use", retry_after: 1 });
    console.log("keyed burst:", { answered: made.length, in_progress: busy.length });
  });

  it("an answer that invites a retry (a busy lease, a rate-limit denial) or a problem is not kept: the retry runs afresh", async () => {
    const api = admit(raw);
    const mine = await api.acquireLease({ key: "keyed-lease", holder: "w1", ttl_ms: 60_000 });
    expect(await api.acquireLease({ key: "keyed-lease", holder: "w2", ttl_ms: 60_000 }, { idempotencyKey: "w2-take" })).toMatchObject({ acquired: false });
    if (!mine.acquired) throw new Error("unreachable");
    await api.releaseLease({ key: "keyed-lease", lease_id: mine.lease_id });
    expect(await api.acquireLease({ key: "keyed-lease", holder: "w2", ttl_ms: 60_000 }, { idempotencyKey: "w2-take" })).toMatchObject({
      acquired: true,
      holder: "w2",
    });

    await expect(api.cancelReservation({ id: "00000000-0000-4000-8000-000000000001" }, { idempotencyKey: "gone" })).rejects.toMatchObject({ status: 404 });
    const stored = await sql<{ n: number }>(db, "SELECT count(*)::int AS n FROM idempotency_keys WHERE key = ANY($1)", [["gone", "w2-take"]]);
    expect(stored).toEqual([{ n: 1 }]); // the acquired lease, not the busy answer nor the 404
  });

  it("a malformed key or options object is a 422 naming options, and rateLimitGate takes no key", async () => {
    const malformed = [
      { idempotencyKey: "" },
      { idempotencyKey: "k".repeat(256) },
      { idempotencyKey: 7 },
      { idempotency_key: "k" },
      "k",
      // Not stored as itself: a NUL is refused by Postgres, and the driver sends a lone surrogate as
      // U+FFFD, so these two keys would have been one.
      { idempotencyKey: "k\u0000" },
      { idempotencyKey: "k\ud800" },
      { idempotencyKey: "k\udbff" },
    ];
    for (const options of malformed) {
      const r = (await raw.reserve(stay, options as never)) as unknown as { error: { status: number; errors: Array<{ in: string; path: string }> } };
      expect(r.error, JSON.stringify(options)).toMatchObject({ status: 422, type: "/problems/validation" });
      expect(r.error.errors[0].in).toBe("options");
      if (typeof options === "object" && "idempotencyKey" in options && typeof options.idempotencyKey === "string") {
        expect(r.error.errors[0].path, JSON.stringify(options)).toBe("idempotencyKey");
      }
    }
    // rateLimitGate is the middleware's decision for one request: its type takes no options, and an
    // options argument is not read (an empty key would be a 422 otherwise).
    // @ts-expect-error no options
    const gate = await raw.rateLimitGate({ policy: "no-such-policy", key: "k" }, { idempotencyKey: "" });
    expect(gate).toMatchObject({ pass: false, status: 503, problem: { type: "/problems/ratelimit-policy-missing" } });
  });
});

describe("rateLimit({ binding }) answers Admit's problems as HTTP", () => {
  it("a 503 keeps Admit's Retry-After (not a stray retry_after in the body); a 422 has none", async () => {
    const { Hono } = await import("hono");
    const { rateLimit } = await import("../../functions/ratelimits");
    const answers = [
      { error: { type: "/problems/database-unavailable", title: "Database unavailable", status: 503, detail: "down", retry_after: 30 } },
      { error: { type: "/problems/validation", title: "Validation failed", status: 422, detail: "body key: too long", errors: [] } },
    ];
    const binding = { rateLimitGate: async () => answers.shift()!, releasePermit: async () => ({}) };
    const app = new Hono().use("*", rateLimit({ binding, policy: "p", key: () => "k" })).get("/", (c) => c.text("ran"));
    const down = await app.request("/");
    expect(down.status).toBe(503);
    expect(down.headers.get("retry-after")).toBe("30");
    expect(down.headers.get("content-type")).toBe("application/problem+json");
    expect(await down.json()).toEqual({ type: "/problems/database-unavailable", title: "Database unavailable", status: 503, detail: "down" });
    const bad = await app.request("/");
    expect(bad.status).toBe(422);
    expect(bad.headers.get("retry-after")).toBeNull();
  });
});
