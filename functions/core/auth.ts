// Bearer-token guard for /v1, with a constant-time comparison.
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./context";
import { problem } from "./errors";

const CHALLENGE = { "WWW-Authenticate": 'Bearer realm="admit"' };

export function requireToken(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const expected = c.env?.API_TOKEN;
    if (!expected) {
      throw problem(
        "not-configured",
        "API_TOKEN is not set: `wrangler secret put API_TOKEN` (production) or run `npm start` (local).",
        {},
        { "Retry-After": "30" },
      );
    }
    const header = c.req.header("Authorization") ?? "";
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
    if (!match) {
      throw problem("unauthorized", "Send `Authorization: Bearer <API_TOKEN>`.", {}, CHALLENGE);
    }
    if (!tokenMatches(match[1], expected)) {
      throw problem("unauthorized", "The bearer token is not valid.", {}, { "WWW-Authenticate": 'Bearer realm="admit", error="invalid_token"' });
    }
    await next();
  };
}

/**
 * Whether `given` equals `expected`, in time that depends only on the expected token's length, never
 * on where the given one first differs. hono's `timingSafeEqual` hashes both sides with SHA-256 first
 * (two `crypto.subtle.digest` calls per request): profiled on the rate-limit check route, that was a
 * third of the route's own CPU. The length of the expected token is all this can reveal.
 */
export function tokenMatches(given: string, expected: string): boolean {
  let diff = given.length ^ expected.length;
  for (let i = 0; i < expected.length; i++) diff |= expected.charCodeAt(i) ^ (i < given.length ? given.charCodeAt(i) : 0);
  return diff === 0;
}
