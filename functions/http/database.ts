// The request's database handle as Hono middleware: `c.var.db`, closed after the response.
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../core/context";
import { RequestDb } from "../core/db";

/** Gives each request `c.var.db` and closes it after the response via `executionCtx.waitUntil`. */
export function database(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const db = new RequestDb(c.env ?? {});
    c.set("db", db);
    try {
      await next();
    } finally {
      const closing = db.close();
      try {
        c.executionCtx.waitUntil(closing);
      } catch {
        // No execution context (a plain app.request in a script): let the promise run on its own.
      }
    }
  };
}
