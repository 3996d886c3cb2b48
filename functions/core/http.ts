// HTTP pieces every capability may use: header names, Retry-After, route matching.
import type { Context } from "hono";
import { matchedRoutes } from "hono/route";

/** The header a client sends to make a write idempotent. */
export const IDEMPOTENCY_HEADER = "Idempotency-Key";
/**
 * What a header value of the document may hold (its `pattern`): visible ASCII, spaces only inside.
 * The runtime itself answers a request with a NUL, CR or LF in a header value (a `text/plain` 400,
 * before Admit runs), HTTP strips the spaces at either end, and fetch() will not send a character
 * over U+00FF: a generated client keeping to this never sends a value that arrives changed or not at all.
 */
export const HEADER_VALUE_PATTERN = "^[\\x21-\\x7E]([\\x20-\\x7E]*[\\x21-\\x7E])?$";
const HEADER_VALUE = new RegExp(HEADER_VALUE_PATTERN);

/**
 * Why `value` is not a header value HEADER_VALUE_PATTERN allows, or undefined: a header the document
 * constrains with that pattern is checked with this, so the server refuses exactly what it refuses.
 */
export function headerValueProblem(value: string): string | undefined {
  return HEADER_VALUE.test(value) ? undefined : "must be visible ASCII (0x21–0x7E), with spaces only between characters";
}

/** Set on an answer that is a replay of a stored one (an idempotent retry, a duplicate webhook delivery). */
export const REPLAYED_HEADER = "Idempotent-Replayed";
/**
 * Set on an answer a fail mode gave because the database did not decide within the budget (a
 * rate-limit check's fail-open 200): not the request's outcome, so the idempotency store skips it.
 */
export const NOT_ENFORCED_HEADER = "Admit-RateLimit-Enforced";

/** A route (not only middleware, which is registered for "ALL" methods) matches this request's method and path. */
export function hasRoute(c: Context): boolean {
  return matchedRoutes(c).some((r) => r.method !== "ALL");
}

/** `Retry-After` in whole seconds for a wait of `ms`, at least 1. */
export function retryAfter(ms: number): Record<string, string> {
  return { "Retry-After": String(Math.max(1, Math.ceil(ms / 1000))) };
}

/** The request's execution context (its waitUntil), or undefined where there is none (a plain app.request in a script). */
export function executionCtxOf(c: Context): { waitUntil(p: Promise<unknown>): void } | undefined {
  try {
    return c.executionCtx;
  } catch {
    return undefined;
  }
}
