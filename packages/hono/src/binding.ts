// The caller's side of Admit's Service Binding (its `Admit` RPC entrypoint): the binding's type and
// admit(binding), which turns `{ error }` answers back into a thrown AdmitError carrying the
// problem's status, type and Retry-After. Types only from @admit/client's generated schema: nothing
// here imports Admit's Worker or database code. The repository's test/packages/ checks these types
// against the entrypoint's own, so they cannot drift apart unnoticed.
import type { components } from "@admit/client";

type S = components["schemas"];

/** A problem as the binding returns it: the problem+json body, plus `retry_after` (seconds) when HTTP would send Retry-After. */
export type RpcProblem = S["Problem"] & { retry_after?: number; [extension: string]: unknown };

/** A call's options (the second argument of every method but rateLimitGate). */
export interface RpcOptions {
  /** Runs the call at most once for this key (1–255 characters): a retry with the same key and input answers the first call's answer. */
  idempotencyKey?: string;
}

type NotCurrent = { state: "released" | "timed_out" | "unknown"; released_at: string | null; timed_out_at: string | null };

/** The rateLimit() middleware's question over the binding: window limits and/or a concurrency limit. */
export interface GateInput {
  policy?: string;
  policies?: string[];
  key?: string;
  cost?: number;
  info?: Record<string, unknown>;
  timeout_ms?: number;
  on_unavailable?: "deny" | "allow";
  concurrency?: { name: string; permits: number; ttl_ms?: number };
  holder?: string;
}

/** Through (headers to set, perhaps a permit to give back) or a refusal to send as it is. */
export type GateAnswer =
  | { pass: true; headers: Record<string, string>; unenforced: boolean; result?: S["RateLimitResult"]; permit?: { name: string; permit_id: string } }
  | { pass: false; status: number; problem: RpcProblem; headers: Record<string, string> };

/** Every method of the binding: its input and what it resolves to (besides `{ error }`). */
export interface AdmitMethods {
  checkRateLimit: [S["RateLimitCheck"], S["RateLimitResult"] | S["RateLimitUnenforced"]];
  rateLimitGate: [GateInput, GateAnswer];
  reserve: [S["NewReservation"], ({ created: true } & S["Reservation"]) | { created: false; conflicts: S["ReservationConflictItem"][] }];
  cancelReservation: [{ id: string }, { cancelled: true } & S["Reservation"]];
  acquireLease: [
    { key: string; holder: string; ttl_ms: number },
    ({ acquired: true } & S["Lease"]) | { acquired: false; key: string; holder: string | null; expires_at: string; retry_after_ms: number },
  ];
  renewLease: [{ key: string; lease_id: string; ttl_ms?: number }, ({ renewed: true } & S["Lease"]) | ({ renewed: false } & NotCurrent)];
  releaseLease: [{ key: string; lease_id: string }, { released: true } | ({ released: false } & NotCurrent)];
  acquirePermit: [
    { name: string; holder: string; ttl_ms?: number },
    ({ acquired: true } & S["Permit"]) | { acquired: false; permits: number; in_use: number; earliest_expires_at: string; retry_after_ms: number },
  ];
  renewPermit: [{ name: string; permit_id: string; ttl_ms?: number }, ({ renewed: true } & S["Permit"]) | ({ renewed: false } & NotCurrent)];
  releasePermit: [{ name: string; permit_id: string }, { released: true } | ({ released: false } & NotCurrent)];
  book: [
    { item: string; check_in: string; check_out: string; quantity: number; holder: string; hold_ms?: number },
    ({ created: true } & S["InventoryBooking"]) | { created: false; short: { date: string; available: number }[] },
  ];
  confirmBooking: [
    { item: string; id: string },
    ({ confirmed: true } & S["InventoryBooking"]) | { confirmed: false; state: "expired" | "cancelled"; booking: S["InventoryBooking"] },
  ];
  cancelBooking: [{ item: string; id: string }, { cancelled: true } & S["InventoryBooking"]];
  claimWebhookEvents: [{ source: string; limit?: number; visibility_ms?: number }, { events: S["ClaimedWebhookEvent"][] }];
  ackWebhookEvent: [{ source: string; id: string; receipt: string }, ({ acked: true } & S["WebhookEvent"]) | ({ acked: false } & Record<string, unknown>)];
}

export type MethodName = keyof AdmitMethods;
type Args<M extends MethodName> = M extends "rateLimitGate" ? [input: AdmitMethods[M][0]] : [input: AdmitMethods[M][0], options?: RpcOptions];

/** The `Admit` entrypoint as a binding (`env.ADMIT`) exposes it: each method answers its result or `{ error }`. */
export type AdmitBinding = { [M in MethodName]: (...args: Args<M>) => Promise<AdmitMethods[M][1] | { error: RpcProblem }> };

/** The binding with each method answering its result, and throwing AdmitError for a problem. */
export type AdmitClient = { [M in MethodName]: (...args: Args<M>) => Promise<AdmitMethods[M][1]> };

/** A problem Admit answered (422, 404, 503, 504…): `message` is its detail. */
export class AdmitError extends Error {
  override readonly name = "AdmitError";
  readonly status: number;
  readonly type: string;
  /** Seconds, when a retry can help (HTTP's Retry-After). */
  readonly retryAfter?: number;
  constructor(readonly problem: RpcProblem) {
    super(problem.detail ?? problem.title);
    this.status = problem.status;
    this.type = problem.type;
    this.retryAfter = problem.retry_after;
  }
}

/** Whether a binding's answer is a problem (`{ error }`). */
export function isRpcProblem(x: unknown): x is { error: RpcProblem } {
  return typeof x === "object" && x !== null && "error" in x && typeof (x as { error: { status?: unknown } }).error?.status === "number";
}

/** The binding, each method resolving to its result and throwing AdmitError for a problem. */
export function admit(binding: AdmitBinding): AdmitClient {
  return new Proxy({} as AdmitClient, {
    get(_t, name: string | symbol) {
      // Not a method: `then` (else awaiting the client, or returning it from an async function,
      // would call binding.then and never settle), and symbols (inspection, iteration).
      if (typeof name === "symbol" || name === "then") return undefined;
      return async (...args: unknown[]) => {
        const r = await (binding as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[name](...args);
        if (isRpcProblem(r)) throw new AdmitError(r.error);
        return r;
      };
    },
  });
}
