// Bearer-token guard for /v1: constant-time comparison (hono's timingSafeEqual hashes both sides first).
import type { MiddlewareHandler } from "hono";
import { timingSafeEqual } from "hono/utils/buffer";
import type { AppEnv } from "./env";
import { problem } from "./errors";

const CHALLENGE = { "WWW-Authenticate": 'Bearer realm="admit"' };

export function requireToken(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const expected = c.env?.API_TOKEN;
    if (!expected) {
      throw problem(503, "not-configured", "API token not configured", "API_TOKEN is not set: `wrangler secret put API_TOKEN` (production) or run `npm start` (local).", {}, { "Retry-After": "30" });
    }
    const header = c.req.header("Authorization") ?? "";
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
    if (!match) {
      throw problem(401, "unauthorized", "Unauthorized", "Send `Authorization: Bearer <API_TOKEN>`.", {}, CHALLENGE);
    }
    if (!(await timingSafeEqual(match[1], expected))) {
      throw problem(401, "unauthorized", "Unauthorized", "The bearer token is not valid.", {}, { "WWW-Authenticate": 'Bearer realm="admit", error="invalid_token"' });
    }
    await next();
  };
}
