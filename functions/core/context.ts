// The Hono environment of every route: the bindings and the request's database handle.
import type { Caller } from "./apikeys";
import type { RequestDb } from "./db";
import type { Bindings } from "./env";

/** Why a request's credential was refused (401/403 of the bearer guard), for admit_auth_failures_total. */
export type AuthFailure = "missing" | "invalid" | "not_configured" | "scope" | "name";

export interface AppEnv {
  Bindings: Bindings;
  Variables: { db: RequestDb; caller: Caller; authFailure: AuthFailure };
}
