// The binding's type as the entrypoint defines it: each method of METHODS with its input and answer,
// derived from the code, so it is the truth the published @admit/hono types (packages/hono/src/
// binding.ts: AdmitBinding, admit(), AdmitError) are checked against (test/packages/hono.binding.test.ts).
// Types only: nothing here runs in a caller.
import type { RpcAnswer, RpcOptions } from "./call";
import type { METHODS, MethodName } from "./methods";

export type { RpcOptions, RpcProblem } from "./call";

/** A method's arguments: its input, and (all but rateLimitGate) the call's options. */
type Args<M extends MethodName> = M extends "rateLimitGate"
  ? [input: Parameters<(typeof METHODS)[M]>[2]]
  : [input: Parameters<(typeof METHODS)[M]>[2], options?: RpcOptions];

/** The `Admit` entrypoint as a binding (`env.ADMIT`) exposes it: each method answers its result or `{ error }`. */
export type AdmitBinding = { [M in MethodName]: (...args: Args<M>) => Promise<RpcAnswer<M>> };
