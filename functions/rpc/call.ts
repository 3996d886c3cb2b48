// One RPC call: a per-call database handle (the request's time budget, honest 503/504), the method,
// and the handle closed after the answer. Workers RPC keeps only an Error's message (and a built-in
// type's name) across the binding, so a problem is returned as a value, `{ error: problem }`, with
// every member the HTTP problem+json has plus `retry_after` (seconds) when HTTP sends Retry-After;
// client.ts turns it back into a thrown AdmitError on the caller's side. A bug is thrown as is.
import { RequestDb } from "../core/db";
import type { Bindings } from "../core/env";
import { type Problem, ProblemError } from "../core/errors";
import { METHODS, type MethodName } from "./methods";

/** A problem as RPC answers it: the problem+json body, plus Retry-After in seconds when HTTP would send it. */
export type RpcProblem = Problem & { retry_after?: number };

/** What a method of the binding resolves to: its answer, or `{ error }`. */
export type RpcAnswer<M extends MethodName> = Awaited<ReturnType<(typeof METHODS)[M]>> | { error: RpcProblem };

export function rpcProblem(err: ProblemError): RpcProblem {
  const p: RpcProblem = { ...err.problem };
  const ra = Number(err.headers["Retry-After"]);
  if (Number.isFinite(ra) && ra > 0) p.retry_after = ra;
  return p;
}

export async function call<M extends MethodName>(
  env: Bindings,
  ctx: { waitUntil(p: Promise<unknown>): void } | undefined,
  name: M,
  input: Parameters<(typeof METHODS)[M]>[2],
): Promise<RpcAnswer<M>> {
  const db = new RequestDb(env ?? {});
  try {
    const method = METHODS[name] as (db: RequestDb, env: Bindings, input: unknown) => Promise<Awaited<ReturnType<(typeof METHODS)[M]>>>;
    return await method(db, env ?? {}, input);
  } catch (err) {
    if (err instanceof ProblemError) return { error: rpcProblem(err) };
    console.error(`Admit RPC ${name} failed`, err);
    throw err;
  } finally {
    const closing = db.close();
    if (ctx) ctx.waitUntil(closing);
  }
}
