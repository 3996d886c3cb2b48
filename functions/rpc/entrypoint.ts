// Admit's RPC entrypoint: another Worker binds to it with a Service Binding
// (`services = [{ binding = "ADMIT", service = "admit", entrypoint = "Admit" }]`) and calls one
// method per decision, no public hop and no bearer token (the binding is the authority).
// Each method: the HTTP route's validation, the same SQL and decision, a refusal as a value, a
// problem as `{ error }` (call.ts). docs/rpc.md documents them. Loaded by functions/worker.ts only:
// `cloudflare:workers` exists in workerd, not in Node.
import { WorkerEntrypoint } from "cloudflare:workers";
import type { Bindings } from "../core/env";
import { call } from "./call";
import type { METHODS } from "./methods";

type In<M extends keyof typeof METHODS> = Parameters<(typeof METHODS)[M]>[2];

export class Admit extends WorkerEntrypoint<Bindings> {
  checkRateLimit(input: In<"checkRateLimit">) {
    return call(this.env, this.ctx, "checkRateLimit", input);
  }
  rateLimitGate(input: In<"rateLimitGate">) {
    return call(this.env, this.ctx, "rateLimitGate", input);
  }
  reserve(input: In<"reserve">) {
    return call(this.env, this.ctx, "reserve", input);
  }
  cancelReservation(input: In<"cancelReservation">) {
    return call(this.env, this.ctx, "cancelReservation", input);
  }
  acquireLease(input: In<"acquireLease">) {
    return call(this.env, this.ctx, "acquireLease", input);
  }
  renewLease(input: In<"renewLease">) {
    return call(this.env, this.ctx, "renewLease", input);
  }
  releaseLease(input: In<"releaseLease">) {
    return call(this.env, this.ctx, "releaseLease", input);
  }
  acquirePermit(input: In<"acquirePermit">) {
    return call(this.env, this.ctx, "acquirePermit", input);
  }
  renewPermit(input: In<"renewPermit">) {
    return call(this.env, this.ctx, "renewPermit", input);
  }
  releasePermit(input: In<"releasePermit">) {
    return call(this.env, this.ctx, "releasePermit", input);
  }
  book(input: In<"book">) {
    return call(this.env, this.ctx, "book", input);
  }
  confirmBooking(input: In<"confirmBooking">) {
    return call(this.env, this.ctx, "confirmBooking", input);
  }
  cancelBooking(input: In<"cancelBooking">) {
    return call(this.env, this.ctx, "cancelBooking", input);
  }
  claimWebhookEvents(input: In<"claimWebhookEvents">) {
    return call(this.env, this.ctx, "claimWebhookEvents", input);
  }
  ackWebhookEvent(input: In<"ackWebhookEvent">) {
    return call(this.env, this.ctx, "ackWebhookEvent", input);
  }
}
