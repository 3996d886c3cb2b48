// Leases' and semaphore permits' methods of Admit's RPC entrypoint (acquire, renew and release of
// each; composed in functions/http/rpc/): functions of (database handle, bindings, input), so they
// run in Node as in workerd. Input is validated with the HTTP routes' own schemas (the same rules
// and 422 `errors`); the work is this folder's sql.ts, as in the handlers, whose not-found problems
// it shares. A refusal is a value (`acquired: false`, `renewed: false`, `released: false`); what
// the route answers with any other problem (422, 404, 503, 504) is thrown as a ProblemError, which
// the entrypoint returns as `{ error }`. docs/rpc.md documents them.
import type { RequestDb as Db } from "../core/db";
import type { Bindings } from "../core/env";
import { bodyOf, validInput } from "../core/validation";
import { semaphoreNotFound } from "./handlers";
import * as routes from "./routes";
import * as sql from "./sql";

type NotCurrentAnswer = { state: "released" | "timed_out" | "unknown"; released_at: string | null; timed_out_at: string | null };
const notCurrent = (r: sql.NotCurrent): NotCurrentAnswer => ({
  state: r.state,
  released_at: r.released_at ?? null,
  timed_out_at: r.timed_out_at ?? null,
});

export type LeaseAcquireAnswer =
  | ({ acquired: true } & sql.Lease)
  | { acquired: false; key: string; holder: string | null; expires_at: string; retry_after_ms: number };

export async function acquireLease(db: Db, input: { key: string; holder: string; ttl_ms: number }): Promise<LeaseAcquireAnswer> {
  const { param, json: b } = validInput(input, routes.acquireLock.request.params, bodyOf(routes.acquireLock));
  const { key } = param;
  const r = await sql.acquirePermit<sql.Lease>(db, "lease", key, b.holder, b.ttl_ms);
  if (r.status === "busy") return { acquired: false, key, holder: r.holder, expires_at: r.expires_at, retry_after_ms: r.retry_after_ms };
  if (r.status !== "acquired") throw new Error(`acquire answered ${r.status}`);
  return { acquired: true, ...r.permit };
}

export async function renewLease(
  db: Db,
  input: { key: string; lease_id: string; ttl_ms?: number },
): Promise<({ renewed: true } & sql.Lease) | ({ renewed: false } & NotCurrentAnswer)> {
  const { param, json: b } = validInput(input, routes.renewLock.request.params, bodyOf(routes.renewLock));
  const { key } = param;
  const r = await sql.renewPermit<sql.Lease>(db, "lease", key, b.lease_id, b.ttl_ms);
  if (r.status === "not_current") return { renewed: false, ...notCurrent(r) };
  if (r.status !== "renewed") throw new Error(`renew answered ${r.status}`);
  return { renewed: true, ...r.permit };
}

export async function releaseLease(db: Db, input: { key: string; lease_id: string }): Promise<{ released: true } | ({ released: false } & NotCurrentAnswer)> {
  const { param, json: b } = validInput(input, routes.releaseLock.request.params, bodyOf(routes.releaseLock));
  const { key } = param;
  const r = await sql.releasePermit(db, "lease", key, b.lease_id);
  if (r.status === "not_current") return { released: false, ...notCurrent(r) };
  return { released: true };
}

export type PermitAcquireAnswer =
  | ({ acquired: true } & sql.Permit)
  | { acquired: false; permits: number; in_use: number; earliest_expires_at: string; retry_after_ms: number };

export async function acquirePermit(db: Db, input: { name: string; holder: string; ttl_ms?: number }): Promise<PermitAcquireAnswer> {
  const { param, json: b } = validInput(input, routes.acquireSemaphore.request.params, bodyOf(routes.acquireSemaphore));
  const { name } = param;
  const r = await sql.acquirePermit<sql.Permit>(db, "semaphore", name, b.holder, b.ttl_ms);
  if (r.status === "not_found") throw semaphoreNotFound(name);
  if (r.status === "busy")
    return { acquired: false, permits: r.permits, in_use: r.in_use, earliest_expires_at: r.expires_at, retry_after_ms: r.retry_after_ms };
  if (r.status !== "acquired") throw new Error(`acquire answered ${r.status}`);
  return { acquired: true, ...r.permit };
}

export async function renewPermit(
  db: Db,
  input: { name: string; permit_id: string; ttl_ms?: number },
): Promise<({ renewed: true } & sql.Permit) | ({ renewed: false } & NotCurrentAnswer)> {
  const { param, json: b } = validInput(input, routes.renewSemaphore.request.params, bodyOf(routes.renewSemaphore));
  const { name } = param;
  const r = await sql.renewPermit<sql.Permit>(db, "semaphore", name, b.permit_id, b.ttl_ms);
  if (r.status === "not_found") throw semaphoreNotFound(name);
  if (r.status === "not_current") return { renewed: false, ...notCurrent(r) };
  if (r.status !== "renewed") throw new Error(`renew answered ${r.status}`);
  return { renewed: true, ...r.permit };
}

export async function releasePermit(
  db: Db,
  input: { name: string; permit_id: string },
): Promise<{ released: true } | ({ released: false } & NotCurrentAnswer)> {
  const { param, json: b } = validInput(input, routes.releaseSemaphore.request.params, bodyOf(routes.releaseSemaphore));
  const { name } = param;
  const r = await sql.releasePermit(db, "semaphore", name, b.permit_id);
  if (r.status === "not_found") throw semaphoreNotFound(name);
  if (r.status === "not_current") return { released: false, ...notCurrent(r) };
  return { released: true };
}

/** This capability's methods of the entrypoint. */
export const RPC = {
  acquireLease: (db: Db, _env: Bindings, input: Parameters<typeof acquireLease>[1]) => acquireLease(db, input),
  renewLease: (db: Db, _env: Bindings, input: Parameters<typeof renewLease>[1]) => renewLease(db, input),
  releaseLease: (db: Db, _env: Bindings, input: Parameters<typeof releaseLease>[1]) => releaseLease(db, input),
  acquirePermit: (db: Db, _env: Bindings, input: Parameters<typeof acquirePermit>[1]) => acquirePermit(db, input),
  renewPermit: (db: Db, _env: Bindings, input: Parameters<typeof renewPermit>[1]) => renewPermit(db, input),
  releasePermit: (db: Db, _env: Bindings, input: Parameters<typeof releasePermit>[1]) => releasePermit(db, input),
};
