// The Hono environment of every route: the bindings and the request's database handle.
import type { Caller } from "./apikeys";
import type { RequestDb } from "./db";
import type { Bindings } from "./env";

export interface AppEnv {
  Bindings: Bindings;
  Variables: { db: RequestDb; caller: Caller };
}
