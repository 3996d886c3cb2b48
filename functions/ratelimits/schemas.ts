// The rate-limit API's zod schemas and response headers (functions/ratelimits/routes.ts builds one
// createRoute() per operation from them).
import { z } from "@hono/zod-openapi";
import { ProblemSchema } from "../core/openapi";
import { DOT_SEGMENT_MESSAGE, isLater, jsonObject, name, Rfc3339 } from "../core/validation";
import { DEFAULT_TIMEOUT_MS } from "./cache";
import { NOT_ENFORCED_HEADER } from "./headers";

/** The longest window a policy may have (366 days). */
export const MAX_WINDOW_MS = 366 * 86_400_000;
const MAX_INFO_BYTES = 2048;
const SHADOW_DOC =
  "Shadow mode: every check is decided, counted and logged as if enforced, but never refused — a call the limit would refuse is answered 200 with `shadow: true` and `Admit-RateLimit-Shadow: would-refuse`, and counted in `would_refuse`. A key's override in shadow mode puts that key in shadow while it is in force.";

/** A policy's name, and a concurrency limit's (both are sent in RateLimit headers). */
export const PolicyName = z
  .string()
  .regex(/^[A-Za-z0-9._:-]{1,100}$/, "must be 1–100 characters of A–Z a–z 0–9 . _ : - (it is sent as a structured-field string in RateLimit headers)")
  .refine((s) => s !== "." && s !== "..", DOT_SEGMENT_MESSAGE)
  .openapi({ pattern: "^(?!\\.\\.?$)[A-Za-z0-9._:-]{1,100}$" });
const Key = name(500);
const Cost = z.number().int().min(0).max(1_000_000_000);

const Algorithm = z.enum(["fixed_window", "sliding_window", "token_bucket"]);

export const Policy = z
  .object({
    name: z.string(),
    algorithm: Algorithm,
    limit: z.number().int(),
    window_ms: z.number().int(),
    log: z.boolean(),
    history_ms: z.number().int(),
    timeout_ms: z.number().int(),
    on_unavailable: z.enum(["deny", "allow"]),
    shadow: z.boolean(),
    durable: z.boolean(),
    created_at: z.string().openapi({ format: "date-time" }),
    updated_at: z.string().openapi({ format: "date-time" }),
  })
  .openapi("RateLimitPolicy");

export const PolicyBody = z
  .strictObject({
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
    shadow: z.boolean().default(false).openapi({ description: SHADOW_DOC }),
    durable: z.boolean().default(false).openapi({
      description:
        "`true`: every check's counter write commits synchronously, so a database crash loses none (quotas that bill). Default `false`: counters commit asynchronously, so a crash may lose the last moments of counting (a bounded over-admission, docs/ratelimits.md#durability); refusals and everything else Admit stores are durable either way.",
    }),
  })
  .openapi("RateLimitPolicyInput");

export const Override = z
  .object({ policy: z.string(), key: z.string(), limit: z.number().int(), valid_from: z.string(), valid_to: z.string().nullable(), shadow: z.boolean() })
  .openapi("RateLimitOverride");

export const OverrideBody = z
  .strictObject({
    limit: z.number().int().min(1).max(1_000_000_000),
    valid_from: Rfc3339.openapi({ description: "Inclusive" }),
    valid_to: Rfc3339.nullable().optional().openapi({ description: "Exclusive; omitted or null = open-ended" }),
    shadow: z
      .boolean()
      .default(false)
      .openapi({ description: "Shadow mode while this override is in force: the key's checks are decided under its limit and counted, never refused" }),
  })
  .refine((b) => !b.valid_to || isLater(b.valid_to, b.valid_from), {
    path: ["valid_to"],
    message: "valid_to must be after valid_from (periods are half-open [valid_from, valid_to))",
  })
  .openapi("RateLimitOverrideInput");

/**
 * The client's address as an entrance passes it: any text up to 100 characters; one that is not an
 * IPv4 or IPv6 address (lists/ip.ts) matches no ip entry, as a malformed forwarded header does at
 * /v1/authz — the lists never turn a client's odd address into a refusal of the check.
 */
export const ClientIp = z.string().max(100);
/** A country code: two letters (ISO 3166-1 alpha-2), either case. */
export const Country = z.string().regex(/^[A-Za-z]{2}$/, "must be a two-letter country code (ISO 3166-1 alpha-2)");

const Info = jsonObject(MAX_INFO_BYTES).optional().openapi({ description: "Small JSON object stored in the request log (policies with `log: true`)" });

export const CheckBody = z
  .strictObject({
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
    ip: ClientIp.optional().openapi({
      example: "192.0.2.7",
      description:
        "The client's IP address (v4 or v6), matched against the deny/allow lists' ip entries (text that is not an address matches none). Not stored",
    }),
    country: Country.optional().openapi({
      example: "NL",
      description: "The client's country (ISO 3166-1 alpha-2), matched against the lists' country entries",
    }),
  })
  .refine((b) => (b.policy === undefined) !== (b.policies === undefined), { path: ["policies"], message: "give exactly one of policy and policies" })
  .openapi("RateLimitCheck");

export const RefundBody = z.strictObject({ policy: PolicyName, key: Key, cost: Cost.min(1) }).openapi("RateLimitRefund");

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
    shadow: z.literal(true).optional().openapi({ description: "This policy is in shadow mode for the key and would refuse: it did not refuse the check" }),
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
    shadow: z
      .literal(true)
      .optional()
      .openapi({ description: "A limit in shadow mode would have refused this call; it was let through (header `Admit-RateLimit-Shadow: would-refuse`)" }),
  })
  .openapi("RateLimitResult");

export const QuotaExceeded = ProblemSchema.extend(CheckResult.shape)
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

const ListEntryRef = z
  .object({
    list: z.enum(["deny", "allow"]),
    policy: z.string().nullable().openapi({ description: "The policy the entry is for; null: every policy (global)" }),
    kind: z.enum(["key", "prefix", "ip", "country"]),
    value: z.string(),
    reason: z.string().nullable(),
  })
  .openapi("RateLimitListMatch");

export const Listed = z
  .object({
    allowed: z.literal(true),
    policy: z.string().optional(),
    policies: z.array(z.string()).optional(),
    key: z.string(),
    reason: z.literal("allow-list"),
    entry: ListEntryRef,
  })
  .openapi("RateLimitAllowListed", { description: "An allow list entry let the call through: nothing was counted (header `Admit-RateLimit-List: allow`)" });

export const DeniedByList = ProblemSchema.extend({
  policy: z.string().optional(),
  policies: z.array(z.string()).optional(),
  key: z.string(),
  allowed: z.literal(false),
  entry: ListEntryRef,
}).openapi("RateLimitDeniedByList");

export const RefundResult = z
  .object({ policy: z.string(), key: z.string(), limit: z.number().int(), remaining: z.number().int(), reset_ms: z.number().int(), refunded: z.number().int() })
  .openapi("RateLimitRefundResult");

const WindowUsage = z.object({
  window_start: z.string(),
  window_end: z.string(),
  admitted: z.number().int(),
  attempted: z.number().int(),
  rejected: z.number().int(),
  would_refuse: z.number().int().openapi({ description: "Of `rejected`, the calls shadow mode let through" }),
  consumed: z.number().int(),
});
export const Usage = WindowUsage.extend({
  policy: z.string(),
  key: z.string(),
  algorithm: Algorithm,
  limit: z.number().int(),
  window_ms: z.number().int(),
  shadow: z.boolean().openapi({ description: "Whether the key's checks are in shadow mode now (the policy's, or the override in force)" }),
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

export const UsageQuery = z
  .object({
    policy: PolicyName.openapi({ param: { name: "policy", in: "query" } }),
    key: Key.openapi({ param: { name: "key", in: "query" } }),
    from: Rfc3339.optional().openapi({ param: { name: "from", in: "query" }, description: "History from (inclusive); give both `from` and `to`, or neither" }),
    to: Rfc3339.optional().openapi({ param: { name: "to", in: "query" }, description: "History to (exclusive); give both `from` and `to`, or neither" }),
  })
  .refine((q) => (q.from === undefined) === (q.to === undefined), { path: ["to"], message: "give both from and to, or neither" })
  .refine((q) => !q.from || !q.to || isLater(q.to, q.from), { path: ["to"], message: "to must be after from" });

export const NameParam = z.object({ name: PolicyName.openapi({ param: { name: "name", in: "path" }, example: "api" }) });
export const OverrideParams = NameParam.extend({
  key: name(500, { segment: true }).openapi({
    param: { name: "key", in: "path" },
    example: "customer-42",
    description: "The key, or with `*` a pattern of keys (`tenant-42:*`)",
  }),
});
export const OverrideDeleteQuery = z.object({
  valid_from: Rfc3339.optional().openapi({
    param: { name: "valid_from", in: "query" },
    description: "Delete only the period starting here; omitted = every period of the key",
  }),
});

export const OverrideConflict = ProblemSchema.extend({ conflicts: z.array(Override) }).openapi("RateLimitOverrideConflict");

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
