// The permits capability's request/response schemas (leases, semaphores, invoices) and their
// bounds; routes.ts defines one route per operation over them.
import { z } from "@hono/zod-openapi";
import { ProblemSchema } from "../core/openapi";
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

export const Lease = z
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

export const LeaseState = z
  .object({
    key: z.string(),
    held: z.boolean(),
    holder: z.string().nullable(),
    fencing_token: z.number().int().nullable(),
    claimed_at: z.string().nullable(),
    expires_at: z.string().nullable(),
  })
  .openapi("LeaseState");

export const HeldProblem = ProblemSchema.extend({ key: z.string(), holder: z.string(), expires_at: z.string() }).openapi("LockHeld");

export const KeyParam = z.object({
  key: name(200, { segment: true }).openapi({ param: { name: "key", in: "path" }, example: "nightly-report", description: "Encode `/` as `%2F`." }),
});
export const LeaseAcquireBody = z
  .strictObject({ holder: Holder, ttl_ms: TtlMs.openapi({ example: 30_000, description: "1000–3600000 ms" }) })
  .openapi("LeaseAcquire");
export const LeaseRenewBody = z
  .strictObject({ lease_id: Uuid, ttl_ms: TtlMs.optional().openapi({ description: "New TTL from now; default: the lease's TTL so far" }) })
  .openapi("LeaseRenew");
export const LeaseReleaseBody = z.strictObject({ lease_id: Uuid }).openapi("LeaseRelease");

export const LockListQuery = PageQuery.extend({
  prefix: name()
    .optional()
    .openapi({ param: { name: "prefix", in: "query" }, example: "nightly-", description: "Only keys starting with this" }),
});

// ---------------------------------------------------------------------------------------------
// Semaphores.

export const Permit = z
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

export const Semaphore = z
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

export const FullProblem = ProblemSchema.extend({
  permits: z.number().int(),
  in_use: z.number().int(),
  earliest_expires_at: z.string(),
}).openapi("SemaphoreFull");

export const NameParam = z.object({ name: name(200, { segment: true }).openapi({ param: { name: "name", in: "path" }, example: "fragile-upstream" }) });

export const SemaphorePutBody = z
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

export const SemaphoreAcquireBody = z
  .strictObject({ holder: Holder, ttl_ms: TtlMs.optional().openapi({ description: "1000–3600000 ms; default: the semaphore's default_ttl_ms" }) })
  .openapi("SemaphoreAcquire");
export const SemaphoreRenewBody = z
  .strictObject({ permit_id: Uuid, ttl_ms: TtlMs.optional().openapi({ description: "New TTL from now; default: the claim's TTL so far" }) })
  .openapi("SemaphoreRenew");
export const SemaphoreReleaseBody = z.strictObject({ permit_id: Uuid }).openapi("SemaphoreRelease");

export const SemaphoreHoldersQuery = z.object({
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

/** The most holders a semaphore carries in a list; GET /v1/semaphores/{name} pages them. */
export const MAX_LIST_HOLDERS = 100;

export const SemaphoreListQuery = PageQuery.extend({
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

// ---------------------------------------------------------------------------------------------
// Invoices.

export const GenerateBody = z
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

export const Invoice = z
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
