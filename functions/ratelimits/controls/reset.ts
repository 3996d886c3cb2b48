// The rate limits' operator controls: resetting a key's usage (DELETE /v1/ratelimits/usage). Each
// clears what this isolate's deny cache holds of the key at once; other isolates stop believing
// their cached denials within DENY_BELIEF_MS (cache.ts).
import { createRoute, type RouteHandler, z } from "@hono/zod-openapi";
import { auditEntry } from "../../core/audit";
import { visibleNames } from "../../core/auth";
import type { AppEnv } from "../../core/context";
import { problemResponses } from "../../core/openapi";
import { fromQuery, scoped } from "../../core/scopes";
import { name } from "../../core/validation";
import { denyCache } from "../cache";
import { noPolicy } from "../check";
import { PolicyName } from "../schemas";
import * as sql from "./sql";

const ResetQuery = z.object({
  policy: PolicyName.optional().openapi({ param: { name: "policy", in: "query" }, description: "The policy; omitted: every policy the caller may touch" }),
  key: name(500).openapi({ param: { name: "key", in: "query" } }),
});

export const ResetResult = z
  .object({
    key: z.string(),
    policies: z.array(z.string()).openapi({ description: "The policies whose counters of the key were reset (none: the key had used nothing)" }),
    at: z.string().openapi({ format: "date-time", description: "The database's clock at the reset" }),
  })
  .openapi("RateLimitReset");

export const resetRateLimitUsage = scoped(
  { area: "ratelimits", access: "admin", names: fromQuery("policy") },
  createRoute({
    method: "delete",
    path: "/v1/ratelimits/usage",
    operationId: "resetRateLimitUsage",
    tags: ["Rate limits"],
    summary: "Reset a key's usage: a fresh window",
    description:
      "Sets the units the key spent in the current window to none (a sliding window's previous window too; a token bucket is refilled), in `policy` or, without it, in every policy the caller may touch. The window's admitted/attempted/rejected counts stay. Audited. Ordered with the checks of the key under its counter rows' locks: checks racing a reset admit at most the old window's and one fresh window's units. This isolate forgets its cached denials of the key at once; every other isolate within 5 s.",
    request: { query: ResetQuery },
    responses: {
      200: { description: "Reset", content: { "application/json": { schema: ResetResult } } },
      ...problemResponses(401, 404, 422, 503, 504),
    },
  }),
);

export const handleResetUsage: RouteHandler<typeof resetRateLimitUsage, AppEnv> = async (c) => {
  const q = c.req.valid("query");
  const policy = q.policy ?? null;
  const audit = auditEntry(c.var.caller, c.env ?? {}, "ratelimits.usage.reset", policy ?? "*", { key: q.key, policy });
  const r = await sql.resetUsage(c.var.db, policy, q.key, visibleNames(c), audit);
  if (policy !== null) denyCache.forget(policy, q.key);
  for (const p of r?.policies ?? []) denyCache.forget(p, q.key);
  if (!r) throw noPolicy(policy ?? "");
  return c.json(r, 200);
};
