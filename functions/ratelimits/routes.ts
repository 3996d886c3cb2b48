// The rate-limit routes: zod schemas and one createRoute() per operation (named as its operationId).

import { createRoute, z } from "@hono/zod-openapi";
import { ProblemSchema, problemResponses } from "../core/openapi";
import { fromBody, fromParam, fromQuery, scoped } from "../core/scopes";
import { DOT_SEGMENT_MESSAGE, isLater, jsonObject, name, PageQuery, Rfc3339 } from "../core/validation";
import { DEFAULT_TIMEOUT_MS } from "./cache";
import { NOT_ENFORCED_HEADER } from "./headers";

const MAX_WINDOW_MS = 366 * 86_400_000;
const MAX_INFO_BYTES = 2048;

/** A policy's name, and a concurrency limit's (both are sent in RateLimit headers). */
export const PolicyName = z
  .string()
  .regex(/^[A-Za-z0-9._:-]{1,100}$/, "must be 1–100 characters of A–Z a–z 0–9 . _ : - (it is sent as a structured-field string in RateLimit headers)")
  .refine((s) => s !== "." && s !== "..", DOT_SEGMENT_MESSAGE)
  .openapi({ pattern: "^(?!\\.\\.?$)[A-Za-z0-9._:-]{1,100}$" });
const Key = name(500);
const Cost = z.number().int().min(0).max(1_000_000_000);

const Algorithm = z.enum(["fixed_window", "sliding_window", "token_bucket"]);

const Policy = z
  .object({
    name: z.string(),
    algorithm: Algorithm,
    limit: z.number().int(),
    window_ms: z.number().int(),
    log: z.boolean(),
    history_ms: z.number().int(),
    timeout_ms: z.number().int(),
    on_unavailable: z.enum(["deny", "allow"]),
    created_at: z.string().openapi({ format: "date-time" }),
    updated_at: z.string().openapi({ format: "date-time" }),
  })
  .openapi("RateLimitPolicy");

const PolicyBody = z
  .object({
    algorithm: Algorithm.openapi({
      description: "`fixed_window` (exact), `sliding_window` (weighted previous window, approximate), `token_bucket` (GCRA, exact)",
    }),
    limit: z
      .number()
      .int()
      .min(1)
      .max(1_000_000_000)
      .openapi({ example: 100, description: "Units per window (token bucket: capacity, refilled at `limit` per `window_ms`)" }),
    window_ms: z.number().int().min(1).max(MAX_WINDOW_MS).openapi({ example: 60_000, description: "1 ms to 366 days" }),
    log: z.boolean().default(false).openapi({ description: "Write one request-log row per check (same statement, no extra round trip)" }),
    history_ms: z
      .number()
      .int()
      .min(0)
      .max(MAX_WINDOW_MS)
      .default(7 * 86_400_000)
      .openapi({ description: "How long finished windows (usage history) and log rows are kept; default 7 days" }),
    timeout_ms: z.number().int().min(1).max(60_000).default(DEFAULT_TIMEOUT_MS).openapi({
      description:
        "The longest a check on this policy may take (1–60000 ms, default 5000, the Worker's default request budget; never more than DB_BUDGET_MS). Past it the check answers per `on_unavailable`.",
    }),
    on_unavailable: z.enum(["deny", "allow"]).default("deny").openapi({
      description:
        'When the database does not answer within `timeout_ms` or cannot be reached: `deny` (fail closed: 503 + Retry-After) or `allow` (fail open: 200, `allowed: true`, `reason: "timeout"` or `"unavailable"`, header `Admit-RateLimit-Enforced: false`). With several policies, any `deny` decides.',
    }),
  })
  .openapi("RateLimitPolicyInput");

const Override = z
  .object({ policy: z.string(), key: z.string(), limit: z.number().int(), valid_from: z.string(), valid_to: z.string().nullable() })
  .openapi("RateLimitOverride");

const OverrideBody = z
  .object({
    limit: z.number().int().min(1).max(1_000_000_000),
    valid_from: Rfc3339.openapi({ description: "Inclusive" }),
    valid_to: Rfc3339.nullable().optional().openapi({ description: "Exclusive; omitted or null = open-ended" }),
  })
  .refine((b) => !b.valid_to || isLater(b.valid_to, b.valid_from), {
    path: ["valid_to"],
    message: "valid_to must be after valid_from (periods are half-open [valid_from, valid_to))",
  })
  .openapi("RateLimitOverrideInput");

const Info = jsonObject(MAX_INFO_BYTES).optional().openapi({ description: "Small JSON object stored in the request log (policies with `log: true`)" });

const CheckBody = z
  .object({
    policy: PolicyName.optional().openapi({ example: "api", description: "One policy. Give exactly one of `policy` and `policies`" }),
    policies: z
      .array(PolicyName)
      .min(1)
      .max(8)
      .refine((ps) => new Set(ps).size === ps.length, "policy names must be distinct")
      .optional()
      .openapi({
        example: ["burst", "daily"],
        description:
          "1–8 distinct policies checked at once, all-or-nothing: admitted only if every one admits; when any denies, none consumes (each still counts the attempt)",
      }),
    key: Key.openapi({ example: "customer-42" }),
    cost: Cost.default(1).openapi({ description: "Units this call takes (default 1). 0 = peek: consumes nothing; allowed means one unit fits" }),
    info: Info,
  })
  .refine((b) => (b.policy === undefined) !== (b.policies === undefined), { path: ["policies"], message: "give exactly one of policy and policies" })
  .openapi("RateLimitCheck");

const RefundBody = z.object({ policy: PolicyName, key: Key, cost: Cost.min(1) }).openapi("RateLimitRefund");

const Reason = z.enum(["limit", "cache", "timeout", "unavailable", "not-checked"]).openapi({
  description:
    "`limit`: the database decided; `cache`: this isolate's deny cache refused without asking; `timeout`/`unavailable`: the database did not decide within `timeout_ms` and the fail mode answered; `not-checked`: a policy a cached answer did not need",
});

const PolicyCheckResult = z
  .object({
    allowed: z.boolean().optional().openapi({ description: "This policy's own verdict (absent when not checked)" }),
    policy: z.string(),
    key: z.string(),
    limit: z.number().int().optional(),
    remaining: z.number().int().optional(),
    reset_ms: z.number().int().optional(),
    retry_after_ms: z.number().int().optional(),
    reason: Reason,
  })
  .openapi("RateLimitPolicyResult");

export const CheckResult = z
  .object({
    allowed: z.boolean(),
    policy: z.string().openapi({
      description: "With `policies`: the most restrictive one (denied: the refusing policy with the longest wait; admitted: the fewest units left)",
    }),
    key: z.string(),
    limit: z.number().int(),
    remaining: z.number().int(),
    reset_ms: z.number().int(),
    retry_after_ms: z.number().int().optional(),
    reason: Reason,
    results: z.array(PolicyCheckResult).optional().openapi({ description: "With `policies`: one result per policy, in the order asked" }),
    violated_policies: z.array(z.string()).optional().openapi({ description: "With `policies`, when denied: the policies that refused" }),
  })
  .openapi("RateLimitResult");

const QuotaExceeded = ProblemSchema.extend(CheckResult.shape)
  .extend({ "violated-policies": z.array(z.string()).openapi({ description: "draft-ietf-httpapi-ratelimit-headers-11 §6 (quota-exceeded problem type)" }) })
  .openapi("RateLimitQuotaExceeded");

export const Unenforced = z
  .object({
    allowed: z.literal(true),
    policy: z.string().optional(),
    policies: z.array(z.string()).optional(),
    key: z.string(),
    reason: z.enum(["timeout", "unavailable"]),
    consumed: z.enum(["unknown", "none"]).openapi({ description: "`unknown`: the check was sent and may have consumed a unit; `none`: it certainly did not" }),
    timeout_ms: z.number().int(),
  })
  .openapi("RateLimitUnenforced");

const RefundResult = z
  .object({ policy: z.string(), key: z.string(), limit: z.number().int(), remaining: z.number().int(), reset_ms: z.number().int(), refunded: z.number().int() })
  .openapi("RateLimitRefundResult");

const WindowUsage = z.object({
  window_start: z.string(),
  window_end: z.string(),
  admitted: z.number().int(),
  attempted: z.number().int(),
  rejected: z.number().int(),
  consumed: z.number().int(),
});
const Usage = WindowUsage.extend({
  policy: z.string(),
  key: z.string(),
  algorithm: Algorithm,
  limit: z.number().int(),
  window_ms: z.number().int(),
  windows: z
    .array(WindowUsage)
    .nullable()
    .openapi({ description: "With from/to (fixed and sliding windows): stored windows starting in [from, to), oldest first, at most 1000" }),
  deny_cached_until: z.string().nullable().openapi({
    format: "date-time",
    description:
      "Until when the deny cache of the isolate that answered refuses this key's one-unit checks without asking the database (its own clock); null when it does not. Other isolates keep their own caches.",
  }),
}).openapi("RateLimitUsage");

const UsageQuery = z
  .object({
    policy: PolicyName.openapi({ param: { name: "policy", in: "query" } }),
    key: Key.openapi({ param: { name: "key", in: "query" } }),
    from: Rfc3339.optional().openapi({ param: { name: "from", in: "query" }, description: "History from (inclusive); give both `from` and `to`, or neither" }),
    to: Rfc3339.optional().openapi({ param: { name: "to", in: "query" }, description: "History to (exclusive); give both `from` and `to`, or neither" }),
  })
  .refine((q) => (q.from === undefined) === (q.to === undefined), { path: ["to"], message: "give both from and to, or neither" })
  .refine((q) => !q.from || !q.to || isLater(q.to, q.from), { path: ["to"], message: "to must be after from" });

const NameParam = z.object({ name: PolicyName.openapi({ param: { name: "name", in: "path" }, example: "api" }) });
const OverrideParams = NameParam.extend({ key: name(500, { segment: true }).openapi({ param: { name: "key", in: "path" }, example: "customer-42" }) });
const OverrideDeleteQuery = z.object({
  valid_from: Rfc3339.optional().openapi({
    param: { name: "valid_from", in: "query" },
    description: "Delete only the period starting here; omitted = every period of the key",
  }),
});

const OverrideConflict = ProblemSchema.extend({ conflicts: z.array(Override) }).openapi("RateLimitOverrideConflict");

export const RL_HEADERS = {
  "RateLimit-Policy": {
    schema: { type: "string" as const },
    description:
      'draft-ietf-httpapi-ratelimit-headers-11: a Structured Field list, one item per policy in the order asked (q = quota units, w = window in seconds). One policy: `"api";q=100;w=60`; several: `"burst";q=100;w=60, "daily";q=10000;w=86400`',
  },
  RateLimit: {
    schema: { type: "string" as const },
    description:
      'A Structured Field list, one item per policy (r = remaining units, t = seconds until the quota resets). One policy: `"api";r=42;t=17`; several: `"burst";r=40;t=30, "daily";r=9000;t=5000`',
  },
  "Admit-Cache": { schema: { type: "string" as const }, description: "`hit` when this isolate's deny cache answered without Postgres, else `miss`" },
};
export const ENFORCED_HEADER = {
  [NOT_ENFORCED_HEADER]: {
    schema: { type: "string" as const },
    description: "`false; reason=timeout` (or `unavailable`): the database did not decide within the budget; the fail mode answered",
  },
};

export const putRateLimitPolicy = scoped(
  { area: "ratelimits", access: "admin", names: fromParam("name") },
  createRoute({
    method: "put",
    path: "/v1/ratelimits/policies/{name}",
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
    tags: ["Rate limits"],
    summary: "A policy's decisions per minute",
    description:
      "Decisions of the policy per minute over the last `minutes` minutes (1–1440, default 60), oldest first, minutes without any left out: `allowed`, `denied` (deny-cache answers included), `unenforced` (fail open) and `unavailable` (fail closed). From the same counts as `/metrics` (`admit_ratelimit_decisions_total`), so a policy past `METRICS_MAX_POLICIES` has none of its own, and a minute is complete once the isolates' flushes have landed.",
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
    tags: ["Rate limits"],
    summary: "Give a key its own limit for a period",
    description:
      "Periods of one key never overlap (an `EXCLUDE` constraint): an overlapping period is a 409 listing the periods it overlaps. PUT with exactly the period of an existing override changes its limit (200). The override in force at the moment of a check (database clock) applies.",
    request: { params: OverrideParams, body: { required: true, content: { "application/json": { schema: OverrideBody } } } },
    responses: {
      200: { description: "The limit of this exact period was changed", content: { "application/json": { schema: Override } } },
      201: { description: "Created", content: { "application/json": { schema: Override } } },
      409: { description: "Overlaps another period of this key; nothing was written", content: { "application/problem+json": { schema: OverrideConflict } } },
      ...problemResponses(400, 401, 404, 413, 415, 422, 503, 504),
    },
  }),
);

export const listRateLimitPolicies = scoped(
  { area: "ratelimits", access: "read", list: "name" },
  createRoute({
    method: "get",
    path: "/v1/ratelimits/policies",
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
    tags: ["Rate limits"],
    summary: "Delete a key's override periods",
    description: "All of them, or with `valid_from` only the one starting then.",
    request: { params: OverrideParams, query: OverrideDeleteQuery },
    responses: { 204: { description: "Deleted" }, ...problemResponses(401, 404, 422, 503, 504) },
  }),
);

export const checkRateLimit = scoped(
  { area: "ratelimits", access: "decide", names: fromBody("policy", "policies") },
  createRoute({
    method: "post",
    path: "/v1/ratelimits/check",
    tags: ["Rate limits"],
    summary: "Check (and spend) a key's rate limit",
    description:
      "200 when allowed, 429 when denied — with `policy`, both with the same body; with `policies` (1–8, one all-or-nothing statement), the 429 is a `quota-exceeded` problem document naming `violated-policies`. Both carry the IETF `RateLimit-Policy`/`RateLimit` headers (one list item per policy); 429 adds `Retry-After` (seconds, rounded up) unless the cost exceeds a limit. A denied call consumes nothing. When the database does not decide within the policies' `timeout_ms`, a fail-open check answers 200 `allowed: true` with `reason` `timeout`/`unavailable`, `consumed` and `Admit-RateLimit-Enforced: false`; a fail-closed one 503 + Retry-After when nothing was consumed, 504 outcome-unknown + Retry-After when the check was sent and may have consumed a unit.",
    request: { body: { required: true, content: { "application/json": { schema: CheckBody } } } },
    responses: {
      200: {
        description: "Allowed (or not enforced: fail open)",
        headers: { ...RL_HEADERS, ...ENFORCED_HEADER },
        content: { "application/json": { schema: z.union([CheckResult, Unenforced]) } },
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
    tags: ["Rate limits"],
    summary: "Usage of a key: current window and history",
    description:
      "`admitted` calls were served, `attempted` were made, `rejected` refused; `consumed` is the units spent (admitted costs minus refunds). History (`from`/`to`) is for fixed and sliding windows and goes back `history_ms`.",
    request: { query: UsageQuery },
    responses: {
      200: { description: "Usage", content: { "application/json": { schema: Usage } } },
      ...problemResponses(401, 404, 422, 503),
    },
  }),
);

/** The body of a fail-open check (200, not enforced). */
export type UnenforcedBody = z.infer<typeof Unenforced>;
