// The RPC methods (functions/rpc/) in Node, as the entrypoint runs them: call() with a per-call
// database handle, refusals as values, problems as `{ error }`, and the caller's admit() wrapper
// turning those back into AdmitError. test/rpc/rpc.runtime.test.ts runs them over a real binding.
import { beforeAll, describe, expect, it } from "vitest";
import type { Bindings } from "../../functions/core/env";
import { call } from "../../functions/rpc/call";
import { type AdmitBinding, AdmitError, admit } from "../../functions/rpc/client";
import { METHODS, type MethodName } from "../../functions/rpc/methods";
import { bindings, freshDatabase, SUITE_BUDGET_MS } from "../support";

let db = "";
beforeAll(async () => {
  db = await freshDatabase("rpc_node");
});

/** A stand-in for `env.ADMIT`: each method is call() on these bindings, as the entrypoint's are. */
function binding(env: () => Bindings): AdmitBinding {
  return Object.fromEntries(
    Object.keys(METHODS).map((name) => [name, (input: unknown) => call(env(), undefined, name as MethodName, input as never)]),
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
    await putSemaphore(new RequestDb(env()), "upstream", 1, 60_000);
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
