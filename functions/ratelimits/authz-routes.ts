// The forward-auth check's entry in the OpenAPI document (functions/ratelimits/authz.ts is the route):
// its query, answers and headers, one operation per method a client's generator would send.
import { z } from "@hono/zod-openapi";
import { ProblemSchema, problemResponses } from "../core/openapi";
import { scoped } from "../core/scopes";
import { AUTHZ_DENY_STATUSES, AUTHZ_REFUSED_HEADER, AUTHZ_SCOPE, MAX_TRUSTED_HOPS } from "./authz";
import { CheckResult, ENFORCED_HEADER, PolicyName, RL_HEADERS, Unenforced } from "./schemas";

const NoKey = z
  .object({ allowed: z.literal(true), reason: z.literal("no-key"), detail: z.string() })
  .openapi("RateLimitAuthzNoKey", { description: "`on_missing=allow` and the request had no key: let through, nothing counted" });

/** The forward-auth check's query (built when the document is: authz.ts imports modules that import this one). */
const authzQuery = () =>
  z.object({
    policy: z
      .array(PolicyName)
      .min(1)
      .max(8)
      .openapi({
        param: { name: "policy", in: "query", style: "form", explode: true },
        example: ["api"],
        description: "1–8 distinct policies, repeated (`policy=burst&policy=daily`): all-or-nothing, as `policies` of the check",
      }),
    key: z
      .array(z.string().regex(/^(ip|header:[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100})$/))
      .min(1)
      .max(4)
      .openapi({
        param: { name: "key", in: "query", style: "form", explode: true },
        example: ["header:X-Api-Key"],
        description:
          "Where the limited key comes from: `header:<Name>` (that request header; not `Authorization`, which is the gateway's own Admit credential here) or `ip` (the right-most `X-Forwarded-For` entry after `trusted_hops`, else `X-Real-IP`). Repeated: a fallback chain, the first present wins, its value prefixed by its source (`ip:…`, `x-api-key:…`)",
      }),
    cost: z.coerce
      .number()
      .int()
      .min(0)
      .max(1_000_000_000)
      .optional()
      // z.coerce's input is unknown, which the generator documents as `integer | null`: a query value is never null.
      .openapi({ type: "integer", minimum: 0, maximum: 1_000_000_000, param: { name: "cost", in: "query" }, description: "Units (default 1)" }),
    deny_status: z.coerce
      .number()
      .int()
      .optional()
      .openapi({
        type: "integer",
        enum: [...AUTHZ_DENY_STATUSES],
        param: { name: "deny_status", in: "query" },
        description: "429 (default), 403 or 401 (nginx's auth_request treats only 401/403 as a refusal)",
      }),
    on_missing: z
      .enum(["deny", "allow"])
      .optional()
      .openapi({
        param: { name: "on_missing", in: "query" },
        description: "A request with none of the key sources: refused with `deny_status` (default) or let through uncounted",
      }),
    trusted_hops: z.coerce
      .number()
      .int()
      .min(0)
      .max(10)
      .optional()
      .openapi({
        type: "integer",
        minimum: 0,
        maximum: MAX_TRUSTED_HOPS,
        param: { name: "trusted_hops", in: "query" },
        description:
          "With `key=ip`: how many trusted proxies appended to `X-Forwarded-For` after the one that saw the client (default 0: the right-most entry)",
      }),
  });

const AUTHZ_DENY_HEADERS = {
  ...RL_HEADERS,
  "Retry-After": { schema: { type: "string" as const }, description: "Seconds (when waiting can help)" },
  [AUTHZ_REFUSED_HEADER]: {
    schema: { type: "string" as const },
    description:
      "On a refusal of the client's request only: the problem's slug (`rate-limited`, `quota-exceeded`, `ratelimit-key-missing`, `ratelimit-key-invalid`). Absent when the gateway's own key was refused (401 `unauthorized`, 403 `forbidden`): a gateway tells the two apart by it",
  },
};

/**
 * The forward-auth check in the document: one operation per method a client's generator would send
 * (the route answers every method, and every path below /v1/authz/, the same way).
 */
export function authzOperations() {
  const base = {
    path: "/v1/authz",
    tags: ["Rate limits"],
    request: { query: authzQuery() },
    responses: {
      200: {
        description: "Allowed (or not enforced: fail open, `Admit-RateLimit-Enforced: false`; or no key with `on_missing=allow`)",
        headers: { ...RL_HEADERS, ...ENFORCED_HEADER },
        content: { "application/json": { schema: z.union([CheckResult, Unenforced, NoKey]) } },
      },
      401: {
        description:
          "Denied with `deny_status=401` (`rate-limited`, `quota-exceeded`, `ratelimit-key-missing`, `ratelimit-key-invalid`), or the bearer token is missing or wrong",
        headers: AUTHZ_DENY_HEADERS,
        content: { "application/problem+json": { schema: ProblemSchema } },
      },
      403: {
        description:
          "Denied with `deny_status=403` (the problems of 429, with `Admit-Authz-Refused`), or the gateway's key lacks `ratelimits:check` or one of the policies' names (`forbidden`, without it)",
        headers: AUTHZ_DENY_HEADERS,
        content: { "application/problem+json": { schema: ProblemSchema } },
      },
      429: {
        description:
          "Denied: `rate-limited` (one policy) or `quota-exceeded` (several) with `Retry-After`; `ratelimit-key-missing` / `ratelimit-key-invalid` when the request has no usable key; nothing consumed",
        headers: AUTHZ_DENY_HEADERS,
        content: { "application/problem+json": { schema: ProblemSchema } },
      },
      ...problemResponses(404, 413, 422, 503, 504),
    },
  };
  const description =
    "Forward-auth for API gateways (nginx `auth_request`, Caddy `forward_auth`, Traefik ForwardAuth, HAProxy Lua, Envoy `ext_authz`; docs/gateways.md): the rate-limit check of `POST /v1/ratelimits/check` — the same statement, deny cache, counts and fail mode — with its parameters in the query and the key read from the request's headers. **Any method** (the same answer for each) and **any path below `/v1/authz/`** (Envoy prepends its `path_prefix` to the client's path and query, so there the query is ignored and the parameters come from the `Admit-Authz` header, in the same `policy=…&key=…` form). 200 with `RateLimit-Policy`/`RateLimit` when allowed; `deny_status` (429 by default) with `Retry-After`, the same headers and the problem when denied. No body is read.";
  const operationIds = {
    get: "authorizeRequest",
    post: "authorizeRequestPost",
    put: "authorizeRequestPut",
    patch: "authorizeRequestPatch",
    delete: "authorizeRequestDelete",
  } as const;
  return (["get", "post", "put", "patch", "delete"] as const).map((method) =>
    scoped(AUTHZ_SCOPE, {
      ...base,
      method,
      operationId: operationIds[method],
      summary: method === "get" ? "Forward-auth rate-limit check for a gateway (any method)" : `Forward-auth check (${method.toUpperCase()}: the same as GET)`,
      description,
    }),
  );
}
