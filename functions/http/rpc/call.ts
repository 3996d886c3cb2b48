// One RPC call: a per-call database handle (the request's time budget, honest 503/504), the method,
// and the handle closed after the answer. Workers RPC keeps only an Error's message (and a built-in
// type's name) across the binding, so a problem is returned as a value, `{ error: problem }`, with
// every member the HTTP problem+json has plus `retry_after` (seconds) when HTTP sends Retry-After;
// client.ts turns it back into a thrown AdmitError on the caller's side. A bug is thrown as is.
// A call given `{ idempotencyKey }` runs at most once for that key (functions/idempotency/once.ts).
import { z } from "@hono/zod-openapi";
import { RequestDb } from "../../core/db";
import type { Bindings } from "../../core/env";
import { ProblemError, type RpcProblem, rpcProblem } from "../../core/errors";
import { valid } from "../../core/validation";
import { type Ending, once, RPC_KEY_FIELD } from "../../idempotency";
import { countRpc } from "../metrics";
import { METHODS, type MethodName } from "./methods";

export type { RpcProblem };

/** What a method of the binding resolves to: its answer, or `{ error }`. */
export type RpcAnswer<M extends MethodName> = Awaited<ReturnType<(typeof METHODS)[M]>> | { error: RpcProblem };

/** A call's options (the second argument of a method). */
export type RpcOptions = {
  /**
   * Runs the call at most once for this key (1–255 characters, kept IDEMPOTENCY_TTL_S, 24 h by
   * default): a retry with the same key and input answers the first call's answer. Not taken by
   * `rateLimitGate`, the middleware's decision for one request.
   */
  idempotencyKey?: string;
};

const Options = z.object({ idempotencyKey: z.string().optional() }).strict().optional();

/** The methods a key may be given to: every one but the middleware's per-request decision. */
const KEYED = (name: MethodName) => name !== "rateLimitGate";

/**
 * What the idempotency store keeps, as over HTTP: not an answer that invites a retry — a rate-limit
 * denial, a busy lease or full semaphore (HTTP: 429/409 with Retry-After), though what deciding it
 * wrote stays (a denied check is counted and logged, as without a key) — nor, with its effect, a
 * fail-open answer given because the database did not decide (`consumed`; HTTP:
 * Admit-RateLimit-Enforced: false).
 */
const ending = (answer: unknown): Ending => {
  const a = answer as { allowed?: unknown; acquired?: unknown };
  if (typeof a === "object" && a !== null && "consumed" in a) return "rollback";
  return a?.allowed === false || a?.acquired === false ? "release" : "store";
};

export async function call<M extends MethodName>(
  env: Bindings,
  ctx: { waitUntil(p: Promise<unknown>): void } | undefined,
  name: M,
  input: Parameters<(typeof METHODS)[M]>[2],
  options?: RpcOptions,
): Promise<RpcAnswer<M>> {
  const db = new RequestDb(env ?? {});
  let answer: unknown;
  try {
    const method = METHODS[name] as (db: RequestDb, env: Bindings, input: unknown) => Promise<Awaited<ReturnType<(typeof METHODS)[M]>>>;
    const run = () => method(db, env ?? {}, input);
    const key = KEYED(name) ? valid(Options, options, RPC_KEY_FIELD.in)?.idempotencyKey : undefined;
    answer = key === undefined ? await run() : await once(db, env ?? {}, { key, call: `Admit.${name}`, input }, run, ending);
    return answer as RpcAnswer<M>;
  } catch (err) {
    if (err instanceof ProblemError) return (answer = { error: rpcProblem(err) }) as RpcAnswer<M>;
    console.error(`Admit RPC ${name} failed`, err);
    throw err;
  } finally {
    const closing = db.close();
    if (ctx) ctx.waitUntil(closing);
    // The decision's counts (and a rate-limit check's, counted by the capability) go out after the answer.
    countRpc(env, ctx, name, answer);
  }
}
