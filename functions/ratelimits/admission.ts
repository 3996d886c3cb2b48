// The rateLimit() middleware's decision for one request, admitRequest(): the window limits (the one
// window check, check.ts), then a permit of a concurrency limit if it has one. The answer is through
// (with headers, perhaps a permit to give back) or a refusal to send as it is (429, 503, 504). The
// middleware runs it on a database handle of its own; Admit's RPC entrypoint runs it as
// rateLimitGate for a Worker that calls over a Service Binding, so both answer exactly the same.
import { z } from "@hono/zod-openapi";
import { type AuditEntry, auditEntry } from "../core/audit";
import type { RequestDb } from "../core/db";
import { type Problem, problem } from "../core/errors";
import { bodyOf, Holder, MAX_PERMITS, TtlMs, valid } from "../core/validation";
import { type Budget, budgetFor, isUnenforced, lockTimeoutWithin, withinBudget } from "./budget";
import { DEFAULT_TIMEOUT_MS } from "./cache";
import { type CheckContext, check, policyNames, quotaExceeded, unenforcedAnswer } from "./check";
import type { RateLimitResult } from "./decide";
import { withConcurrency } from "./headers";
import { checkRoute } from "./routes";
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
  /** The client's IP address and country, for the deny/allow lists (the middleware reads them from the request). */
  ip?: string;
  country?: string;
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

const CHECK_FIELDS_UNREAD = z.strictObject({ key: z.unknown(), cost: z.unknown(), info: z.unknown(), ip: z.unknown(), country: z.unknown() }).partial();

/**
 * The middleware's input checked by POST /v1/ratelimits/check's own rules (key 1–500 characters, cost
 * a whole number ≥ 0, …) plus its settings, or a 422 naming what is wrong. Both ways of running the
 * middleware go through it — over the binding and on a database handle of its own — so a key or cost
 * from the caller's functions is refused alike: a negative cost would give units back.
 */
export function validGateInput(input: GateInput | undefined): GateInput {
  const { timeout_ms, on_unavailable, concurrency, holder, ...windows } = input ?? ({} as GateInput);
  const settings = valid(GateSettings, { timeout_ms, on_unavailable, concurrency, holder }, "json");
  const checked = windows.policy !== undefined || windows.policies !== undefined || !concurrency;
  // A concurrency limit alone reads none of a check's fields; any other field is refused either way.
  if (!checked) valid(CHECK_FIELDS_UNREAD, windows, "json");
  return { ...(checked ? valid(bodyOf(checkRoute), windows, "json") : {}), ...settings };
}

/**
 * What the request gets: `pass: true` goes through to the handler with `headers` (RateLimit-*, or
 * `Admit-RateLimit-Enforced: false` when `unenforced`: the database did not decide and the fail
 * mode is "allow"); `pass: false` is the refusal to answer as it is (problem+json with `headers`).
 */
export type GateAnswer =
  | { pass: true; headers: Record<string, string>; unenforced: boolean; result?: RateLimitResult; permit?: { name: string; permit_id: string } }
  | { pass: false; status: number; problem: Problem; headers: Record<string, string> };

/** The window limits alone: check() of `policy`/`policies` for `key`, as the middleware answers it. */
async function admitWindows(db: RequestDb, input: GateInput, ctx: CheckContext): Promise<GateAnswer> {
  const c = await check(
    db,
    { policy: input.policy, policies: input.policies, key: input.key!, cost: input.cost, info: input.info, ip: input.ip, country: input.country },
    ctx,
  );
  switch (c.kind) {
    case "listed":
      // An allow list entry: through to the handler, nothing counted.
      return { pass: true, headers: c.headers, unenforced: false };
    case "failOpen":
      // Through to the handler, saying the limit was not enforced.
      return { pass: true, headers: c.headers, unenforced: true };
    case "refused":
    case "failClosed":
      return { pass: false, status: c.refusal.problem.status, problem: c.refusal.problem, headers: c.refusal.headers };
    case "missing": {
      const { missing } = c;
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
  }
  const { headers } = c;
  const { result } = c.decision;
  if (result.allowed) return { pass: true, headers, unenforced: false, result };
  const p =
    input.policies !== undefined
      ? quotaExceeded(result, headers)
      : problem("rate-limited", `${JSON.stringify(result.key)} is over the limit of ${JSON.stringify(result.policy)}.`, { ...result }, headers);
  return { pass: false, status: 429, problem: p.problem, headers: p.headers };
}

/**
 * The budget and fail mode of admitRequest(): with window limits, their policies' (the input's
 * `timeout_ms` / `on_unavailable` win); a concurrency limit alone: the input's, else 5 000 ms / deny.
 */
export function admissionBudget(db: Pick<RequestDb, "remainingMs">, input: GateInput): Budget {
  const names = policyNames(input);
  if (names.length) return budgetFor(db, names, input);
  return { timeoutMs: Math.max(1, Math.min(input.timeout_ms ?? DEFAULT_TIMEOUT_MS, db.remainingMs())), onUnavailable: input.on_unavailable ?? "deny" };
}

/**
 * The audit row of a semaphore created on first use (docs/api-keys.md): made by the host Worker's
 * rateLimit() middleware on its own database handle (actor "rateLimit()": no key made the change), or
 * over the binding (actor "binding", rateLimitGate).
 */
function firstUseAudit(ctx: CheckContext, conc: NonNullable<GateInput["concurrency"]>, ttlMs: number): AuditEntry {
  const change = { permits: conc.permits, default_ttl_ms: ttlMs, created_on_first_use: true };
  const entry = auditEntry(ctx.via === "rpc" ? { kind: "binding" } : undefined, ctx.env ?? {}, "semaphores.put", conc.name, change);
  return ctx.via === "rpc" ? entry : { ...entry, actor: { id: null, name: "rateLimit()" } };
}

async function acquire(db: RequestDb, conc: NonNullable<GateInput["concurrency"]>, holder: string, budget: Budget, ctx: CheckContext): Promise<AcquireRow> {
  const within = () => ({ lockTimeoutMs: lockTimeoutWithin(db, budget), withinMs: budget.timeoutMs });
  let r = await sql.acquirePermit(db, conc.name, holder, conc.ttl_ms ?? null, within());
  if (r.status === "not_found") {
    // First use: create it with the configured size (an existing one is never resized here), then take a permit.
    const ttlMs = conc.ttl_ms ?? 60_000;
    await sql.createSemaphore(db, conc.name, conc.permits, ttlMs, within(), firstUseAudit(ctx, conc, ttlMs));
    r = await sql.acquirePermit(db, conc.name, holder, conc.ttl_ms ?? null, within());
  }
  return r;
}

/**
 * The whole decision of the rateLimit() middleware under `ctx.budget` (admissionBudget): window
 * limits (check()), then, if they let the request through and were enforced, a permit of the
 * concurrency limit. A permit in the answer must be released after the response
 * (sql.releasePermit; its TTL frees it otherwise).
 */
export async function admitRequest(db: RequestDb, input: GateInput, ctx: CheckContext & { budget: Budget }): Promise<GateAnswer> {
  const { budget } = ctx;
  const names = policyNames(input);
  const conc = input.concurrency;
  let headers: Record<string, string> = {};
  let windowHeaders: Record<string, string> = {};
  if (names.length) {
    const w = await admitWindows(db, input, ctx);
    if (!w.pass) return conc && w.status === 429 ? { ...w, headers: withConcurrency(w.headers, conc, conc.permits) } : w;
    // The database just failed to answer within the budget and the policies fail open: do not wait
    // a second budget for a permit; the concurrency limit is not enforced either (the header says so).
    if (!conc || w.unenforced) return w;
    windowHeaders = w.headers;
    headers = withConcurrency(w.headers, conc, conc.permits);
  }
  if (!conc) throw new Error("admitRequest(): give `policy`, `policies` or `concurrency`");
  const r = await withinBudget(budget, () => acquire(db, conc, (input.holder ?? "rateLimit()").slice(0, 200), budget, ctx), {
    policy: conc.name,
    key: conc.name,
  });
  if (isUnenforced(r)) {
    const u = unenforcedAnswer(r);
    if (u.kind === "failClosed") return { pass: false, status: u.refusal.problem.status, problem: u.refusal.problem, headers: u.refusal.headers };
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
