// The permits capability's route definitions, one per operation (leases, semaphores, invoices),
// named like their operationIds, over the schemas of schemas.ts.
import { createRoute, z } from "@hono/zod-openapi";
import { json, problemJson, problemResponses } from "../core/openapi";
import { fromBody, fromParam, scoped } from "../core/scopes";
import {
  FullProblem,
  GenerateBody,
  HeldProblem,
  Invoice,
  KeyParam,
  Lease,
  LeaseAcquireBody,
  LeaseReleaseBody,
  LeaseRenewBody,
  LeaseState,
  LockListQuery,
  LockUnavailableProblem,
  MAX_SEMAPHORE_HOLDERS,
  NameParam,
  NotCurrentProblem,
  Permit,
  Semaphore,
  SemaphoreAcquireBody,
  SemaphoreHoldersQuery,
  SemaphoreListQuery,
  SemaphorePutBody,
  SemaphoreReleaseBody,
  SemaphoreRenewBody,
} from "./schemas";

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
