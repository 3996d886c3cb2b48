// What each RPC method of the `Admit` entrypoint does, as plain functions of (database handle, input)
// so they run (and are tested) in Node as well as in workerd. Input is validated with the HTTP
// routes' own schemas (validate.ts); the capability's sql.ts wrappers and decision functions do the
// work, as in the HTTP handlers. A refusal is a value (`allowed: false`, `created: false`,
// `acquired: false`, …); anything the HTTP API answers with a problem that is not a refusal
// (422, 404, 503, 504) is thrown as a ProblemError, which entrypoint.ts turns into `{ error }`.
import { z } from "@hono/zod-openapi";
import type { RequestDb } from "../core/db";
import type { Bindings } from "../core/env";
import { notFound, type Problem, ProblemError } from "../core/errors";
import * as inventoryRoutes from "../inventory/routes";
import * as inventorySql from "../inventory/sql";
import * as permitsRoutes from "../permits/routes";
import * as permitsSql from "../permits/sql";
import {
  checkOnce,
  denyCacheFor,
  type GateAnswer,
  type GateInput,
  gate,
  gateBudget,
  isUnenforced,
  type RateLimitResult,
  unenforcedResponse,
} from "../ratelimits";
import * as ratelimitsRoutes from "../ratelimits/routes";
import * as reservationsRoutes from "../reservations/routes";
import * as reservationsSql from "../reservations/sql";
import * as webhooksRoutes from "../webhooks/routes";
import * as webhooksSql from "../webhooks/sql";
import { bodyOf, valid } from "./validate";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type Db = RequestDb;

// ---------------------------------------------------------------------------------------------
// Rate limits.

export type CheckInput = { policy?: string; policies?: string[]; key: string; cost?: number; info?: Record<string, unknown> };
/** The body POST /v1/ratelimits/check answers: a decision (allowed or not), or the fail-open answer. */
export type CheckAnswer = RateLimitResult | (Omit<RateLimitResult, "limit" | "remaining" | "reset_ms" | "reason"> & Record<string, unknown>);

export async function checkRateLimit(db: Db, env: Bindings, input: CheckInput): Promise<CheckAnswer> {
  const b = valid(bodyOf(ratelimitsRoutes.checkRateLimit), input, "json");
  const d = await checkOnce(db, b, denyCacheFor(env));
  if (isUnenforced(d)) {
    const u = unenforcedResponse(d);
    if (u.status !== 200) throw new ProblemError(u.body as Problem, u.headers);
    return u.body as CheckAnswer;
  }
  if ("missing" in d) throw notFound(`No rate-limit policy named ${JSON.stringify(d.missing[0])}.`);
  return d.result;
}

/**
 * The rateLimit() middleware's decision, for a Worker calling over the binding
 * (functions/ratelimits/gate.ts): window limits and/or a concurrency limit. A `permit` in the
 * answer is given back with `releasePermit` after the caller's response.
 */
export async function rateLimitGate(db: Db, env: Bindings, input: GateInput): Promise<GateAnswer> {
  const { timeout_ms, on_unavailable, concurrency, holder, ...check } = input ?? ({} as GateInput);
  const settings = valid(GateSettings, { timeout_ms, on_unavailable, concurrency, holder }, "json");
  const windows = check.policy !== undefined || check.policies !== undefined || !concurrency;
  const b = windows ? valid(bodyOf(ratelimitsRoutes.checkRateLimit), check, "json") : {};
  const gateIn: GateInput = { ...b, ...settings };
  return gate(db, gateIn, denyCacheFor(env), gateBudget(db, gateIn));
}

const GateSettings = z.object({
  timeout_ms: z.number().int().min(1).max(60_000).optional(),
  on_unavailable: z.enum(["deny", "allow"]).optional(),
  concurrency: z
    .object({
      name: permitsRoutes.acquireSemaphore.request.params.shape.name,
      permits: z.number().int().min(1).max(permitsRoutes.MAX_PERMITS),
      ttl_ms: permitsRoutes.TtlMs.optional(),
    })
    .optional(),
  holder: permitsRoutes.Holder.optional(),
});

// ---------------------------------------------------------------------------------------------
// Reservations.

export type ReserveInput = { resource: string; holder: string; start: string; end: string; metadata?: Record<string, unknown> };
export type ReserveAnswer = ({ created: true } & reservationsSql.ReservationRow) | { created: false; conflicts: reservationsSql.ReservationConflict[] };

export async function reserve(db: Db, input: ReserveInput): Promise<ReserveAnswer> {
  const b = valid(bodyOf(reservationsRoutes.createReservation), input, "json");
  const r = await reservationsSql.reserve(db, b);
  return r.created ? { created: true, ...r.reservation } : { created: false, conflicts: r.conflicts };
}

export async function cancelReservation(db: Db, input: { id: string }): Promise<{ cancelled: true } & reservationsSql.ReservationRow> {
  const { id } = valid(reservationsRoutes.cancelReservation.request.params, { id: input?.id }, "param");
  const r = UUID.test(id) ? await reservationsSql.cancelReservation(db, id) : null;
  if (!r) throw notFound(`No reservation with id ${JSON.stringify(id)}.`);
  return { cancelled: true, ...r };
}

// ---------------------------------------------------------------------------------------------
// Leases and semaphore permits.

type NotCurrentAnswer = { state: "released" | "timed_out" | "unknown"; released_at: string | null; timed_out_at: string | null };
const notCurrent = (r: permitsSql.NotCurrent): NotCurrentAnswer => ({
  state: r.state,
  released_at: r.released_at ?? null,
  timed_out_at: r.timed_out_at ?? null,
});

export type LeaseAcquireAnswer =
  | ({ acquired: true } & permitsSql.Lease)
  | { acquired: false; key: string; holder: string | null; expires_at: string; retry_after_ms: number };

export async function acquireLease(db: Db, input: { key: string; holder: string; ttl_ms: number }): Promise<LeaseAcquireAnswer> {
  const { key } = valid(permitsRoutes.acquireLock.request.params, { key: input?.key }, "param");
  const b = valid(bodyOf(permitsRoutes.acquireLock), { holder: input.holder, ttl_ms: input.ttl_ms }, "json");
  const r = await permitsSql.acquirePermit<permitsSql.Lease>(db, "lease", key, b.holder, b.ttl_ms);
  if (r.status === "busy") return { acquired: false, key, holder: r.holder, expires_at: r.expires_at, retry_after_ms: r.retry_after_ms };
  if (r.status !== "acquired") throw new Error(`acquire answered ${r.status}`);
  return { acquired: true, ...r.permit };
}

export async function renewLease(
  db: Db,
  input: { key: string; lease_id: string; ttl_ms?: number },
): Promise<({ renewed: true } & permitsSql.Lease) | ({ renewed: false } & NotCurrentAnswer)> {
  const { key } = valid(permitsRoutes.renewLock.request.params, { key: input?.key }, "param");
  const b = valid(bodyOf(permitsRoutes.renewLock), { lease_id: input.lease_id, ttl_ms: input.ttl_ms }, "json");
  const r = await permitsSql.renewPermit<permitsSql.Lease>(db, "lease", key, b.lease_id, b.ttl_ms);
  if (r.status === "not_current") return { renewed: false, ...notCurrent(r) };
  if (r.status !== "renewed") throw new Error(`renew answered ${r.status}`);
  return { renewed: true, ...r.permit };
}

export async function releaseLease(db: Db, input: { key: string; lease_id: string }): Promise<{ released: true } | ({ released: false } & NotCurrentAnswer)> {
  const { key } = valid(permitsRoutes.releaseLock.request.params, { key: input?.key }, "param");
  const b = valid(bodyOf(permitsRoutes.releaseLock), { lease_id: input.lease_id }, "json");
  const r = await permitsSql.releasePermit(db, "lease", key, b.lease_id);
  if (r.status === "not_current") return { released: false, ...notCurrent(r) };
  return { released: true };
}

const semaphoreNotFound = (name: string) => notFound(`No semaphore ${JSON.stringify(name)}: create it with PUT /v1/semaphores/{name}.`);

export type PermitAcquireAnswer =
  | ({ acquired: true } & permitsSql.Permit)
  | { acquired: false; permits: number; in_use: number; earliest_expires_at: string; retry_after_ms: number };

export async function acquirePermit(db: Db, input: { name: string; holder: string; ttl_ms?: number }): Promise<PermitAcquireAnswer> {
  const { name } = valid(permitsRoutes.acquireSemaphore.request.params, { name: input?.name }, "param");
  const b = valid(bodyOf(permitsRoutes.acquireSemaphore), { holder: input.holder, ttl_ms: input.ttl_ms }, "json");
  const r = await permitsSql.acquirePermit<permitsSql.Permit>(db, "semaphore", name, b.holder, b.ttl_ms);
  if (r.status === "not_found") throw semaphoreNotFound(name);
  if (r.status === "busy")
    return { acquired: false, permits: r.permits, in_use: r.in_use, earliest_expires_at: r.expires_at, retry_after_ms: r.retry_after_ms };
  if (r.status !== "acquired") throw new Error(`acquire answered ${r.status}`);
  return { acquired: true, ...r.permit };
}

export async function renewPermit(
  db: Db,
  input: { name: string; permit_id: string; ttl_ms?: number },
): Promise<({ renewed: true } & permitsSql.Permit) | ({ renewed: false } & NotCurrentAnswer)> {
  const { name } = valid(permitsRoutes.renewSemaphore.request.params, { name: input?.name }, "param");
  const b = valid(bodyOf(permitsRoutes.renewSemaphore), { permit_id: input.permit_id, ttl_ms: input.ttl_ms }, "json");
  const r = await permitsSql.renewPermit<permitsSql.Permit>(db, "semaphore", name, b.permit_id, b.ttl_ms);
  if (r.status === "not_found") throw semaphoreNotFound(name);
  if (r.status === "not_current") return { renewed: false, ...notCurrent(r) };
  if (r.status !== "renewed") throw new Error(`renew answered ${r.status}`);
  return { renewed: true, ...r.permit };
}

export async function releasePermit(
  db: Db,
  input: { name: string; permit_id: string },
): Promise<{ released: true } | ({ released: false } & NotCurrentAnswer)> {
  const { name } = valid(permitsRoutes.releaseSemaphore.request.params, { name: input?.name }, "param");
  const b = valid(bodyOf(permitsRoutes.releaseSemaphore), { permit_id: input.permit_id }, "json");
  const r = await permitsSql.releasePermit(db, "semaphore", name, b.permit_id);
  if (r.status === "not_found") throw semaphoreNotFound(name);
  if (r.status === "not_current") return { released: false, ...notCurrent(r) };
  return { released: true };
}

// ---------------------------------------------------------------------------------------------
// Inventory.

export type BookInput = { item: string; check_in: string; check_out: string; quantity: number; holder: string; hold_ms?: number };
export type BookAnswer = ({ created: true } & inventorySql.BookingRow) | { created: false; short: { date: string; available: number }[] };

export async function book(db: Db, input: BookInput): Promise<BookAnswer> {
  const { item, ...body } = input ?? ({} as BookInput);
  const p = valid(inventoryRoutes.createBooking.request.params, { item }, "param");
  const b = valid(bodyOf(inventoryRoutes.createBooking), body, "json");
  const r = await inventorySql.book(db, p.item, { checkIn: b.check_in, checkOut: b.check_out, quantity: b.quantity, holder: b.holder, holdMs: b.hold_ms });
  return r.created ? { created: true, ...r.booking } : { created: false, short: r.short };
}

const bookingNotFound = (item: string, id: string) => notFound(`No booking ${JSON.stringify(id)} of ${JSON.stringify(item)}.`);

export async function confirmBooking(
  db: Db,
  input: { item: string; id: string },
): Promise<({ confirmed: true } & inventorySql.BookingRow) | { confirmed: false; state: "expired" | "cancelled"; booking: inventorySql.BookingRow }> {
  const { item, id } = valid(inventoryRoutes.confirmBooking.request.params, { item: input?.item, id: input?.id }, "param");
  if (!UUID.test(id)) throw bookingNotFound(item, id);
  const r = await inventorySql.confirm(db, item, id);
  if (r.result === "not_found" || !r.booking) throw bookingNotFound(item, id);
  if (r.result === "expired" || r.result === "cancelled") return { confirmed: false, state: r.result, booking: r.booking };
  return { confirmed: true, ...r.booking };
}

export async function cancelBooking(db: Db, input: { item: string; id: string }): Promise<{ cancelled: true } & inventorySql.BookingRow> {
  const { item, id } = valid(inventoryRoutes.cancelBooking.request.params, { item: input?.item, id: input?.id }, "param");
  const r = UUID.test(id) ? await inventorySql.cancel(db, item, id) : null;
  if (!r) throw bookingNotFound(item, id);
  return { cancelled: true, ...r };
}

// ---------------------------------------------------------------------------------------------
// The webhook queue.

export async function claimWebhookEvents(
  db: Db,
  input: { source: string; limit?: number; visibility_ms?: number },
): Promise<{ events: webhooksSql.ClaimedEventRow[] }> {
  const { source, ...body } = input ?? ({} as { source: string });
  const p = valid(webhooksRoutes.claimWebhookEvents.request.params, { source }, "param");
  const b = valid(webhooksRoutes.ClaimBody, body, "json");
  const r = await webhooksSql.claimWebhookEvents(db, p.source, b.limit, b.visibility_ms);
  if (!r) throw notFound(`No webhook source ${JSON.stringify(p.source)}. Register it with PUT /v1/webhooks/sources/${p.source}.`);
  return r;
}

export async function ackWebhookEvent(
  db: Db,
  input: { source: string; id: string; receipt: string },
): Promise<({ acked: true } & webhooksSql.WebhookEventRow) | ({ acked: false } & Omit<webhooksSql.NotCurrent, "status">)> {
  const { source, id } = valid(webhooksRoutes.ackWebhookEvent.request.params, { source: input?.source, id: input?.id }, "param");
  const { receipt } = valid(bodyOf(webhooksRoutes.ackWebhookEvent), { receipt: input.receipt }, "json");
  const eventNotFound = notFound(`No event ${JSON.stringify(id)} of source ${JSON.stringify(source)}.`);
  if (!UUID.test(id)) throw eventNotFound;
  const r = await webhooksSql.ackWebhookEvent(db, source, id, receipt);
  if (!r) throw eventNotFound;
  if (r.status === "not_current") {
    const { status: _s, ...rest } = r as webhooksSql.NotCurrent;
    return { acked: false, ...rest };
  }
  return { acked: true, ...(r as webhooksSql.WebhookEventRow) };
}

/** Every RPC method: name → (handle, bindings, input) → answer. entrypoint.ts exposes each as a method of `Admit`. */
export const METHODS = {
  checkRateLimit,
  rateLimitGate,
  reserve: (db: Db, _env: Bindings, input: ReserveInput) => reserve(db, input),
  cancelReservation: (db: Db, _env: Bindings, input: { id: string }) => cancelReservation(db, input),
  acquireLease: (db: Db, _env: Bindings, input: Parameters<typeof acquireLease>[1]) => acquireLease(db, input),
  renewLease: (db: Db, _env: Bindings, input: Parameters<typeof renewLease>[1]) => renewLease(db, input),
  releaseLease: (db: Db, _env: Bindings, input: Parameters<typeof releaseLease>[1]) => releaseLease(db, input),
  acquirePermit: (db: Db, _env: Bindings, input: Parameters<typeof acquirePermit>[1]) => acquirePermit(db, input),
  renewPermit: (db: Db, _env: Bindings, input: Parameters<typeof renewPermit>[1]) => renewPermit(db, input),
  releasePermit: (db: Db, _env: Bindings, input: Parameters<typeof releasePermit>[1]) => releasePermit(db, input),
  book: (db: Db, _env: Bindings, input: BookInput) => book(db, input),
  confirmBooking: (db: Db, _env: Bindings, input: Parameters<typeof confirmBooking>[1]) => confirmBooking(db, input),
  cancelBooking: (db: Db, _env: Bindings, input: Parameters<typeof cancelBooking>[1]) => cancelBooking(db, input),
  claimWebhookEvents: (db: Db, _env: Bindings, input: Parameters<typeof claimWebhookEvents>[1]) => claimWebhookEvents(db, input),
  ackWebhookEvent: (db: Db, _env: Bindings, input: Parameters<typeof ackWebhookEvent>[1]) => ackWebhookEvent(db, input),
};

export type MethodName = keyof typeof METHODS;
