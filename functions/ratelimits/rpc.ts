// Rate limits' methods of Admit's RPC entrypoint (checkRateLimit and rateLimitGate; composed in
// functions/http/rpc/): functions of (database handle, bindings, input), so they run in Node as in
// workerd. Input is validated with the HTTP routes' own schemas (the same rules and 422 `errors`);
// the work is this folder's sql.ts and gate.ts (checkOnce, gate: what the check route and the
// middleware decide), as in the handlers, whose not-found problems it shares. A refusal is a value
// (`allowed: false`, `pass: false`); what the route answers with any other problem (422, 404, 503,
// 504) is thrown as a ProblemError, which the entrypoint returns as `{ error }`. docs/rpc.md
// documents them.
import type { RequestDb as Db } from "../core/db";
import type { Bindings } from "../core/env";
import { bodyOf, valid } from "../core/validation";
import { denyCacheFor } from "./cache";
import type { RateLimitResult } from "./decide";
import { checkOrThrow, type GateAnswer, type GateInput, gate, gateBudget, validGateInput } from "./gate";
import * as routes from "./routes";

export type CheckInput = { policy?: string; policies?: string[]; key: string; cost?: number; info?: Record<string, unknown> };
/** The body POST /v1/ratelimits/check answers: a decision (allowed or not), or the fail-open answer. */
export type CheckAnswer = RateLimitResult | (Omit<RateLimitResult, "limit" | "remaining" | "reset_ms" | "reason"> & Record<string, unknown>);

export async function checkRateLimit(db: Db, env: Bindings, input: CheckInput): Promise<CheckAnswer> {
  const b = valid(bodyOf(routes.checkRateLimit), input, "json");
  const r = await checkOrThrow(db, b, denyCacheFor(env), { env, via: "rpc" });
  return "failOpen" in r ? (r.failOpen as CheckAnswer) : r.decision.result;
}

/**
 * The rateLimit() middleware's decision, for a Worker calling over the binding
 * (functions/ratelimits/gate.ts): window limits and/or a concurrency limit. A `permit` in the
 * answer is given back with `releasePermit` after the caller's response.
 */
export async function rateLimitGate(db: Db, env: Bindings, input: GateInput): Promise<GateAnswer> {
  const gateIn = validGateInput(input);
  return gate(db, gateIn, denyCacheFor(env), gateBudget(db, gateIn), { env, via: "rpc" });
}

/** This capability's methods of the entrypoint. */
export const RPC = { checkRateLimit, rateLimitGate };
