// Rate limits and daily quotas: policies, per-key overrides over non-overlapping periods, the
// one-statement check (one policy or several, all-or-nothing), refunds, usage (served vs attempted),
// deny and allow lists (lists/), an opt-in request log, the forward-auth check for gateways (/v1/authz) and the `rateLimit()`
// middleware for other Workers. Every entrance decides a check through check() (check.ts); the
// path is drawn in docs/ratelimits.md ("Request path"). SQL: schema/current/ratelimits.sql.
// Tests: test/ratelimits/.
import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../core/context";
import { validationHook } from "../core/validation";
import { AUTHZ_PATH, authorizeRequest } from "./authz";
import { authzOperations } from "./authz-routes";
import { handleResetUsage, resetRateLimitUsage } from "./controls/reset";
import * as handlers from "./handlers";
import * as lists from "./lists/routes";
import * as routes from "./routes";

export type { GateAnswer, GateInput } from "./admission";
export { admissionBudget, admitRequest } from "./admission";
export { AUTHZ_PATH, AUTHZ_SCOPE, isForwardAuth } from "./authz";
export { budgetFor, isUnenforced, withinBudget } from "./budget";
export { DenyCache, denyCache, denyCacheFor } from "./cache";
export type { CheckContext, Checked, CheckRequest } from "./check";
export { check, quotaExceeded } from "./check";
export type { PolicyResult, RateLimitDecision, RateLimitResult } from "./decide";
export { decideMany, decideOne } from "./decide";
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
  .openapi(routes.checkRoute, handlers.handleCheck)
  .openapi(routes.refundRateLimit, handlers.refundRateLimit)
  .openapi(routes.getRateLimitUsage, handlers.getRateLimitUsage)
  .openapi(resetRateLimitUsage, handleResetUsage)
  .openapi(lists.putRateLimitListEntry, lists.handlePutListEntry)
  .openapi(lists.listRateLimitListEntries, lists.handleListEntries)
  .openapi(lists.deleteRateLimitListEntry, lists.handleDeleteListEntry)
  .openapi(routes.listRateLimitPolicyKeys, handlers.listRateLimitPolicyKeys)
  .openapi(routes.getRateLimitPolicyDecisions, handlers.getRateLimitPolicyDecisions);
// The forward-auth check answers every method (app.all: a method-matching layer sees it as
// all-methods), on /v1/authz and every path below it (Envoy's path_prefix); the document lists it
// under each method a generated client would send.
ratelimits.all(AUTHZ_PATH, authorizeRequest);
ratelimits.all(`${AUTHZ_PATH}/*`, authorizeRequest);
for (const op of authzOperations()) ratelimits.openAPIRegistry.registerPath(op);

export { RATELIMIT_EXAMPLES } from "./examples";
export { RPC } from "./rpc";
