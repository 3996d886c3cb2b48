// Rate limits and daily quotas (seed 001): policies, per-key overrides over non-overlapping periods,
// the one-statement check (one policy or several, all-or-nothing), refunds, usage (served vs
// attempted), an opt-in request log, and the `rateLimit()` middleware for other Workers.
// SQL: schema/000010_ratelimits.sql, 000011, 000013, 000015, 000016. Tests: test/ratelimits/.
import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../core/context";
import { validationHook } from "../core/validation";
import { AUTHZ_PATH, authorizeRequest } from "./authz";
import { authzOperations } from "./authz-routes";
import * as handlers from "./handlers";
import * as routes from "./routes";

export { AUTHZ_PATH, AUTHZ_SCOPE, isForwardAuth } from "./authz";
export { budgetFor, isUnenforced, unenforcedResponse, withinBudget } from "./budget";
export { DenyCache, denyCache, denyCacheFor } from "./cache";
export type { PolicyResult, RateLimitDecision, RateLimitResult } from "./decide";
export { checkRateLimit, checkRateLimits, quotaExceeded } from "./decide";
export type { GateAnswer, GateInput } from "./gate";
export { checkOnce, gate, gateBudget, windowGate } from "./gate";
export { rateLimitHeaders } from "./headers";
export type { ConcurrencyOptions, RateLimitBinding, RateLimitOptions } from "./middleware";
export { rateLimit } from "./middleware";
export type { FailMode } from "./sql";

export const ratelimits = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  .openapi(routes.listRateLimitPolicies, handlers.listRateLimitPolicies)
  .openapi(routes.listRateLimitPolicyOverrides, handlers.listRateLimitPolicyOverrides)
  .openapi(routes.putRateLimitPolicy, handlers.putRateLimitPolicy)
  .openapi(routes.getRateLimitPolicy, handlers.getRateLimitPolicy)
  .openapi(routes.deleteRateLimitPolicy, handlers.deleteRateLimitPolicy)
  .openapi(routes.putRateLimitOverride, handlers.putRateLimitOverride)
  .openapi(routes.listRateLimitOverrides, handlers.listRateLimitOverrides)
  .openapi(routes.deleteRateLimitOverride, handlers.deleteRateLimitOverride)
  .openapi(routes.checkRateLimit, handlers.checkRateLimit)
  .openapi(routes.refundRateLimit, handlers.refundRateLimit)
  .openapi(routes.getRateLimitUsage, handlers.getRateLimitUsage)
  .openapi(routes.listRateLimitPolicyKeys, handlers.listRateLimitPolicyKeys)
  .openapi(routes.getRateLimitPolicyDecisions, handlers.getRateLimitPolicyDecisions);
// The forward-auth check answers every method (app.all: a method-matching layer sees it as
// all-methods), on /v1/authz and every path below it (Envoy's path_prefix); the document lists it
// under each method a generated client would send.
ratelimits.all(AUTHZ_PATH, authorizeRequest);
ratelimits.all(`${AUTHZ_PATH}/*`, authorizeRequest);
for (const op of authzOperations()) ratelimits.openAPIRegistry.registerPath(op);

export { RPC } from "./rpc";
