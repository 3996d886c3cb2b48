// Admit's RPC entrypoint: another Worker binds to it with a Service Binding
// (`services = [{ binding = "ADMIT", service = "admit", entrypoint = "Admit" }]`) and calls one
// method per decision, no public hop and no bearer token (the binding is the authority).
// Each method: the HTTP route's validation, the same SQL and decision, a refusal as a value, a
// problem as `{ error }` (call.ts); an optional `{ idempotencyKey }` runs a call at most once.
// docs/rpc.md documents them. Loaded by functions/worker.ts only:
// `cloudflare:workers` exists in workerd, not in Node.
import { WorkerEntrypoint } from "cloudflare:workers";
import type { Bindings } from "../../core/env";
import { call, type RpcOptions } from "./call";
import type { METHODS } from "./methods";

type In<M extends keyof typeof METHODS> = Parameters<(typeof METHODS)[M]>[2];

export class Admit extends WorkerEntrypoint<Bindings> {
  checkRateLimit(input: In<"checkRateLimit">, options?: RpcOptions) {
    return call(this.env, this.ctx, "checkRateLimit", input, options);
  }
  rateLimitGate(input: In<"rateLimitGate">) {
    return call(this.env, this.ctx, "rateLimitGate", input);
  }
  reserve(input: In<"reserve">, options?: RpcOptions) {
    return call(this.env, this.ctx, "reserve", input, options);
  }
  cancelReservation(input: In<"cancelReservation">, options?: RpcOptions) {
    return call(this.env, this.ctx, "cancelReservation", input, options);
  }
  acquireLease(input: In<"acquireLease">, options?: RpcOptions) {
    return call(this.env, this.ctx, "acquireLease", input, options);
  }
  renewLease(input: In<"renewLease">, options?: RpcOptions) {
    return call(this.env, this.ctx, "renewLease", input, options);
  }
  releaseLease(input: In<"releaseLease">, options?: RpcOptions) {
    return call(this.env, this.ctx, "releaseLease", input, options);
  }
  acquirePermit(input: In<"acquirePermit">, options?: RpcOptions) {
    return call(this.env, this.ctx, "acquirePermit", input, options);
  }
  renewPermit(input: In<"renewPermit">, options?: RpcOptions) {
    return call(this.env, this.ctx, "renewPermit", input, options);
  }
  releasePermit(input: In<"releasePermit">, options?: RpcOptions) {
    return call(this.env, this.ctx, "releasePermit", input, options);
  }
  book(input: In<"book">, options?: RpcOptions) {
    return call(this.env, this.ctx, "book", input, options);
  }
  confirmBooking(input: In<"confirmBooking">, options?: RpcOptions) {
    return call(this.env, this.ctx, "confirmBooking", input, options);
  }
  cancelBooking(input: In<"cancelBooking">, options?: RpcOptions) {
    return call(this.env, this.ctx, "cancelBooking", input, options);
  }
  claimWebhookEvents(input: In<"claimWebhookEvents">, options?: RpcOptions) {
    return call(this.env, this.ctx, "claimWebhookEvents", input, options);
  }
  ackWebhookEvent(input: In<"ackWebhookEvent">, options?: RpcOptions) {
    return call(this.env, this.ctx, "ackWebhookEvent", input, options);
  }
}
