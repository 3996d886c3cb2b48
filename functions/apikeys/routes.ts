// Keys and the audit log: zod schemas and one createRoute() per operation, each with its scope.
import { createRoute, z } from "@hono/zod-openapi";
import { json, optionalJson, ProblemSchema, problemJson, problemResponses } from "../core/openapi";
import { ACCESSES, AREAS, CHECK_AREAS, SCOPE_PATTERN, scoped } from "../core/scopes";
import { name, PageQuery, Rfc3339 } from "../core/validation";

/** The longest overlap a rotation may give the old secret: 30 days. */
export const MAX_OVERLAP_MS = 30 * 86_400_000;

const ScopeString = z
  .string()
  .regex(
    SCOPE_PATTERN,
    `a scope is <area>:<access>: area one of ${AREAS.join(", ")}, *; access ${ACCESSES.filter((a) => a !== "check").join(", ")}, or check (${CHECK_AREAS.join(", ")}, *)`,
  )
  .openapi({ example: "ratelimits:check" });
const NamePattern = name().openapi({ example: "gw-*", description: "A name, or a pattern where `*` is any run of characters" });

const Secret = z.object({ start: z.string(), created_at: z.string(), expires_at: z.string().nullable() });

const Key = z
  .object({
    id: z.uuid(),
    name: z.string(),
    scopes: z.array(z.string()),
    names: z.array(z.string()).nullable().openapi({ description: "Patterns bounding the named things the key may touch; null: any" }),
    created_at: z.string().openapi({ format: "date-time" }),
    expires_at: z.string().nullable().openapi({ format: "date-time" }),
    revoked_at: z.string().nullable().openapi({ format: "date-time" }),
    last_used_at: z.string().nullable().openapi({
      format: "date-time",
      description: "When an isolate last looked the key up: at most 5 s (the key cache's period) before its latest use, per isolate",
    }),
    made_by: z.uuid().nullable().openapi({
      description: "The key that created it (null: the root token). It never outlives that key, and is revoked with it",
    }),
    secrets: z.array(Secret).openapi({ description: "Its live secrets' first characters (two during a rotation's overlap); never a secret or hash" }),
  })
  .openapi("ApiKey");

const KeyWithSecret = Key.extend({
  secret: z.string().openapi({ description: "The secret, shown this once: `Authorization: Bearer <secret>`", example: "admit_…" }),
}).openapi("ApiKeyCreated");

const CreateBody = z
  .strictObject({
    name: name().openapi({ example: "gateway-eu" }),
    scopes: z.array(ScopeString).min(1).max(64),
    names: z.array(NamePattern).min(1).max(64).optional(),
    expires_at: Rfc3339.optional().openapi({
      description:
        "When the key stops working; omitted: never (made by the root token) or when the key creating it expires. A key creating a key: at most its own expiry (a later one is 422)",
    }),
  })
  .openapi("ApiKeyInput");

const RotateBody = z
  .strictObject({
    overlap_ms: z
      .number()
      .int()
      .min(0)
      .max(MAX_OVERLAP_MS)
      .default(3_600_000)
      .openapi({ description: "How long the old secret(s) keep working, 0–30 days (default 1 h); 0 ends them at once" }),
  })
  .openapi("ApiKeyRotation");

const IdParam = z.object({ id: z.string().openapi({ param: { name: "id", in: "path" }, format: "uuid" }) });

export const createKey = scoped(
  { area: "keys", access: "admin" },
  createRoute({
    method: "post",
    path: "/v1/keys",
    operationId: "createKey",
    tags: ["Keys"],
    summary: "Create a scoped API key",
    description:
      "201 with the secret, shown this once; only its SHA-256 is stored. A key (not the root token) may create only keys within its own scopes and name patterns, and none that outlives it: the new key's `expires_at` is at most the creating key's (omitted: the same; later: 422), and revoking the creating key revokes it.",
    request: { body: { required: true, ...json(CreateBody) } },
    responses: { 201: { description: "Created", ...json(KeyWithSecret) }, ...problemResponses(400, 401, 413, 415, 422, 503, 504) },
  }),
);

export const listKeys = scoped(
  { area: "keys", access: "read" },
  createRoute({
    method: "get",
    path: "/v1/keys",
    operationId: "listKeys",
    tags: ["Keys"],
    summary: "List API keys (never their secrets)",
    description: "Oldest first; up to `limit` per page, then follow `next_cursor`. Revoked and expired keys are listed too.",
    request: { query: PageQuery },
    responses: {
      200: { description: "Keys", ...json(z.object({ items: z.array(Key), next_cursor: z.string().nullable() }).openapi("ApiKeyList")) },
      ...problemResponses(401, 422, 503),
    },
  }),
);

export const getKey = scoped(
  { area: "keys", access: "read" },
  createRoute({
    method: "get",
    path: "/v1/keys/{id}",
    operationId: "getKey",
    tags: ["Keys"],
    summary: "An API key (never its secret)",
    request: { params: IdParam },
    responses: { 200: { description: "The key", ...json(Key) }, ...problemResponses(401, 404, 503) },
  }),
);

export const revokeKey = scoped(
  { area: "keys", access: "admin" },
  createRoute({
    method: "delete",
    path: "/v1/keys/{id}",
    operationId: "revokeKey",
    tags: ["Keys"],
    summary: "Revoke an API key",
    description:
      "Every secret of the key stops working, and of every key it made (directly or through keys it made: `made_by`), each with its audit row: in this isolate at once, in every other within 5 s (their key cache's period).",
    request: { params: IdParam },
    responses: {
      200: {
        description: "Revoked (or already revoked)",
        ...json(
          Key.extend({
            also_revoked: z.array(z.uuid()).openapi({ description: "The keys it made (directly or not) that this request revoked with it" }),
          }).openapi("ApiKeyRevoked"),
        ),
      },
      ...problemResponses(401, 404, 503, 504),
    },
  }),
);

export const rotateKey = scoped(
  { area: "keys", access: "admin" },
  createRoute({
    method: "post",
    path: "/v1/keys/{id}/rotate",
    operationId: "rotateKey",
    tags: ["Keys"],
    summary: "Issue a new secret; the old one works for the overlap",
    description:
      "The key keeps its id, name, scopes and names. Its old secret(s) work until `old_secrets_expire_at`, then only the new one. Without a body, as with `{}`: the default overlap. A key (not the root token) may rotate itself, or a key it could have created: within its scopes and names, and expiring no later than it does (else 403).",
    request: { params: IdParam, body: optionalJson(RotateBody) },
    responses: {
      200: {
        description: "Rotated",
        ...json(KeyWithSecret.extend({ old_secrets_expire_at: z.string().openapi({ format: "date-time" }) }).openapi("ApiKeyRotated")),
      },
      409: { description: "The key is revoked or expired (`conflict`)", ...problemJson(ProblemSchema) },
      ...problemResponses(400, 401, 404, 413, 415, 422, 503, 504),
    },
  }),
);

const AuditEntry = z
  .object({
    id: z.number().int(),
    at: z.string().openapi({ format: "date-time" }),
    key: z
      .object({ id: z.string().nullable(), name: z.string() })
      .openapi({ description: "Who made the change: a key (its id and name); id null and name `root` for API_TOKEN, `binding` for the Service Binding (RPC)" }),
    action: z.string().openapi({ example: "ratelimits.policy.put" }),
    target: z.string().openapi({ description: "The name (or key id) changed" }),
    change: z.record(z.string(), z.unknown()).openapi({ description: "What was asked for, secrets redacted" }),
  })
  .openapi("AuditEntry");

const AuditQuery = PageQuery.extend({
  target: z
    .string()
    .min(1)
    .max(500)
    .optional()
    .openapi({ param: { name: "target", in: "query" }, description: "Only changes of this name" }),
  key: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .openapi({
      param: { name: "key", in: "query" },
      description: "Only changes by this key id, or `root` (API_TOKEN), or `binding` (the Service Binding, RPC)",
    }),
  from: Rfc3339.optional().openapi({ param: { name: "from", in: "query" }, description: "Inclusive" }),
  to: Rfc3339.optional().openapi({ param: { name: "to", in: "query" }, description: "Exclusive" }),
});

export const listAudit = scoped(
  { area: "audit", access: "read" },
  createRoute({
    method: "get",
    path: "/v1/audit",
    operationId: "listAudit",
    tags: ["Keys"],
    summary: "The audit log of configuration changes",
    description:
      "Newest first; up to `limit` per page, then follow `next_cursor`. Every configuration write (policies, overrides, semaphore sizes, stock, webhook sources, keys) has its row, written in the same transaction; decisions are not audited. Kept AUDIT_RETENTION_DAYS (default 90).",
    request: { query: AuditQuery },
    responses: {
      200: { description: "Entries", ...json(z.object({ items: z.array(AuditEntry), next_cursor: z.string().nullable() }).openapi("AuditList")) },
      ...problemResponses(401, 422, 503),
    },
  }),
);
