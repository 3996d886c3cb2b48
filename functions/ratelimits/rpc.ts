// Rate limits' methods of Admit's RPC entrypoint (checkRateLimit and rateLimitGate; composed in
// functions/http/rpc/): functions of (database handle, bindings, input), so they run in Node as in
// workerd. Input is validated with the HTTP routes' own schemas (the same rules and 422 `errors`);
// the work is the same as the route's and the middleware's: check() (check.ts) and admitRequest()
// (admission.ts), with the handlers' not-found problem. A refusal is a value (`allowed: false`,
// `pass: false`); what the route answers with any other problem (422, 404, 503, 504) is thrown as a
// ProblemError, which the entrypoint returns as `{ error }`. docs/rpc.md documents them.
import type { z } from "@hono/zod-openapi";
import type { RequestDb as Db } from "../core/db";
import type { Bindings } from "../core/env";
import { bodyOf, valid } from "../core/validation";
import { admissionBudget, admitRequest, type GateAnswer, type GateInput, validGateInput } from "./admission";
import { denyCacheFor } from "./cache";
import { type CheckRequest, check, noPolicy } from "./check";
import type { RateLimitResult } from "./decide";
import * as routes from "./routes";
import type { Unenforced } from "./schemas";

/** The body POST /v1/ratelimits/check answers: a decision (allowed or not), or the fail-open answer. */
export type CheckAnswer = RateLimitResult | z.infer<typeof Unenforced>;

/** The check of POST /v1/ratelimits/check over the binding: its result, or the fail-open answer. */
export async function checkRateLimit(db: Db, env: Bindings, input: CheckRequest): Promise<CheckAnswer> {
  const b = valid(bodyOf(routes.checkRoute), input, "json");
  const r = await check(db, b, { cache: denyCacheFor(env), env, via: "rpc" });
  if (r.kind === "failOpen") return r.body as unknown as CheckAnswer;
  if (r.kind === "failClosed" || r.kind === "refused") throw r.refusal;
  if (r.kind === "missing") throw noPolicy(r.missing[0]);
  if (r.kind === "listed") return r.body as unknown as CheckAnswer;
  return r.decision.result;
}

/**
 * The rateLimit() middleware's decision, for a Worker calling over the binding
 * (functions/ratelimits/admission.ts): window limits and/or a concurrency limit. A `permit` in the
 * answer is given back with `releasePermit` after the caller's response.
 */
export async function rateLimitGate(db: Db, env: Bindings, input: GateInput): Promise<GateAnswer> {
  const gateIn = validGateInput(input);
  return admitRequest(db, gateIn, { cache: denyCacheFor(env), env, via: "rpc", budget: admissionBudget(db, gateIn) });
}

/** This capability's methods of the entrypoint. */
export const RPC = { checkRateLimit, rateLimitGate };
