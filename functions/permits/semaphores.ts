// Counting semaphores (seed 004): N numbered slots, the lowest free one claimed or a 429 at once,
// TTLs on the database clock, and every claim kept as history. Leases (functions/permits/locks.ts) are
// semaphores of one permit and use the same permit calls below.
// SQL: schema/000020_locks_semaphores.sql. Tests: test/semaphores*.test.ts.
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { RequestDb } from "../core/db";
import type { AppEnv } from "../core/context";
import { notFound, problem, type ProblemError } from "../core/errors";
import { lockKey } from "../core/keys";
import { retryAfter } from "../core/http";
import { json, ProblemSchema, problemJson, problemResponses } from "../core/openapi";
import { name, validationHook } from "../core/validation";

export const MIN_TTL_MS = 1_000;
export const MAX_TTL_MS = 3_600_000;
export const MAX_PERMITS = 10_000;

// ---------------------------------------------------------------------------------------------
// The permit mechanism shared by semaphores and leases: one SQL function call per operation.

export type PermitKind = "lease" | "semaphore";

export type PermitOutcome<P> =
  | { status: "acquired" | "renewed"; permit: P }
  | { status: "released" }
  | { status: "busy"; permits: number; in_use: number; holder: string | null; expires_at: string; retry_after_ms: number }
  | { status: "not_current"; state: "released" | "timed_out" | "unknown"; released_at?: string | null; timed_out_at?: string | null }
  | { status: "not_found" };

async function permitCall<P>(db: RequestDb, text: string, params: unknown[]): Promise<PermitOutcome<P>> {
  const [{ r }] = await db.query<{ r: PermitOutcome<P> }>(text, params, { write: true });
  return r;
}

/** Claim the lowest free slot of `name`, or hear at once that none is free. */
export function acquirePermit<P>(db: RequestDb, kind: PermitKind, key: string, holder: string, ttlMs: number | undefined) {
  return permitCall<P>(db, "SELECT admit_permit_acquire($1::bigint, $2, $3, $4, $5::integer, $6::integer) AS r", [lockKey(kind, key), kind, key, holder, ttlMs ?? null, db.lockTimeoutMs]);
}

/** Extend the caller's own claim `id` (owner-checked: it must be the current claim of `key`). */
export function renewPermit<P>(db: RequestDb, kind: PermitKind, key: string, id: string, ttlMs: number | undefined) {
  return permitCall<P>(db, "SELECT admit_permit_renew($1::bigint, $2, $3, $4::uuid, $5::integer, $6::integer) AS r", [lockKey(kind, key), kind, key, id, ttlMs ?? null, db.lockTimeoutMs]);
}

/** Give back the caller's own claim `id` (owner-checked). */
export function releasePermit(db: RequestDb, kind: PermitKind, key: string, id: string) {
  return permitCall<never>(db, "SELECT admit_permit_release($1::bigint, $2, $3, $4::uuid, $5::integer) AS r", [lockKey(kind, key), kind, key, id, db.lockTimeoutMs]);
}


/** 409 for a renew/release by someone whose claim is no longer the current one. */
export function notCurrent(what: string, outcome: Extract<PermitOutcome<unknown>, { status: "not_current" }>): ProblemError {
  const why = { released: "was released", timed_out: "timed out", unknown: "is not a claim of this key" }[outcome.state];
  return problem("not-current-holder", `${what} ${why}; nothing was changed. Acquire again to get a new claim and fencing token.`, {
    state: outcome.state,
    released_at: outcome.released_at ?? null,
    timed_out_at: outcome.timed_out_at ?? null,
  });
}

export const TtlMs = z.number().int().min(MIN_TTL_MS).max(MAX_TTL_MS);
export const Holder = name().openapi({ example: "worker-7", description: "Who holds it (for GET and 409 answers). 1–200 characters." });

export const NotCurrentProblem = ProblemSchema.extend({
  state: z.enum(["released", "timed_out", "unknown"]),
  released_at: z.string().nullable(),
  timed_out_at: z.string().nullable(),
}).openapi("NotCurrentHolder");

// ---------------------------------------------------------------------------------------------
// Semaphore routes.

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

const Semaphore = z
  .object({
    name: z.string(),
    permits: z.number().int(),
    default_ttl_ms: z.number().int(),
    in_use: z.number().int(),
    available: z.number().int(),
    holders: z.array(z.object({ slot: z.number().int(), holder: z.string(), fencing_token: z.number().int(), claimed_at: z.string(), expires_at: z.string() })),
    created_at: z.string().openapi({ format: "date-time" }),
    updated_at: z.string().openapi({ format: "date-time" }),
  })
  .openapi("Semaphore");

const FullProblem = ProblemSchema.extend({
  permits: z.number().int(),
  in_use: z.number().int(),
  earliest_expires_at: z.string(),
}).openapi("SemaphoreFull");

const NameParam = z.object({ name: name().openapi({ param: { name: "name", in: "path" }, example: "fragile-upstream" }) });

const PutBody = z
  .object({
    permits: z.number().int().min(1).max(MAX_PERMITS).openapi({ example: 4, description: `How many holders at once, 1–${MAX_PERMITS}.` }),
    default_ttl_ms: TtlMs.default(60_000).openapi({ example: 90_000, description: "TTL of a claim that does not give one, 1000–3600000 ms (default 60000)." }),
  })
  .openapi("SemaphoreConfig");

const AcquireBody = z
  .object({ holder: Holder, ttl_ms: TtlMs.optional().openapi({ description: "1000–3600000 ms; default: the semaphore's default_ttl_ms" }) })
  .openapi("SemaphoreAcquire");
const RenewBody = z
  .object({ permit_id: z.uuid(), ttl_ms: TtlMs.optional().openapi({ description: "New TTL from now; default: the claim's TTL so far" }) })
  .openapi("SemaphoreRenew");
const ReleaseBody = z.object({ permit_id: z.uuid() }).openapi("SemaphoreRelease");

type PermitJson = z.infer<typeof Permit>;
type SemaphoreJson = z.infer<typeof Semaphore>;

function semaphoreNotFound(name: string): ProblemError {
  return notFound(`No semaphore ${JSON.stringify(name)}: create it with PUT /v1/semaphores/{name}.`);
}


export const semaphores = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

semaphores.openapi(
  createRoute({
    method: "put",
    path: "/v1/semaphores/{name}",
    tags: ["Semaphores"],
    summary: "Create or resize a semaphore",
    description: "Shrinking keeps existing claims until they end; new claims are granted only while fewer than `permits` are in use.",
    request: { params: NameParam, body: { required: true, ...json(PutBody) } },
    responses: {
      200: { description: "Updated", ...json(Semaphore) },
      201: { description: "Created", ...json(Semaphore) },
      ...problemResponses(400, 401, 413, 415, 422, 503, 504),
    },
  }),
  async (c) => {
    const { name } = c.req.valid("param");
    const body = c.req.valid("json");
    const db = c.var.db;
    const [{ r }] = await db.query<{ r: { created: boolean; semaphore: SemaphoreJson } }>(
      "SELECT admit_semaphore_put($1::bigint, $2, $3::integer, $4::integer, $5::integer) AS r",
      [lockKey("semaphore", name), name, body.permits, body.default_ttl_ms, db.lockTimeoutMs],
      { write: true },
    );
    return r.created ? c.json(r.semaphore, 201, { Location: `/v1/semaphores/${encodeURIComponent(name)}` }) : c.json(r.semaphore, 200);
  },
);

semaphores.openapi(
  createRoute({
    method: "get",
    path: "/v1/semaphores/{name}",
    tags: ["Semaphores"],
    summary: "Size, use and current holders of a semaphore",
    request: { params: NameParam },
    responses: { 200: { description: "The semaphore now", ...json(Semaphore) }, ...problemResponses(401, 404, 503) },
  }),
  async (c) => {
    const { name } = c.req.valid("param");
    const [{ s }] = await c.var.db.query<{ s: SemaphoreJson | null }>("SELECT admit_semaphore_state($1) AS s", [name]);
    if (!s) throw semaphoreNotFound(name);
    return c.json(s, 200);
  },
);

semaphores.openapi(
  createRoute({
    method: "post",
    path: "/v1/semaphores/{name}/acquire",
    tags: ["Semaphores"],
    summary: "Acquire a semaphore slot, or 429 at once",
    description:
      "Never queues: when every permit is taken the answer is 429 with `Retry-After` until the earliest claim expires. Expired claims are marked timed out and their slots reused (database clock).",
    request: { params: NameParam, body: { required: true, ...json(AcquireBody) } },
    responses: {
      201: { description: "Claimed", ...json(Permit) },
      429: { description: "Every permit is taken; see Retry-After", ...problemJson(FullProblem) },
      ...problemResponses(400, 401, 404, 413, 415, 422, 503, 504),
    },
  }),
  async (c) => {
    const { name } = c.req.valid("param");
    const body = c.req.valid("json");
    const r = await acquirePermit<PermitJson>(c.var.db, "semaphore", name, body.holder, body.ttl_ms);
    if (r.status === "not_found") throw semaphoreNotFound(name);
    if (r.status === "busy") {
      throw problem("semaphore-full", `All ${r.permits} permits of ${JSON.stringify(name)} are in use; the earliest expires at ${r.expires_at}.`, {
        permits: r.permits,
        in_use: r.in_use,
        earliest_expires_at: r.expires_at,
      }, retryAfter(r.retry_after_ms));
    }
    if (r.status !== "acquired") throw new Error(`acquire answered ${r.status}`);
    return c.json(r.permit, 201);
  },
);

semaphores.openapi(
  createRoute({
    method: "post",
    path: "/v1/semaphores/{name}/renew",
    tags: ["Semaphores"],
    summary: "Extend your semaphore slot",
    request: { params: NameParam, body: { required: true, ...json(RenewBody) } },
    responses: {
      200: { description: "Renewed; `expires_at` is now + ttl", ...json(Permit) },
      409: { description: "Not the current claim (released, timed out or unknown)", ...problemJson(NotCurrentProblem) },
      ...problemResponses(400, 401, 404, 413, 415, 422, 503, 504),
    },
  }),
  async (c) => {
    const { name } = c.req.valid("param");
    const body = c.req.valid("json");
    const r = await renewPermit<PermitJson>(c.var.db, "semaphore", name, body.permit_id, body.ttl_ms);
    if (r.status === "not_found") throw semaphoreNotFound(name);
    if (r.status === "not_current") throw notCurrent(`Permit ${body.permit_id}`, r);
    if (r.status !== "renewed") throw new Error(`renew answered ${r.status}`);
    return c.json(r.permit, 200);
  },
);

semaphores.openapi(
  createRoute({
    method: "post",
    path: "/v1/semaphores/{name}/release",
    tags: ["Semaphores"],
    summary: "Release your semaphore slot",
    description: "The claim stays as history with `released_at`; its slot is free at once.",
    request: { params: NameParam, body: { required: true, ...json(ReleaseBody) } },
    responses: {
      204: { description: "Released" },
      409: { description: "Not the current claim (released, timed out or unknown)", ...problemJson(NotCurrentProblem) },
      ...problemResponses(400, 401, 404, 413, 415, 422, 503, 504),
    },
  }),
  async (c) => {
    const { name } = c.req.valid("param");
    const body = c.req.valid("json");
    const r = await releasePermit(c.var.db, "semaphore", name, body.permit_id);
    if (r.status === "not_found") throw semaphoreNotFound(name);
    if (r.status === "not_current") throw notCurrent(`Permit ${body.permit_id}`, r);
    return c.body(null, 204);
  },
);
