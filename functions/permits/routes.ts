// The permits capability's HTTP contract: zod schemas and one route per operation (leases, semaphores,
// invoices), named like their operationIds.

import { createRoute, z } from "@hono/zod-openapi";
import { json, ProblemSchema, problemJson, problemResponses } from "../core/openapi";
import { fromBody, fromParam, scoped } from "../core/scopes";
import { Holder, MAX_PERMITS, name, PageQuery, TtlMs, Uuid } from "../core/validation";

export const MAX_WORK_MS = 3_000;

// ---------------------------------------------------------------------------------------------
// Shared by leases and semaphores.

export const NotCurrentProblem = ProblemSchema.extend({
  state: z.enum(["released", "timed_out", "unknown"]),
  released_at: z.string().nullable(),
  timed_out_at: z.string().nullable(),
}).openapi("NotCurrentHolder");

export const LockUnavailableProblem = ProblemSchema.extend({ key: z.string() }).openapi("LockUnavailable");

// ---------------------------------------------------------------------------------------------
// Leases.

const Lease = z
  .object({
    lease_id: z.uuid().openapi({ description: "Your proof of ownership for renew and release: keep it private" }),
    key: z.string(),
    holder: z.string(),
    fencing_token: z.number().int().openapi({ description: "Strictly increasing per key across every grant, including takeovers after expiry" }),
    ttl_ms: z.number().int(),
    claimed_at: z.string().openapi({ format: "date-time" }),
    expires_at: z.string().openapi({ format: "date-time" }),
  })
  .openapi("Lease");

const LeaseState = z
  .object({
    key: z.string(),
    held: z.boolean(),
    holder: z.string().nullable(),
    fencing_token: z.number().int().nullable(),
    claimed_at: z.string().nullable(),
    expires_at: z.string().nullable(),
  })
  .openapi("LeaseState");

const HeldProblem = ProblemSchema.extend({ key: z.string(), holder: z.string(), expires_at: z.string() }).openapi("LockHeld");

const KeyParam = z.object({
  key: name(200, { segment: true }).openapi({ param: { name: "key", in: "path" }, example: "nightly-report", description: "Encode `/` as `%2F`." }),
});
const LeaseAcquireBody = z.strictObject({ holder: Holder, ttl_ms: TtlMs.openapi({ example: 30_000, description: "1000–3600000 ms" }) }).openapi("LeaseAcquire");
const LeaseRenewBody = z
  .strictObject({ lease_id: Uuid, ttl_ms: TtlMs.optional().openapi({ description: "New TTL from now; default: the lease's TTL so far" }) })
  .openapi("LeaseRenew");
const LeaseReleaseBody = z.strictObject({ lease_id: Uuid }).openapi("LeaseRelease");

export const acquireLock = scoped(
  { area: "locks", access: "decide", names: fromParam("key") },
  createRoute({
    method: "post",
    path: "/v1/locks/{key}/acquire",
    operationId: "acquireLock",
    tags: ["Locks"],
    summary: "Acquire a lock lease, or 409 at once",
    description: "Never blocks. An expired lease is taken over; the new grant's fencing token is larger than every earlier one of this key.",
    request: { params: KeyParam, body: { required: true, ...json(LeaseAcquireBody) } },
    responses: {
      201: { description: "Acquired", ...json(Lease) },
      409: { description: "Held by someone else until `expires_at`; see Retry-After", ...problemJson(HeldProblem) },
      ...problemResponses(400, 401, 413, 415, 422, 503, 504),
    },
  }),
);

export const renewLock = scoped(
  { area: "locks", access: "decide", names: fromParam("key") },
  createRoute({
    method: "post",
    path: "/v1/locks/{key}/renew",
    operationId: "renewLock",
    tags: ["Locks"],
    summary: "Extend your lock lease",
    request: { params: KeyParam, body: { required: true, ...json(LeaseRenewBody) } },
    responses: {
      200: { description: "Renewed; `expires_at` is now + ttl, the fencing token unchanged", ...json(Lease) },
      409: { description: "Not the current lease (released, expired or unknown)", ...problemJson(NotCurrentProblem) },
      ...problemResponses(400, 401, 413, 415, 422, 503, 504),
    },
  }),
);

export const releaseLock = scoped(
  { area: "locks", access: "decide", names: fromParam("key") },
  createRoute({
    method: "post",
    path: "/v1/locks/{key}/release",
    operationId: "releaseLock",
    tags: ["Locks"],
    summary: "Release your lock lease",
    description: "The key is free at once; the lease stays as history with `released_at`.",
    request: { params: KeyParam, body: { required: true, ...json(LeaseReleaseBody) } },
    responses: {
      204: { description: "Released" },
      409: { description: "Not the current lease (released, expired or unknown)", ...problemJson(NotCurrentProblem) },
      ...problemResponses(400, 401, 413, 415, 422, 503, 504),
    },
  }),
);

export const getLock = scoped(
  { area: "locks", access: "read", names: fromParam("key") },
  createRoute({
    method: "get",
    path: "/v1/locks/{key}",
    operationId: "getLock",
    tags: ["Locks"],
    summary: "Who holds a lock, and until when",
    description: "A key that is free (never acquired, released or expired) answers `held: false`. The lease id is never shown.",
    request: { params: KeyParam },
    responses: { 200: { description: "The key now", ...json(LeaseState) }, ...problemResponses(401, 422, 503) },
  }),
);

const LockListQuery = PageQuery.extend({
  prefix: name()
    .optional()
    .openapi({ param: { name: "prefix", in: "query" }, example: "nightly-", description: "Only keys starting with this" }),
});

export const listLocks = scoped(
  { area: "locks", access: "read", list: "key" },
  createRoute({
    method: "get",
    path: "/v1/locks",
    operationId: "listLocks",
    tags: ["Locks"],
    summary: "Lock leases held now, by key",
    description:
      "Unexpired leases only (a free key is not listed), ordered by key; up to `limit` per page, then follow `next_cursor`. Lease ids are never shown.",
    request: { query: LockListQuery },
    responses: {
      200: { description: "Held leases", ...json(z.object({ items: z.array(LeaseState), next_cursor: z.string().nullable() }).openapi("LeaseList")) },
      ...problemResponses(401, 422, 503),
    },
  }),
);

// ---------------------------------------------------------------------------------------------
// Semaphores.

const Permit = z
  .object({
    permit_id: z.uuid(),
    semaphore: z.string(),
    slot: z.number().int().openapi({ description: "0-based; the lowest free slot at the time of the claim" }),
    holder: z.string(),
    fencing_token: z.number().int().openapi({ description: "Strictly increasing per semaphore across every grant" }),
    ttl_ms: z.number().int(),
    claimed_at: z.string().openapi({ format: "date-time" }),
    expires_at: z.string().openapi({ format: "date-time" }),
  })
  .openapi("Permit");

/** The most holders one semaphore's answer carries (1 000 of 200 characters are about 350 KB). */
export const MAX_SEMAPHORE_HOLDERS = 1000;

const Semaphore = z
  .object({
    name: z.string(),
    permits: z.number().int(),
    default_ttl_ms: z.number().int(),
    in_use: z.number().int(),
    available: z.number().int(),
    holders: z
      .array(z.object({ slot: z.number().int(), holder: z.string(), fencing_token: z.number().int(), claimed_at: z.string(), expires_at: z.string() }))
      .openapi({
        description: `Current holders by slot: the \`holders\` lowest (after \`after_slot\` for a single semaphore; a PUT answers the first ${MAX_SEMAPHORE_HOLDERS})`,
      }),
    more_holders: z
      .number()
      .int()
      .openapi({ description: "Holders after the last one in `holders`: for a single semaphore, ask again with `after_slot` set to that slot", example: 0 }),
    created_at: z.string().openapi({ format: "date-time" }),
    updated_at: z.string().openapi({ format: "date-time" }),
  })
  .openapi("Semaphore");

const FullProblem = ProblemSchema.extend({
  permits: z.number().int(),
  in_use: z.number().int(),
  earliest_expires_at: z.string(),
}).openapi("SemaphoreFull");

const NameParam = z.object({ name: name(200, { segment: true }).openapi({ param: { name: "name", in: "path" }, example: "fragile-upstream" }) });

const SemaphorePutBody = z
  .strictObject({
    permits: z
      .number()
      .int()
      .min(1)
      .max(MAX_PERMITS)
      .openapi({ example: 4, description: `How many holders at once, 1–${MAX_PERMITS}.` }),
    default_ttl_ms: TtlMs.optional().openapi({
      example: 90_000,
      description: "TTL of a claim that does not give one, 1000–3600000 ms. Omitted: 60000 for a new semaphore, and a resize keeps the semaphore's own.",
    }),
  })
  .openapi("SemaphoreConfig");

const SemaphoreAcquireBody = z
  .strictObject({ holder: Holder, ttl_ms: TtlMs.optional().openapi({ description: "1000–3600000 ms; default: the semaphore's default_ttl_ms" }) })
  .openapi("SemaphoreAcquire");
const SemaphoreRenewBody = z
  .strictObject({ permit_id: Uuid, ttl_ms: TtlMs.optional().openapi({ description: "New TTL from now; default: the claim's TTL so far" }) })
  .openapi("SemaphoreRenew");
const SemaphoreReleaseBody = z.strictObject({ permit_id: Uuid }).openapi("SemaphoreRelease");

export const putSemaphore = scoped(
  { area: "semaphores", access: "admin", names: fromParam("name") },
  createRoute({
    method: "put",
    path: "/v1/semaphores/{name}",
    operationId: "putSemaphore",
    tags: ["Semaphores"],
    summary: "Create or resize a semaphore",
    description: "Shrinking keeps existing claims until they end; new claims are granted only while fewer than `permits` are in use.",
    request: { params: NameParam, body: { required: true, ...json(SemaphorePutBody) } },
    responses: {
      200: { description: "Updated", ...json(Semaphore) },
      201: { description: "Created", ...json(Semaphore) },
      ...problemResponses(400, 401, 413, 415, 422, 503, 504),
    },
  }),
);

const SemaphoreHoldersQuery = z.object({
  holders: z.coerce
    .number()
    .int()
    .min(0)
    .max(MAX_SEMAPHORE_HOLDERS)
    .default(MAX_SEMAPHORE_HOLDERS)
    .openapi({
      // z.coerce's input is unknown, which the generator documented as `integer | null`: a query value is never null.
      type: "integer",
      minimum: 0,
      maximum: MAX_SEMAPHORE_HOLDERS,
      default: MAX_SEMAPHORE_HOLDERS,
      param: { name: "holders", in: "query" },
      description: `Holders listed, lowest slots first, 0–${MAX_SEMAPHORE_HOLDERS} (default ${MAX_SEMAPHORE_HOLDERS}); \`more_holders\` counts the rest`,
    }),
  after_slot: z.coerce
    .number()
    .int()
    .min(0)
    .max(MAX_PERMITS - 1)
    .optional()
    .openapi({
      type: "integer",
      minimum: 0,
      maximum: MAX_PERMITS - 1,
      param: { name: "after_slot", in: "query" },
      description: "List holders of slots above this one (the last slot of the previous answer)",
    }),
});

export const getSemaphore = scoped(
  { area: "semaphores", access: "read", names: fromParam("name") },
  createRoute({
    method: "get",
    path: "/v1/semaphores/{name}",
    operationId: "getSemaphore",
    tags: ["Semaphores"],
    summary: "Size, use and current holders of a semaphore",
    description: `At most \`holders\` holders (${MAX_SEMAPHORE_HOLDERS} by default) by slot; when \`more_holders\` is not 0, ask again with \`after_slot\` set to the last slot listed.`,
    request: { params: NameParam, query: SemaphoreHoldersQuery },
    responses: { 200: { description: "The semaphore now", ...json(Semaphore) }, ...problemResponses(401, 404, 422, 503) },
  }),
);

/** The most holders a semaphore carries in a list; GET /v1/semaphores/{name} pages them. */
export const MAX_LIST_HOLDERS = 100;

const SemaphoreListQuery = PageQuery.extend({
  holders: z.coerce
    .number()
    .int()
    .min(0)
    .max(MAX_LIST_HOLDERS)
    .default(10)
    .openapi({
      // z.coerce's input is unknown, which the generator documented as `integer | null`: a query value is never null.
      type: "integer",
      minimum: 0,
      maximum: MAX_LIST_HOLDERS,
      default: 10,
      param: { name: "holders", in: "query" },
      description: `Holders listed per semaphore, lowest slots first, 0–${MAX_LIST_HOLDERS} (default 10); \`more_holders\` counts the rest, and \`GET /v1/semaphores/{name}\` pages through them all`,
    }),
});

export const listSemaphores = scoped(
  { area: "semaphores", access: "read", list: "name" },
  createRoute({
    method: "get",
    path: "/v1/semaphores",
    operationId: "listSemaphores",
    tags: ["Semaphores"],
    summary: "Every semaphore with its use and first holders",
    description:
      "Ordered by name; up to `limit` per page (fewer when their JSON passes about 2 MiB), then follow `next_cursor`. Each semaphore carries its first `holders` holders by slot and `more_holders`, the count of the rest.",
    request: { query: SemaphoreListQuery },
    responses: {
      200: { description: "Semaphores", ...json(z.object({ items: z.array(Semaphore), next_cursor: z.string().nullable() }).openapi("SemaphoreList")) },
      ...problemResponses(401, 422, 503),
    },
  }),
);

export const acquireSemaphore = scoped(
  { area: "semaphores", access: "decide", names: fromParam("name") },
  createRoute({
    method: "post",
    path: "/v1/semaphores/{name}/acquire",
    operationId: "acquireSemaphore",
    tags: ["Semaphores"],
    summary: "Acquire a semaphore slot, or 429 at once",
    description:
      "Never queues: when every permit is taken the answer is 429 with `Retry-After` until the earliest claim expires. Expired claims are marked timed out and their slots reused (database clock).",
    request: { params: NameParam, body: { required: true, ...json(SemaphoreAcquireBody) } },
    responses: {
      201: { description: "Claimed", ...json(Permit) },
      429: { description: "Every permit is taken; see Retry-After", ...problemJson(FullProblem) },
      ...problemResponses(400, 401, 404, 413, 415, 422, 503, 504),
    },
  }),
);

export const renewSemaphore = scoped(
  { area: "semaphores", access: "decide", names: fromParam("name") },
  createRoute({
    method: "post",
    path: "/v1/semaphores/{name}/renew",
    operationId: "renewSemaphore",
    tags: ["Semaphores"],
    summary: "Extend your semaphore slot",
    request: { params: NameParam, body: { required: true, ...json(SemaphoreRenewBody) } },
    responses: {
      200: { description: "Renewed; `expires_at` is now + ttl", ...json(Permit) },
      409: { description: "Not the current claim (released, timed out or unknown)", ...problemJson(NotCurrentProblem) },
      ...problemResponses(400, 401, 404, 413, 415, 422, 503, 504),
    },
  }),
);

export const releaseSemaphore = scoped(
  { area: "semaphores", access: "decide", names: fromParam("name") },
  createRoute({
    method: "post",
    path: "/v1/semaphores/{name}/release",
    operationId: "releaseSemaphore",
    tags: ["Semaphores"],
    summary: "Release your semaphore slot",
    description: "The claim stays as history with `released_at`; its slot is free at once.",
    request: { params: NameParam, body: { required: true, ...json(SemaphoreReleaseBody) } },
    responses: {
      204: { description: "Released" },
      409: { description: "Not the current claim (released, timed out or unknown)", ...problemJson(NotCurrentProblem) },
      ...problemResponses(400, 401, 404, 413, 415, 422, 503, 504),
    },
  }),
);

// ---------------------------------------------------------------------------------------------
// Invoices (seed 002).

const GenerateBody = z
  .strictObject({
    subscription_id: name().openapi({ example: "SUB-1234" }),
    kind: z.enum(["usage", "recurring"]).openapi({ description: "Usage-related or recurring-charges invoice (the seed's M1 and M2)" }),
    work_ms: z
      .number()
      .int()
      .min(0)
      .max(MAX_WORK_MS)
      .default(0)
      .openapi({
        description: `Simulated generation time, 0–${MAX_WORK_MS} ms (pg_sleep inside the locked transaction), so a second request can be seen to collide. Default 0.`,
      }),
  })
  .openapi("InvoiceGeneration");

const Invoice = z
  .object({
    id: z.uuid(),
    subscription_id: z.string(),
    kind: z.enum(["usage", "recurring"]),
    number: z.number().int().openapi({ description: "1, 2, 3… per subscription (max + 1, safe under the lock)" }),
    work_ms: z.number().int(),
    started_at: z.string().openapi({ format: "date-time" }),
    finished_at: z.string().openapi({ format: "date-time" }),
  })
  .openapi("Invoice");

export const generateInvoice = scoped(
  { area: "locks", access: "decide", names: fromBody("subscription_id") },
  createRoute({
    method: "post",
    path: "/v1/invoices/generate",
    operationId: "generateInvoice",
    tags: ["Invoices"],
    summary: "Generate an invoice, one at a time per subscription",
    description:
      "Runs under `pg_try_advisory_xact_lock(fnv64('lock/invoice_gen/' + subscription_id))` in one transaction. A second generation for the same subscription while one runs → 409 at once; the lock is gone when the transaction ends, even if its connection dies.",
    request: { body: { required: true, ...json(GenerateBody) } },
    responses: {
      201: { description: "Generated", ...json(Invoice) },
      409: { description: "A generation for this subscription is running; see Retry-After", ...problemJson(LockUnavailableProblem) },
      ...problemResponses(400, 401, 413, 415, 422, 503, 504),
    },
  }),
);
