// RPC input is validated by the HTTP routes' own zod schemas (a route's `request.params` and JSON
// body), through the app's validation hook: the same rules and the same 422 `errors` as over HTTP.
import type { z } from "@hono/zod-openapi";
import { validationHook } from "../core/validation";

/** `schema`'s output for `value`, or the 422 ProblemError the HTTP route would answer. */
export function valid<S extends z.ZodType>(schema: S, value: unknown, target: "param" | "json" | "options"): z.output<S> {
  const r = schema.safeParse(value);
  if (!r.success) validationHook({ success: false, target, error: r.error }, undefined as never);
  return r.data as z.output<S>;
}

/** A route's JSON body schema. */
export function bodyOf<S extends z.ZodType>(route: { request: { body: { content: { "application/json": { schema: S } } } } }): S {
  return route.request.body.content["application/json"].schema;
}
