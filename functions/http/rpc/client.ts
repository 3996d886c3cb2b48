// The caller's side of the binding, for a Worker that binds to Admit (no `cloudflare:workers` import,
// no database code): the binding's type, and admit(), which turns `{ error }` answers back into a
// thrown AdmitError carrying the problem's status, type and Retry-After.
import type { RpcAnswer, RpcOptions, RpcProblem } from "./call";
import type { METHODS, MethodName } from "./methods";

export type { RpcOptions, RpcProblem } from "./call";

/** A method's arguments: its input, and (all but rateLimitGate) the call's options. */
type Args<M extends MethodName> = M extends "rateLimitGate"
  ? [input: Parameters<(typeof METHODS)[M]>[2]]
  : [input: Parameters<(typeof METHODS)[M]>[2], options?: RpcOptions];

/** The `Admit` entrypoint as a binding (`env.ADMIT`) exposes it: each method answers its result or `{ error }`. */
export type AdmitBinding = { [M in MethodName]: (...args: Args<M>) => Promise<RpcAnswer<M>> };

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

export function isProblem(x: unknown): x is { error: RpcProblem } {
  return typeof x === "object" && x !== null && "error" in x && typeof (x as { error: { status?: unknown } }).error?.status === "number";
}

/** The binding with each method answering its result, and throwing AdmitError for a problem. */
export type AdmitClient = { [M in MethodName]: (...args: Args<M>) => Promise<Exclude<RpcAnswer<M>, { error: RpcProblem }>> };

export function admit(binding: AdmitBinding): AdmitClient {
  return new Proxy({} as AdmitClient, {
    get(_t, name: string | symbol) {
      // Not a method: `then` (else awaiting the client, or returning it from an async function,
      // would call binding.then and never settle), and symbols (inspection, iteration).
      if (typeof name === "symbol" || name === "then") return undefined;
      return async (...args: unknown[]) => {
        const r = await (binding as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[name](...args);
        if (isProblem(r)) throw new AdmitError(r.error);
        return r;
      };
    },
  });
}
