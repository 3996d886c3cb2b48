// The permits capability's handlers: HTTP ↔ permit calls (sql.ts), outcomes mapped to answers and problems.

import type { RouteHandler } from "@hono/zod-openapi";
import { auditEntry } from "../core/audit";
import { visibleNames } from "../core/auth";
import type { AppEnv } from "../core/context";
import { notFound, type ProblemError, problem } from "../core/errors";
import { retryAfter } from "../core/http";
import { cutPage, namePage } from "../core/validation";
import { orConflict, withTryLock } from "./locks";
import type * as routes from "./routes";
import * as sql from "./sql";

/** 409 for a renew/release by someone whose claim is no longer the current one. */
function notCurrent(what: string, outcome: sql.NotCurrent): ProblemError {
  const why = { released: "was released", timed_out: "timed out", unknown: "is not a claim of this key" }[outcome.state];
  return problem("not-current-holder", `${what} ${why}; nothing was changed. Acquire again to get a new claim and fencing token.`, {
    state: outcome.state,
    released_at: outcome.released_at ?? null,
    timed_out_at: outcome.timed_out_at ?? null,
  });
}

export function semaphoreNotFound(name: string): ProblemError {
  return notFound(`No semaphore ${JSON.stringify(name)}: create it with PUT /v1/semaphores/{name}.`);
}

// ---------------------------------------------------------------------------------------------
// Leases: a semaphore of one permit, the same permit calls.

export const acquireLock: RouteHandler<typeof routes.acquireLock, AppEnv> = async (c) => {
  const { key } = c.req.valid("param");
  const body = c.req.valid("json");
  const r = await sql.acquirePermit<sql.Lease>(c.var.db, "lease", key, body.holder, body.ttl_ms);
  if (r.status === "busy") {
    throw problem(
      "lock-held",
      `${JSON.stringify(key)} is held by ${JSON.stringify(r.holder)} until ${r.expires_at}.`,
      { key, holder: r.holder, expires_at: r.expires_at },
      retryAfter(r.retry_after_ms),
    );
  }
  if (r.status !== "acquired") throw new Error(`acquire answered ${r.status}`);
  return c.json(r.permit, 201);
};

export const renewLock: RouteHandler<typeof routes.renewLock, AppEnv> = async (c) => {
  const { key } = c.req.valid("param");
  const body = c.req.valid("json");
  const r = await sql.renewPermit<sql.Lease>(c.var.db, "lease", key, body.lease_id, body.ttl_ms);
  if (r.status === "not_current") throw notCurrent(`Lease ${body.lease_id}`, r);
  if (r.status !== "renewed") throw new Error(`renew answered ${r.status}`);
  return c.json(r.permit, 200);
};

export const releaseLock: RouteHandler<typeof routes.releaseLock, AppEnv> = async (c) => {
  const { key } = c.req.valid("param");
  const body = c.req.valid("json");
  const r = await sql.releasePermit(c.var.db, "lease", key, body.lease_id);
  if (r.status === "not_current") throw notCurrent(`Lease ${body.lease_id}`, r);
  return c.body(null, 204);
};

export const getLock: RouteHandler<typeof routes.getLock, AppEnv> = async (c) => {
  const { key } = c.req.valid("param");
  return c.json(await sql.leaseState(c.var.db, key), 200);
};

export const listLocks: RouteHandler<typeof routes.listLocks, AppEnv> = async (c) => {
  const q = c.req.valid("query");
  const rows = await sql.listLeases(c.var.db, q.prefix ?? null, q.cursor ?? null, q.limit, visibleNames(c));
  return c.json(
    namePage(rows, q.limit, (l) => l.key),
    200,
  );
};

// ---------------------------------------------------------------------------------------------
// Semaphores.

export const listSemaphores: RouteHandler<typeof routes.listSemaphores, AppEnv> = async (c) => {
  const q = c.req.valid("query");
  const page = await sql.listSemaphores(c.var.db, q.cursor ?? null, q.limit, q.holders, visibleNames(c));
  return c.json(
    cutPage(page, (s) => s.name),
    200,
  );
};

export const putSemaphore: RouteHandler<typeof routes.putSemaphore, AppEnv> = async (c) => {
  const { name } = c.req.valid("param");
  const body = c.req.valid("json");
  const audit = auditEntry(c.var.caller, c.env ?? {}, "semaphores.put", name, body);
  const r = await sql.putSemaphore(c.var.db, name, body.permits, body.default_ttl_ms, audit);
  return r.created ? c.json(r.semaphore, 201, { Location: `/v1/semaphores/${encodeURIComponent(name)}` }) : c.json(r.semaphore, 200);
};

export const getSemaphore: RouteHandler<typeof routes.getSemaphore, AppEnv> = async (c) => {
  const { name } = c.req.valid("param");
  const q = c.req.valid("query");
  const s = await sql.semaphoreState(c.var.db, name, q.holders, q.after_slot ?? null);
  if (!s) throw semaphoreNotFound(name);
  return c.json(s, 200);
};

export const acquireSemaphore: RouteHandler<typeof routes.acquireSemaphore, AppEnv> = async (c) => {
  const { name } = c.req.valid("param");
  const body = c.req.valid("json");
  const r = await sql.acquirePermit<sql.Permit>(c.var.db, "semaphore", name, body.holder, body.ttl_ms);
  if (r.status === "not_found") throw semaphoreNotFound(name);
  if (r.status === "busy") {
    throw problem(
      "semaphore-full",
      `All ${r.permits} permits of ${JSON.stringify(name)} are in use; the earliest expires at ${r.expires_at}.`,
      {
        permits: r.permits,
        in_use: r.in_use,
        earliest_expires_at: r.expires_at,
      },
      retryAfter(r.retry_after_ms),
    );
  }
  if (r.status !== "acquired") throw new Error(`acquire answered ${r.status}`);
  return c.json(r.permit, 201);
};

export const renewSemaphore: RouteHandler<typeof routes.renewSemaphore, AppEnv> = async (c) => {
  const { name } = c.req.valid("param");
  const body = c.req.valid("json");
  const r = await sql.renewPermit<sql.Permit>(c.var.db, "semaphore", name, body.permit_id, body.ttl_ms);
  if (r.status === "not_found") throw semaphoreNotFound(name);
  if (r.status === "not_current") throw notCurrent(`Permit ${body.permit_id}`, r);
  if (r.status !== "renewed") throw new Error(`renew answered ${r.status}`);
  return c.json(r.permit, 200);
};

export const releaseSemaphore: RouteHandler<typeof routes.releaseSemaphore, AppEnv> = async (c) => {
  const { name } = c.req.valid("param");
  const body = c.req.valid("json");
  const r = await sql.releasePermit(c.var.db, "semaphore", name, body.permit_id);
  if (r.status === "not_found") throw semaphoreNotFound(name);
  if (r.status === "not_current") throw notCurrent(`Permit ${body.permit_id}`, r);
  return c.body(null, 204);
};

// ---------------------------------------------------------------------------------------------
// Invoices: one generation per subscription at a time, failing fast rather than waiting.

export const generateInvoice: RouteHandler<typeof routes.generateInvoice, AppEnv> = async (c) => {
  const body = c.req.valid("json");
  const result = await withTryLock(c.var.db, `invoice_gen/${body.subscription_id}`, (tx) =>
    sql.generateInvoice(tx, body.subscription_id, body.kind, body.work_ms),
  );
  const invoice = orConflict(result, `An invoice for ${JSON.stringify(body.subscription_id)} is being generated right now; nothing was done.`);
  return c.json(invoice, 201);
};
