// The rate-limit routes: one createRoute() per operation, over the schemas of schemas.ts, each named
// as its operationId (given in each createRoute()) except POST /v1/ratelimits/check's, checkRoute: in the
// code checkRateLimit names only the RPC method (the operationId is checkRateLimit all the same).

import { createRoute, z } from "@hono/zod-openapi";
import { problemResponses } from "../core/openapi";
import { fromBody, fromParam, fromQuery, scoped } from "../core/scopes";
import { PageQuery } from "../core/validation";
import {
  CheckBody,
  CheckResult,
  DeniedByList,
  ENFORCED_HEADER,
  Listed,
  NameParam,
  Override,
  OverrideBody,
  OverrideConflict,
  OverrideDeleteQuery,
  OverrideParams,
  Policy,
  PolicyBody,
  QuotaExceeded,
  RefundBody,
  RefundResult,
  RL_HEADERS,
  Unenforced,
  Usage,
  UsageQuery,
} from "./schemas";

export const putRateLimitPolicy = scoped(
  { area: "ratelimits", access: "admin", names: fromParam("name") },
  createRoute({
    method: "put",
    path: "/v1/ratelimits/policies/{name}",
    operationId: "putRateLimitPolicy",
    tags: ["Rate limits"],
    summary: "Create or replace a rate-limit policy",
    description: "Changing `algorithm` or `window_ms` resets the policy's counters; changing `limit` keeps them.",
    request: { params: NameParam, body: { required: true, content: { "application/json": { schema: PolicyBody } } } },
    responses: {
      200: { description: "Replaced", content: { "application/json": { schema: Policy } } },
      201: { description: "Created", content: { "application/json": { schema: Policy } } },
      ...problemResponses(400, 401, 413, 415, 422, 503, 504),
    },
  }),
);

export const getRateLimitPolicy = scoped(
  { area: "ratelimits", access: "read", names: fromParam("name") },
  createRoute({
    method: "get",
    path: "/v1/ratelimits/policies/{name}",
    operationId: "getRateLimitPolicy",
    tags: ["Rate limits"],
    summary: "Get a rate-limit policy",
    request: { params: NameParam },
    responses: {
      200: { description: "The policy", content: { "application/json": { schema: Policy } } },
      ...problemResponses(401, 404, 422, 503),
    },
  }),
);

export const deleteRateLimitPolicy = scoped(
  { area: "ratelimits", access: "admin", names: fromParam("name") },
  createRoute({
    method: "delete",
    path: "/v1/ratelimits/policies/{name}",
    operationId: "deleteRateLimitPolicy",
    tags: ["Rate limits"],
    summary: "Delete a rate-limit policy, its overrides and counters",
    description: "Request-log rows are kept until their `history_ms` runs out.",
    request: { params: NameParam },
    responses: { 204: { description: "Deleted" }, ...problemResponses(401, 404, 422, 503, 504) },
  }),
);

const KeysQuery = PageQuery.extend({
  window: z
    .enum(["current", "1h"])
    .default("current")
    .openapi({ param: { name: "window", in: "query" }, description: "`current`: the current window; `1h`: every window that overlaps the last hour" }),
  order: z
    .enum(["denied", "used"])
    .default("denied")
    .openapi({ param: { name: "order", in: "query" }, description: "`denied`: most rejected calls first; `used`: most units consumed first" }),
});

const KeyUsage = z
  .object({ key: z.string(), admitted: z.number().int(), attempted: z.number().int(), rejected: z.number().int(), consumed: z.number().int() })
  .openapi("RateLimitKeyUsage");

export const listRateLimitPolicyKeys = scoped(
  { area: "ratelimits", access: "read", names: fromParam("name") },
  createRoute({
    method: "get",
    path: "/v1/ratelimits/policies/{name}/keys",
    operationId: "listRateLimitPolicyKeys",
    tags: ["Rate limits"],
    summary: "List the keys of a policy by denials or use",
    description:
      "The keys with the most rejected calls (`order=denied`) or the most consumed units (`order=used`) in the current window or over the windows overlapping the last hour (`window=1h`; for a window longer than an hour, that is the current window), keys with none left out; up to `limit` per page, then follow `next_cursor`. Calls the deny cache answered are included once their isolate's flush has landed (within `METRICS_FLUSH_MS`, 2 s by default). Counts move while you page: a key whose count changed between pages can appear twice or not at all.",
    request: { params: NameParam, query: KeysQuery },
    responses: {
      200: {
        description: "Keys",
        content: {
          "application/json": {
            schema: z
              .object({
                policy: z.string(),
                window: z.enum(["current", "1h"]),
                order: z.enum(["denied", "used"]),
                from: z.string().openapi({ format: "date-time", description: "Start of the first window counted" }),
                window_end: z.string().openapi({ format: "date-time", description: "End of the current window" }),
                items: z.array(KeyUsage),
                next_cursor: z.string().nullable(),
              })
              .openapi("RateLimitKeyList"),
          },
        },
      },
      ...problemResponses(401, 404, 422, 503),
    },
  }),
);

export const getRateLimitPolicyDecisions = scoped(
  { area: "ratelimits", access: "read", names: fromParam("name") },
  createRoute({
    method: "get",
    path: "/v1/ratelimits/policies/{name}/decisions",
    operationId: "getRateLimitPolicyDecisions",
    tags: ["Rate limits"],
    summary: "A policy's decisions per minute",
    description:
      "Decisions of the policy per minute over the last `minutes` minutes (1–1440, default 60), oldest first, minutes without any left out: `allowed`, `denied` (deny-cache answers included), `would_refuse` (shadow mode refused, the call was let through), `unenforced` (fail open) and `unavailable` (fail closed). From the same counts as `/metrics` (`admit_ratelimit_decisions_total`), so a policy past `METRICS_MAX_POLICIES` has none of its own, and a minute is complete once the isolates' flushes have landed.",
    request: {
      params: NameParam,
      query: z.object({
        minutes: z.coerce
          .number()
          .int()
          .min(1)
          .max(1440)
          .default(60)
          .openapi({ param: { name: "minutes", in: "query" }, description: "How many minutes back, 1–1440 (default 60)" }),
      }),
    },
    responses: {
      200: {
        description: "Per minute",
        content: {
          "application/json": {
            schema: z
              .object({
                policy: z.string(),
                items: z.array(
                  z.object({
                    minute: z.string().openapi({ format: "date-time" }),
                    allowed: z.number().int(),
                    denied: z.number().int(),
                    would_refuse: z.number().int().openapi({ description: "Refusals of shadow mode, let through" }),
                    unenforced: z.number().int(),
                    unavailable: z.number().int(),
                  }),
                ),
              })
              .openapi("RateLimitPolicyDecisions"),
          },
        },
      },
      ...problemResponses(401, 404, 422, 503),
    },
  }),
);

export const putRateLimitOverride = scoped(
  { area: "ratelimits", access: "admin", names: fromParam("name") },
  createRoute({
    method: "put",
    path: "/v1/ratelimits/policies/{name}/overrides/{key}",
    operationId: "putRateLimitOverride",
    tags: ["Rate limits"],
    summary: "Give a key its own limit for a period",
    description:
      "Periods of one key never overlap (an `EXCLUDE` constraint): an overlapping period is a 409 listing the periods it overlaps. PUT with exactly the period of an existing override changes its limit (200). The override in force at the moment of a check (database clock) applies.\n\nA key containing `*` is a pattern (`*` matches any run of characters, every other character is literal, e.g. `tenant-42:*`): its limit applies to every key it matches. A key's exact override beats every pattern; between matching patterns the one with the longest literal prefix (the text before its first `*`) wins. A pattern that could tie with another of the policy (the same literal prefix, some key both match, overlapping periods) is a 409 naming the other.",
    request: { params: OverrideParams, body: { required: true, content: { "application/json": { schema: OverrideBody } } } },
    responses: {
      200: { description: "The limit of this exact period was changed", content: { "application/json": { schema: Override } } },
      201: { description: "Created", content: { "application/json": { schema: Override } } },
      409: {
        description: "Overlaps another period of this key, or a pattern that could tie with this one; nothing was written",
        content: { "application/problem+json": { schema: OverrideConflict } },
      },
      ...problemResponses(400, 401, 404, 413, 415, 422, 503, 504),
    },
  }),
);

export const listRateLimitPolicies = scoped(
  { area: "ratelimits", access: "read", list: "name" },
  createRoute({
    method: "get",
    path: "/v1/ratelimits/policies",
    operationId: "listRateLimitPolicies",
    tags: ["Rate limits"],
    summary: "List rate-limit policies",
    description: "Ordered by name; up to `limit` per page, then follow `next_cursor`.",
    request: { query: PageQuery },
    responses: {
      200: {
        description: "Policies",
        content: { "application/json": { schema: z.object({ items: z.array(Policy), next_cursor: z.string().nullable() }).openapi("RateLimitPolicyList") } },
      },
      ...problemResponses(401, 422, 503),
    },
  }),
);

export const listRateLimitPolicyOverrides = scoped(
  { area: "ratelimits", access: "read", names: fromParam("name") },
  createRoute({
    method: "get",
    path: "/v1/ratelimits/policies/{name}/overrides",
    operationId: "listRateLimitPolicyOverrides",
    tags: ["Rate limits"],
    summary: "List every override of a policy",
    description: "The override periods of every key of the policy, by key then `valid_from`; up to `limit` per page, then follow `next_cursor`.",
    request: { params: NameParam, query: PageQuery },
    responses: {
      200: {
        description: "Periods",
        content: {
          "application/json": { schema: z.object({ items: z.array(Override), next_cursor: z.string().nullable() }).openapi("RateLimitOverrideList") },
        },
      },
      ...problemResponses(401, 404, 422, 503),
    },
  }),
);

export const listRateLimitOverrides = scoped(
  { area: "ratelimits", access: "read", names: fromParam("name") },
  createRoute({
    method: "get",
    path: "/v1/ratelimits/policies/{name}/overrides/{key}",
    operationId: "listRateLimitOverrides",
    tags: ["Rate limits"],
    summary: "List a key's override periods",
    description: "The override periods of the key, in order of `valid_from`.",
    request: { params: OverrideParams },
    responses: {
      200: { description: "Periods", content: { "application/json": { schema: z.object({ items: z.array(Override) }) } } },
      ...problemResponses(401, 404, 422, 503),
    },
  }),
);

export const deleteRateLimitOverride = scoped(
  { area: "ratelimits", access: "admin", names: fromParam("name") },
  createRoute({
    method: "delete",
    path: "/v1/ratelimits/policies/{name}/overrides/{key}",
    operationId: "deleteRateLimitOverride",
    tags: ["Rate limits"],
    summary: "Delete a key's override periods",
    description: "All of them, or with `valid_from` only the one starting then.",
    request: { params: OverrideParams, query: OverrideDeleteQuery },
    responses: { 204: { description: "Deleted" }, ...problemResponses(401, 404, 422, 503, 504) },
  }),
);

export const checkRoute = scoped(
  { area: "ratelimits", access: "check", names: fromBody("policy", "policies") },
  createRoute({
    method: "post",
    path: "/v1/ratelimits/check",
    operationId: "checkRateLimit",
    tags: ["Rate limits"],
    summary: "Check (and spend) a key's rate limit",
    description:
      "First the deny/allow lists (this isolate's copy, at most 5 s old; no statement): a deny entry answers 403 `denied-by-list`, an allow entry 200 `reason: \"allow-list\"` — neither counts. Then: 200 when allowed, 429 when denied — with `policy`, both with the same body; with `policies` (1–8, one all-or-nothing statement), the 429 is a `quota-exceeded` problem document naming `violated-policies`. Both carry the IETF `RateLimit-Policy`/`RateLimit` headers (one list item per policy); 429 adds `Retry-After` (seconds, rounded up) unless the cost exceeds a limit. A denied call consumes nothing. When the database does not decide within the policies' `timeout_ms`, a fail-open check answers 200 `allowed: true` with `reason` `timeout`/`unavailable`, `consumed` and `Admit-RateLimit-Enforced: false`; a fail-closed one 503 + Retry-After when nothing was consumed, 504 outcome-unknown + Retry-After when the check was sent and may have consumed a unit.",
    request: { body: { required: true, content: { "application/json": { schema: CheckBody } } } },
    responses: {
      200: {
        description: "Allowed (or not enforced: fail open; or let through by an allow list entry, uncounted)",
        headers: { ...RL_HEADERS, ...ENFORCED_HEADER },
        content: { "application/json": { schema: z.union([CheckResult, Unenforced, Listed]) } },
      },
      403: {
        description:
          "A deny list entry matches the key, the `ip` or the `country`: nothing was counted. 403 and not 429: the entry does not end with a window, so a retry never helps",
        content: { "application/problem+json": { schema: DeniedByList } },
      },
      429: {
        description: "Denied; nothing consumed. `policy`: the result body; `policies`: a quota-exceeded problem",
        headers: { ...RL_HEADERS, "Retry-After": { schema: { type: "string" }, description: "Seconds" } },
        content: { "application/json": { schema: CheckResult }, "application/problem+json": { schema: QuotaExceeded } },
      },
      ...problemResponses(400, 401, 404, 413, 415, 422, 503, 504),
    },
  }),
);

export const refundRateLimit = scoped(
  { area: "ratelimits", access: "decide", names: fromBody("policy") },
  createRoute({
    method: "post",
    path: "/v1/ratelimits/refund",
    operationId: "refundRateLimit",
    tags: ["Rate limits"],
    summary: "Refund units spent in the current window",
    description: "Never below zero; a token bucket never holds more than `limit`. Clears this isolate's cached denial of the key.",
    request: { body: { required: true, content: { "application/json": { schema: RefundBody } } } },
    responses: {
      200: { description: "The state after the refund", content: { "application/json": { schema: RefundResult } } },
      ...problemResponses(400, 401, 404, 413, 415, 422, 503, 504),
    },
  }),
);

export const getRateLimitUsage = scoped(
  { area: "ratelimits", access: "read", names: fromQuery("policy") },
  createRoute({
    method: "get",
    path: "/v1/ratelimits/usage",
    operationId: "getRateLimitUsage",
    tags: ["Rate limits"],
    summary: "Usage of a key: current window and history",
    description:
      "`admitted` calls were served, `attempted` were made, `rejected` refused by the limit — `would_refuse` of them let through by shadow mode; `consumed` is the units spent (admitted costs minus refunds). History (`from`/`to`) is for fixed and sliding windows and goes back `history_ms`.",
    request: { query: UsageQuery },
    responses: {
      200: { description: "Usage", content: { "application/json": { schema: Usage } } },
      ...problemResponses(401, 404, 422, 503),
    },
  }),
);

/** The body of a fail-open check (200, not enforced). */
export type UnenforcedBody = z.infer<typeof Unenforced>;
