// Mutual exclusion, two ways.
//
// In-request (seed 002): withTryLock / withLock take pg_(try_)advisory_xact_lock(fnv64("lock/" + key))
// and run `fn` in the same transaction. The lock ends with the transaction — commit, rollback, or a
// connection that dies — so a crashed holder never blocks anyone. Not available → a typed result
// ({acquired: false}) that a route turns into 409 + Retry-After with lockUnavailable().
//
// Across requests: leases with fencing tokens for callers outside the Worker, POST /v1/locks/{key}/…
// A lease is a semaphore of one permit: the same SQL functions and permit calls as functions/permits/semaphores.ts.
// SQL: schema/000020_locks_semaphores.sql. Tests: test/locks*.test.ts.
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { RequestDb } from "../core/db";
import type { AppEnv } from "../core/context";
import { problem, type ProblemError } from "../core/errors";
import { lockKey } from "../core/keys";
import { ProblemSchema, problemResponses } from "../core/openapi";
import { retryAfter } from "../core/http";
import { json, problemJson } from "../core/openapi";
import { acquirePermit, Holder, notCurrent, NotCurrentProblem, releasePermit, renewPermit, TtlMs } from "./semaphores";
import { name, validationHook } from "../core/validation";

// ---------------------------------------------------------------------------------------------
// The in-request library.

export type LockResult<T> = { acquired: true; value: T } | { acquired: false; key: string };

/**
 * Runs `fn` inside one transaction holding the advisory lock of `key`, or returns `{acquired: false}`
 * at once when another transaction holds it. Joins an outer transaction if one is open (the lock is
 * then held until that one ends).
 */
export function withTryLock<T>(db: RequestDb, key: string, fn: (db: RequestDb) => Promise<T>): Promise<LockResult<T>> {
  return db.transaction(async (tx) => {
    const [{ locked }] = await tx.query<{ locked: boolean }>("SELECT pg_try_advisory_xact_lock($1::bigint) AS locked", [lockKey("lock", key)]);
    return locked ? { acquired: true as const, value: await fn(tx) } : { acquired: false as const, key };
  });
}

/**
 * Like withTryLock, but waits for the lock up to `waitMs` (default: the request's lock timeout,
 * never past its budget). A wait that runs out answers `{acquired: false}` and leaves the
 * transaction usable (the wait runs in a subtransaction in SQL).
 */
export function withLock<T>(db: RequestDb, key: string, fn: (db: RequestDb) => Promise<T>, opts: { waitMs?: number } = {}): Promise<LockResult<T>> {
  const waitMs = Math.max(1, Math.min(opts.waitMs ?? db.lockTimeoutMs, db.remainingMs() - 50));
  return db.transaction(async (tx) => {
    const [{ locked }] = await tx.query<{ locked: boolean }>("SELECT admit_advisory_xact_lock_within($1::bigint, $2::integer) AS locked", [lockKey("lock", key), Math.round(waitMs)]);
    return locked ? { acquired: true as const, value: await fn(tx) } : { acquired: false as const, key };
  });
}

/** The 409 a route answers when an in-request lock is held by another request. */
export function lockUnavailable(key: string, detail = `Another request holds ${JSON.stringify(key)} right now; nothing was done.`, retryAfterS = 1): ProblemError {
  return problem("lock-unavailable", `${detail} Retry after ${retryAfterS} s.`, { key }, { "Retry-After": String(retryAfterS) });
}

/** The value of a LockResult, or the 409 problem thrown. */
export function orConflict<T>(r: LockResult<T>, detail?: string): T {
  if (!r.acquired) throw lockUnavailable(r.key, detail);
  return r.value;
}

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

const KeyParam = z.object({ key: name().openapi({ param: { name: "key", in: "path" }, example: "nightly-report", description: "Encode `/` as `%2F`." }) });
const AcquireBody = z.object({ holder: Holder, ttl_ms: TtlMs.openapi({ example: 30_000, description: "1000–3600000 ms" }) }).openapi("LeaseAcquire");
const RenewBody = z
  .object({ lease_id: z.uuid(), ttl_ms: TtlMs.optional().openapi({ description: "New TTL from now; default: the lease's TTL so far" }) })
  .openapi("LeaseRenew");
const ReleaseBody = z.object({ lease_id: z.uuid() }).openapi("LeaseRelease");

type LeaseJson = z.infer<typeof Lease>;

export const locks = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

locks.openapi(
  createRoute({
    method: "post",
    path: "/v1/locks/{key}/acquire",
    tags: ["Locks"],
    summary: "Acquire a lock lease, or 409 at once",
    description: "Never blocks. An expired lease is taken over; the new grant's fencing token is larger than every earlier one of this key.",
    request: { params: KeyParam, body: { required: true, ...json(AcquireBody) } },
    responses: {
      201: { description: "Acquired", ...json(Lease) },
      409: { description: "Held by someone else until `expires_at`; see Retry-After", ...problemJson(HeldProblem) },
      ...problemResponses(400, 401, 413, 415, 422, 503, 504),
    },
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    const body = c.req.valid("json");
    const r = await acquirePermit<LeaseJson>(c.var.db, "lease", key, body.holder, body.ttl_ms);
    if (r.status === "busy") {
      throw problem("lock-held", `${JSON.stringify(key)} is held by ${JSON.stringify(r.holder)} until ${r.expires_at}.`, { key, holder: r.holder, expires_at: r.expires_at }, retryAfter(r.retry_after_ms));
    }
    if (r.status !== "acquired") throw new Error(`acquire answered ${r.status}`);
    return c.json(r.permit, 201);
  },
);

locks.openapi(
  createRoute({
    method: "post",
    path: "/v1/locks/{key}/renew",
    tags: ["Locks"],
    summary: "Extend your lock lease",
    request: { params: KeyParam, body: { required: true, ...json(RenewBody) } },
    responses: {
      200: { description: "Renewed; `expires_at` is now + ttl, the fencing token unchanged", ...json(Lease) },
      409: { description: "Not the current lease (released, expired or unknown)", ...problemJson(NotCurrentProblem) },
      ...problemResponses(400, 401, 413, 415, 422, 503, 504),
    },
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    const body = c.req.valid("json");
    const r = await renewPermit<LeaseJson>(c.var.db, "lease", key, body.lease_id, body.ttl_ms);
    if (r.status === "not_current") throw notCurrent(`Lease ${body.lease_id}`, r);
    if (r.status !== "renewed") throw new Error(`renew answered ${r.status}`);
    return c.json(r.permit, 200);
  },
);

locks.openapi(
  createRoute({
    method: "post",
    path: "/v1/locks/{key}/release",
    tags: ["Locks"],
    summary: "Release your lock lease",
    description: "The key is free at once; the lease stays as history with `released_at`.",
    request: { params: KeyParam, body: { required: true, ...json(ReleaseBody) } },
    responses: {
      204: { description: "Released" },
      409: { description: "Not the current lease (released, expired or unknown)", ...problemJson(NotCurrentProblem) },
      ...problemResponses(400, 401, 413, 415, 422, 503, 504),
    },
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    const body = c.req.valid("json");
    const r = await releasePermit(c.var.db, "lease", key, body.lease_id);
    if (r.status === "not_current") throw notCurrent(`Lease ${body.lease_id}`, r);
    return c.body(null, 204);
  },
);

locks.openapi(
  createRoute({
    method: "get",
    path: "/v1/locks/{key}",
    tags: ["Locks"],
    summary: "Who holds a lock, and until when",
    description: "A key that is free (never acquired, released or expired) answers `held: false`. The lease id is never shown.",
    request: { params: KeyParam },
    responses: { 200: { description: "The key now", ...json(LeaseState) }, ...problemResponses(401, 422, 503) },
  }),
  async (c) => {
    const { key } = c.req.valid("param");
    const [{ s }] = await c.var.db.query<{ s: z.infer<typeof LeaseState> }>("SELECT admit_lease_state($1) AS s", [key]);
    return c.json(s, 200);
  },
);
