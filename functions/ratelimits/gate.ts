// The rateLimit() middleware's decision as one function, gate(): what a request limited by these
// policies and/or a concurrency limit answers (through, with headers and perhaps a permit to give
// back; or a refusal: 429, 503, 504). The middleware runs it on a database handle of its own;
// Admit's RPC entrypoint (functions/http/rpc/) runs it for a Worker that calls over a Service Binding,
// so both answer exactly the same. checkOnce() is the window check they and POST
// /v1/ratelimits/check share; checkOrThrow() is that route's answer, over HTTP and RPC.
import { z } from "@hono/zod-openapi";
import { type AuditEntry, auditEntry } from "../core/audit";
import type { Queryable, RequestDb } from "../core/db";
import type { Bindings } from "../core/env";
import { notFound, type Problem, ProblemError, problem } from "../core/errors";
import { bodyOf, Holder, MAX_PERMITS, TtlMs, valid } from "../core/validation";
import { type Budget, budgetFor, isUnenforced, lockTimeoutWithin, type Unenforced, unenforcedResponse, waitedMs, withinBudget } from "./budget";
import { DEFAULT_TIMEOUT_MS, type DenyCache } from "./cache";
import { checkRateLimit, checkRateLimits, quotaExceeded, type RateLimitDecision, type RateLimitResult } from "./decide";
import { rateLimitHeaders, withConcurrency } from "./headers";
import { observe, type Via } from "./observe";
import { checkRateLimit as checkRoute } from "./routes";
import { PolicyName } from "./schemas";
import type { AcquireRow, FailMode } from "./sql";
import * as sql from "./sql";

/** A request's check as the middleware asks it (also the input of the RPC method `rateLimitGate`). */
export interface GateInput {
  /** One policy… */
  policy?: string;
  /** …or several at once (1–8), all-or-nothing. */
  policies?: string[];
  /** Who is limited (required with `policy`/`policies`). */
  key?: string;
  cost?: number;
  info?: Record<string, unknown>;
  /** Override the policies' own latency budget and fail mode (see RateLimitOptions). */
  timeout_ms?: number;
  on_unavailable?: FailMode;
  /** A concurrency limit: a permit of this semaphore (created with `permits` on first use), to give back after the response. */
  concurrency?: { name: string; permits: number; ttl_ms?: number };
  /** Who holds the permit (for GET /v1/semaphores/{name}): the middleware says "METHOD /path". */
  holder?: string;
}

const GateSettings = z.strictObject({
  timeout_ms: z.number().int().min(1).max(60_000).optional(),
  on_unavailable: z.enum(["deny", "allow"]).optional(),
  concurrency: z
    .strictObject({
      name: PolicyName,
      permits: z.number().int().min(1).max(MAX_PERMITS),
      ttl_ms: TtlMs.optional(),
    })
    .optional(),
  holder: Holder.optional(),
});

const CHECK_FIELDS_UNREAD = z.strictObject({ key: z.unknown(), cost: z.unknown(), info: z.unknown() }).partial();

/**
 * The gate's input checked by POST /v1/ratelimits/check's own rules (key 1–500 characters, cost a
 * whole number ≥ 0, …) plus the middleware's settings, or a 422 naming what is wrong. Both ways of
 * running the middleware go through it — over the binding and on a database handle of its own — so
 * a key or cost from the caller's functions is refused alike: a negative cost would give units back.
 */
export function validGateInput(input: GateInput | undefined): GateInput {
  const { timeout_ms, on_unavailable, concurrency, holder, ...check } = input ?? ({} as GateInput);
  const settings = valid(GateSettings, { timeout_ms, on_unavailable, concurrency, holder }, "json");
  const windows = check.policy !== undefined || check.policies !== undefined || !concurrency;
  // A concurrency limit alone reads none of a check's fields; any other field is refused either way.
  if (!windows) valid(CHECK_FIELDS_UNREAD, check, "json");
  return { ...(windows ? valid(bodyOf(checkRoute), check, "json") : {}), ...settings };
}

/**
 * What the request gets: `pass: true` goes through to the handler with `headers` (RateLimit-*, or
 * `Admit-RateLimit-Enforced: false` when `unenforced`: the database did not decide and the fail
 * mode is "allow"); `pass: false` is the refusal to answer as it is (problem+json with `headers`).
 */
export type GateAnswer =
  | { pass: true; headers: Record<string, string>; unenforced: boolean; result?: RateLimitResult; permit?: { name: string; permit_id: string } }
  | { pass: false; status: number; problem: Problem; headers: Record<string, string> };

/** The window limits alone: the decision of `policy`/`policies` for `key` (gate() adds the concurrency limit). */
export async function windowGate(
  db: Queryable & Pick<RequestDb, "remainingMs">,
  input: GateInput,
  cache: DenyCache | null,
  budget: Budget,
  seen: Seen,
): Promise<GateAnswer> {
  const multi = input.policies !== undefined;
  const outcome = await checkOnce(
    db,
    { policy: input.policy, policies: input.policies, key: input.key!, cost: input.cost, info: input.info },
    cache,
    seen,
    budget,
  );
  if (isUnenforced(outcome)) {
    const u = unenforcedResponse(outcome);
    if (u.status !== 200) return { pass: false, status: u.status, problem: u.body as Problem, headers: u.headers };
    // Fail open: through to the handler, saying the limit was not enforced.
    return { pass: true, headers: u.headers, unenforced: true };
  }
  if ("missing" in outcome) {
    const { missing } = outcome;
    console.error(`rateLimit(): policy ${missing.map((m) => JSON.stringify(m)).join(", ")} does not exist`);
    // A setup error of the host Worker, not of the caller: refuse (never let calls through unlimited)
    // with a 503 that names the fix, rather than a 500.
    const p = problem(
      "ratelimit-policy-missing",
      `The rate-limit policy ${JSON.stringify(missing[0])} does not exist: create it with PUT /v1/ratelimits/policies/${encodeURIComponent(missing[0])}. Nothing was counted.`,
      {},
      { "Retry-After": "30" },
    );
    return { pass: false, status: 503, problem: p.problem, headers: p.headers };
  }
  const headers = rateLimitHeaders(outcome);
  const { result } = outcome;
  if (result.allowed) return { pass: true, headers, unenforced: false, result };
  const p = multi
    ? quotaExceeded(result, headers)
    : problem("rate-limited", `${JSON.stringify(result.key)} is over the limit of ${JSON.stringify(result.policy)}.`, { ...result }, headers);
  return { pass: false, status: 429, problem: p.problem, headers: p.headers };
}

/** The policies a check or gate input names (none: a concurrency limit alone). */
export function policyNames(input: { policy?: string; policies?: string[] }): string[] {
  return input.policies ?? (input.policy === undefined ? [] : [input.policy]);
}

/**
 * Where a decision is counted and logged: the Worker's bindings (the tally, the log settings) and the
 * entrance. Every function here that decides takes one (never optional), so no entrance can decide
 * without counting: a deny-cache answer never reaches Postgres, and is in `attempted`/`rejected` only
 * through observe().
 */
export interface Seen {
  env: Bindings | undefined;
  via: Via;
}

/**
 * One check of the window limits — POST /v1/ratelimits/check's, /v1/authz's, the RPC method
 * `checkRateLimit`'s and the middleware's (windowGate): one policy or several, under `budget` (by
 * default the policies'), counted and logged as `seen` says. The decision, the fail mode's answer
 * when the database did not decide in time, or the policies that do not exist.
 */
export async function checkOnce(
  db: Queryable & Pick<RequestDb, "remainingMs">,
  b: { policy?: string; policies?: string[]; key: string; cost?: number; info?: Record<string, unknown> },
  cache: DenyCache | null,
  seen: Seen,
  budget: Budget = budgetFor(db, policyNames(b)),
): Promise<RateLimitDecision | Unenforced | { missing: string[] }> {
  const names = policyNames(b);
  const input = { key: b.key, cost: b.cost, info: b.info };
  const d = await withinBudget(
    budget,
    () => (b.policies ? checkRateLimits(db, { ...input, policies: names }, cache, budget) : checkRateLimit(db, { ...input, policy: names[0] }, cache, budget)),
    b.policies ? { policies: names, key: b.key } : { policy: names[0], key: b.key },
  );
  if (d === null || "missing" in d) return { missing: d === null ? names : d.missing };
  observe(seen.env, seen.via, names, b, d, isUnenforced(d) ? waitedMs(d) : d.db_ms);
  return d;
}

/** 404 for a check naming a policy that does not exist. */
export function noPolicy(policy: string): ProblemError {
  return notFound(`No rate-limit policy named ${JSON.stringify(policy)}.`);
}

/**
 * The check route's decision, as both its HTTP handler and the RPC method answer it: the decision,
 * or the fail-open answer with its headers. A fail-closed answer (503/504, its Retry-After) and a
 * missing policy (404) are thrown.
 */
export async function checkOrThrow(
  db: Queryable & Pick<RequestDb, "remainingMs">,
  b: { policy?: string; policies?: string[]; key: string; cost?: number; info?: Record<string, unknown> },
  cache: DenyCache | null,
  seen: Seen,
): Promise<{ decision: RateLimitDecision } | { failOpen: Record<string, unknown>; headers: Record<string, string> }> {
  const d = await checkOnce(db, b, cache, seen);
  if (isUnenforced(d)) {
    const u = unenforcedResponse(d);
    if (u.status !== 200) throw new ProblemError(u.body as Problem, u.headers);
    return { failOpen: u.body, headers: u.headers };
  }
  if ("missing" in d) throw noPolicy(d.missing[0]);
  return { decision: d };
}

/**
 * The budget and fail mode of a gate(): with window limits, their policies' (the input's
 * `timeout_ms` / `on_unavailable` win); a concurrency limit alone: the input's, else 5 000 ms / deny.
 */
export function gateBudget(db: Pick<RequestDb, "remainingMs">, input: GateInput): Budget {
  const names = policyNames(input);
  if (names.length) return budgetFor(db, names, input);
  return { timeoutMs: Math.max(1, Math.min(input.timeout_ms ?? DEFAULT_TIMEOUT_MS, db.remainingMs())), onUnavailable: input.on_unavailable ?? "deny" };
}

/**
 * The audit row of a semaphore created on first use (docs/keys.md): made by the host Worker's
 * rateLimit() middleware on its own database handle (actor "rateLimit()": no key made the change), or
 * over the binding (actor "binding", rateLimitGate).
 */
function firstUseAudit(seen: Seen, conc: NonNullable<GateInput["concurrency"]>, ttlMs: number): AuditEntry {
  const change = { permits: conc.permits, default_ttl_ms: ttlMs, created_on_first_use: true };
  const entry = auditEntry(seen.via === "rpc" ? { kind: "binding" } : undefined, seen.env ?? {}, "semaphores.put", conc.name, change);
  return seen.via === "rpc" ? entry : { ...entry, actor: { id: null, name: "rateLimit()" } };
}

async function acquire(db: RequestDb, conc: NonNullable<GateInput["concurrency"]>, holder: string, budget: Budget, seen: Seen): Promise<AcquireRow> {
  const within = () => ({ lockTimeoutMs: lockTimeoutWithin(db, budget), withinMs: budget.timeoutMs });
  let r = await sql.acquirePermit(db, conc.name, holder, conc.ttl_ms ?? null, within());
  if (r.status === "not_found") {
    // First use: create it with the configured size (an existing one is never resized here), then take a permit.
    const ttlMs = conc.ttl_ms ?? 60_000;
    await sql.createSemaphore(db, conc.name, conc.permits, ttlMs, within(), firstUseAudit(seen, conc, ttlMs));
    r = await sql.acquirePermit(db, conc.name, holder, conc.ttl_ms ?? null, within());
  }
  return r;
}

/**
 * The whole decision of the rateLimit() middleware: window limits (windowGate), then, if they let
 * the request through and were enforced, a permit of the concurrency limit. A permit in the answer
 * must be released after the response (sql.releasePermit; its TTL frees it otherwise).
 */
export async function gate(db: RequestDb, input: GateInput, cache: DenyCache | null, budget: Budget, seen: Seen): Promise<GateAnswer> {
  const names = policyNames(input);
  const conc = input.concurrency;
  let headers: Record<string, string> = {};
  let windowHeaders: Record<string, string> = {};
  if (names.length) {
    const w = await windowGate(db, input, cache, budget, seen);
    if (!w.pass) return conc && w.status === 429 ? { ...w, headers: withConcurrency(w.headers, conc, conc.permits) } : w;
    // The database just failed to answer within the budget and the policies fail open: do not wait
    // a second budget for a permit; the concurrency limit is not enforced either (the header says so).
    if (!conc || w.unenforced) return w;
    windowHeaders = w.headers;
    headers = withConcurrency(w.headers, conc, conc.permits);
  }
  if (!conc) throw new Error("gate(): give `policy`, `policies` or `concurrency`");
  const r = await withinBudget(budget, () => acquire(db, conc, (input.holder ?? "rateLimit()").slice(0, 200), budget, seen), {
    policy: conc.name,
    key: conc.name,
  });
  if (isUnenforced(r)) {
    const u = unenforcedResponse(r);
    if (u.status !== 200) return { pass: false, status: u.status, problem: u.body as Problem, headers: u.headers };
    return { pass: true, headers: { ...windowHeaders, ...u.headers }, unenforced: true };
  }
  if (r.status === "busy") {
    const h = withConcurrency(windowHeaders, conc, r.permits, 0);
    h["Retry-After"] = String(Math.max(1, Math.ceil(r.retry_after_ms / 1000)));
    const p = problem(
      "concurrency-limited",
      `All ${r.permits} permits of ${JSON.stringify(conc.name)} are in use; the earliest expires at ${r.expires_at}.`,
      { permits: r.permits, in_use: r.in_use, earliest_expires_at: r.expires_at },
      h,
    );
    return { pass: false, status: 429, problem: p.problem, headers: p.headers };
  }
  if (r.status !== "acquired") throw new Error(`rateLimit(): semaphore ${conc.name} answered ${r.status}`);
  if (!names.length) headers = withConcurrency({}, conc, conc.permits);
  return { pass: true, headers, unenforced: false, permit: { name: conc.name, permit_id: r.permit.permit_id } };
}
