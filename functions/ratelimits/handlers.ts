// The rate-limit handlers: validated input → sql.ts, or check() (check.ts) for the check → responses
// and problems. Every change made here clears what this isolate's deny cache and policy memory hold of it.

import type { RouteHandler } from "@hono/zod-openapi";
import { auditEntry } from "../core/audit";
import { visibleNames } from "../core/auth";
import type { AppEnv } from "../core/context";
import { notFound, problem, validationProblem } from "../core/errors";
import { decodeCursor, encodeCursor, isInstant, isInt8, namePage } from "../core/validation";
import { denyCache, denyCacheFor } from "./cache";
import { check, noPolicy, quotaExceeded } from "./check";
import * as views from "./dashboard/sql";
import type * as routes from "./routes";
import * as sql from "./sql";

export const putRateLimitPolicy: RouteHandler<typeof routes.putRateLimitPolicy, AppEnv> = async (c) => {
  const { name } = c.req.valid("param");
  const mark = denyCache.mark();
  const body = c.req.valid("json");
  const r = await sql.putPolicy(c.var.db, name, body, auditEntry(c.var.caller, c.env ?? {}, "ratelimits.policy.put", name, body));
  // Another change of the policy through this isolate finished meanwhile: which one is newer is
  // unknown here, so its settings are forgotten rather than learnt (the next answer teaches them).
  const alone = !denyCache.changedSince(mark, name);
  denyCache.forget(name);
  if (alone) denyCache.learn(name, r.policy);
  return r.created ? c.json(r.policy, 201) : c.json(r.policy, 200);
};

export const getRateLimitPolicy: RouteHandler<typeof routes.getRateLimitPolicy, AppEnv> = async (c) => {
  const { name } = c.req.valid("param");
  const mark = denyCache.mark();
  const policy = await sql.getPolicy(c.var.db, name);
  if (!policy) throw noPolicy(name);
  denyCache.learn(name, policy, mark);
  return c.json(policy, 200);
};

export const deleteRateLimitPolicy: RouteHandler<typeof routes.deleteRateLimitPolicy, AppEnv> = async (c) => {
  const { name } = c.req.valid("param");
  const deleted = await sql.deletePolicy(c.var.db, name, auditEntry(c.var.caller, c.env ?? {}, "ratelimits.policy.delete", name, {}));
  denyCache.forget(name);
  if (!deleted) throw noPolicy(name);
  return c.body(null, 204);
};

export const listRateLimitPolicies: RouteHandler<typeof routes.listRateLimitPolicies, AppEnv> = async (c) => {
  const q = c.req.valid("query");
  const rows = await sql.listPolicies(c.var.db, q.cursor ?? null, q.limit, visibleNames(c));
  return c.json(
    namePage(rows, q.limit, (p) => p.name),
    200,
  );
};

export const listRateLimitPolicyOverrides: RouteHandler<typeof routes.listRateLimitPolicyOverrides, AppEnv> = async (c) => {
  const { name } = c.req.valid("param");
  const q = c.req.valid("query");
  const after = q.cursor ? decodeCursor(q.cursor, ([key, from, ...rest]) => rest.length === 0 && key !== undefined && isInstant(from)) : null;
  const rows = await sql.listPolicyOverrides(c.var.db, name, after && { key: after[0], validFrom: after[1] }, q.limit);
  if (!rows) throw noPolicy(name);
  return c.json(
    namePage(rows, q.limit, (o) => encodeCursor([o.key, o.valid_from])),
    200,
  );
};

/** A change of a key's override clears that key's cached denials; of a pattern's, every key of the policy (any may match). */
function forgetOverridden(policy: string, key: string): void {
  if (key.includes("*")) denyCache.forget(policy);
  else denyCache.forget(policy, key);
}

export const putRateLimitOverride: RouteHandler<typeof routes.putRateLimitOverride, AppEnv> = async (c) => {
  const { name, key } = c.req.valid("param");
  const b = c.req.valid("json");
  const o = { limit: b.limit, valid_from: b.valid_from, valid_to: b.valid_to ?? null, shadow: b.shadow };
  const r = await sql.putOverride(c.var.db, name, key, o, auditEntry(c.var.caller, c.env ?? {}, "ratelimits.override.put", name, { key, ...o }));
  if (r.status === "no_policy") throw noPolicy(name);
  if (r.status === "conflict") {
    throw problem("override-conflict", `${JSON.stringify(key)} already has a ${JSON.stringify(name)} override during part of that period.`, {
      conflicts: r.conflicts ?? [],
    });
  }
  if (r.status === "tie") {
    const others = (r.conflicts ?? []).map((o) => JSON.stringify(o.key)).join(", ");
    throw problem(
      "override-conflict",
      `${JSON.stringify(key)} could tie with the ${JSON.stringify(name)} pattern override ${others}: same literal prefix, a key both match, overlapping periods.`,
      { conflicts: r.conflicts ?? [] },
    );
  }
  forgetOverridden(name, key);
  return r.status === "created" ? c.json(r.override!, 201) : c.json(r.override!, 200);
};

export const listRateLimitOverrides: RouteHandler<typeof routes.listRateLimitOverrides, AppEnv> = async (c) => {
  const { name, key } = c.req.valid("param");
  const items = await sql.listOverrides(c.var.db, name, key);
  if (!items) throw noPolicy(name);
  return c.json({ items }, 200);
};

export const deleteRateLimitOverride: RouteHandler<typeof routes.deleteRateLimitOverride, AppEnv> = async (c) => {
  const { name, key } = c.req.valid("param");
  const { valid_from } = c.req.valid("query");
  const change = { key, valid_from: valid_from ?? null };
  const n = await sql.deleteOverrides(
    c.var.db,
    name,
    key,
    valid_from ?? null,
    auditEntry(c.var.caller, c.env ?? {}, "ratelimits.override.delete", name, change),
  );
  forgetOverridden(name, key);
  if (n === 0) throw notFound(`No matching override of ${JSON.stringify(key)} in ${JSON.stringify(name)}.`);
  return c.body(null, 204);
};

/** POST /v1/ratelimits/check: 200 or 429 with the result (several policies: the 429 is quota-exceeded), or the fail mode's answer. */
export const handleCheck: RouteHandler<typeof routes.checkRoute, AppEnv> = async (c) => {
  const b = c.req.valid("json");
  const r = await check(c.var.db, b, { cache: denyCacheFor(c.env), env: c.env, via: "http" });
  if (r.kind === "failOpen") return c.json(r.body as routes.UnenforcedBody, 200, r.headers);
  if (r.kind === "failClosed" || r.kind === "refused") throw r.refusal;
  if (r.kind === "missing") throw noPolicy(r.missing[0]);
  if (r.kind === "listed") return c.json(r.body, 200, r.headers);
  const { decision: d, headers } = r;
  if (d.result.allowed) return c.json(d.result, 200, headers);
  if (b.policies) throw quotaExceeded(d.result, headers);
  return c.json(d.result, 429, headers);
};

export const refundRateLimit: RouteHandler<typeof routes.refundRateLimit, AppEnv> = async (c) => {
  const b = c.req.valid("json");
  const r = await sql.refund(c.var.db, b.policy, b.key, b.cost);
  denyCache.forget(b.policy, b.key);
  if (!r) throw noPolicy(b.policy);
  const { window_ms: _w, ...body } = r;
  return c.json(body, 200);
};

export const getRateLimitUsage: RouteHandler<typeof routes.getRateLimitUsage, AppEnv> = async (c) => {
  const q = c.req.valid("query");
  const r = await sql.usage(c.var.db, q.policy, q.key, q.from ?? null, q.to ?? null);
  if (!r) throw noPolicy(q.policy);
  if (q.from && r.algorithm === "token_bucket") {
    throw validationProblem("Per-window history (from/to) exists for fixed and sliding windows only.", [
      { in: "query", path: "from", message: "no per-window history for token_bucket policies" },
    ]);
  }
  const hit = denyCacheFor(c.env)?.lookup(q.policy, q.key, 1, Date.now());
  return c.json({ ...r, deny_cached_until: hit ? new Date(hit.until).toISOString() : null }, 200);
};

export const listRateLimitPolicyKeys: RouteHandler<typeof routes.listRateLimitPolicyKeys, AppEnv> = async (c) => {
  const { name } = c.req.valid("param");
  const q = c.req.valid("query");
  const after = q.cursor ? decodeCursor(q.cursor, ([count, key, ...rest]) => rest.length === 0 && key !== undefined && isInt8(count)) : null;
  const r = await views.policyKeys(c.var.db, name, { window: q.window, order: q.order, after: after && { count: after[0], key: after[1] }, limit: q.limit });
  if (!r) throw noPolicy(name);
  const countOf = (k: views.KeyUsageRow) => String(q.order === "used" ? k.consumed : k.rejected);
  return c.json({ ...r, ...namePage(r.items, q.limit, (k) => encodeCursor([countOf(k), k.key])) }, 200);
};

export const getRateLimitPolicyDecisions: RouteHandler<typeof routes.getRateLimitPolicyDecisions, AppEnv> = async (c) => {
  const { name } = c.req.valid("param");
  const items = await views.policyDecisions(c.var.db, name, c.req.valid("query").minutes);
  if (!items) throw noPolicy(name);
  return c.json({ policy: name, items }, 200);
};
