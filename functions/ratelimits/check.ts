// The window check of rate limits: the one entry every entrance decides through — POST
// /v1/ratelimits/check (handlers.ts), /v1/authz (authz.ts), the RPC method checkRateLimit (rpc.ts)
// and the rateLimit() middleware with its RPC twin rateLimitGate (admission.ts). check() takes the
// budget (budget.ts), decides (decide.ts: the deny cache, else one statement), answers the fail mode
// when the database does not decide in time, and counts and logs the outcome (observe.ts). It
// returns what happened as a value; each entrance only shapes it into its own response.
import type { Queryable, RequestDb } from "../core/db";
import type { Bindings } from "../core/env";
import { notFound, type Problem, ProblemError, problem } from "../core/errors";
import { type Budget, budgetFor, failureOf, isUnenforced, type Unenforced, waitedMs, withinBudget } from "./budget";
import type { DenyCache } from "./cache";
import { decideMany, decideOne, type RateLimitDecision, type RateLimitResult } from "./decide";
import { NOT_ENFORCED_HEADER, rateLimitHeaders, serverTiming } from "./headers";
import { type ListedAnswer, listedAnswer } from "./lists/answer";
import { type ListMatch, listCacheFor } from "./lists/cache";
import { observe, observeListed, type Via } from "./observe";

/** A window check as every entrance asks it: one policy, or several at once (1–8, all-or-nothing). */
export interface CheckRequest {
  policy?: string;
  policies?: string[];
  key: string;
  cost?: number;
  info?: Record<string, unknown>;
  /** The client's IP address, for the deny/allow lists' ip entries (the entrance says where it comes from). */
  ip?: string;
  /** The client's country (ISO 3166-1 alpha-2), for the lists' country entries. */
  country?: string;
}

/**
 * Where a check is decided, counted and logged: the isolate's deny cache (null when it is off), the
 * Worker's bindings (the tally, the log settings) and the entrance. `env` and `via` are never
 * optional, so no entrance can decide without counting: a deny-cache answer never reaches Postgres,
 * and is in `attempted`/`rejected` only through observe().
 */
export interface CheckContext {
  cache: DenyCache | null;
  env: Bindings | undefined;
  via: Via;
  /** The latency budget and fail mode; by default the policies' own (budgetFor). */
  budget?: Budget;
}

/**
 * What a check comes to:
 * - `decided`: the database or the deny cache decided (`decision.result.allowed` says which way),
 *   with its RateLimit headers;
 * - `failOpen`: the database did not decide within the budget and every policy fails open: the
 *   body (`allowed: true`, `reason`, `consumed`) and `Admit-RateLimit-Enforced: false`;
 * - `failClosed`: it did not decide and a policy fails closed: the request handle's own honest
 *   problem (503 when nothing was consumed, 504 when a unit may have been) with `reason`,
 *   `consumed`, `timeout_ms` and its Retry-After;
 * - `missing`: a policy asked does not exist; nothing was counted;
 * - `listed`: an allow list entry let the call through without counting (`body`, `headers`);
 * - `refused`: a deny list entry refused it (403 `denied-by-list`): no counter was touched.
 */
export type Checked =
  | { kind: "decided"; decision: RateLimitDecision; headers: Record<string, string> }
  | ListedAnswer
  | { kind: "failOpen"; body: Unenforced; headers: Record<string, string> }
  | { kind: "failClosed"; refusal: ProblemError }
  | { kind: "missing"; missing: string[] };

/** The policies a check or middleware input names (none: a concurrency limit alone). */
export function policyNames(input: { policy?: string; policies?: string[] }): string[] {
  return input.policies ?? (input.policy === undefined ? [] : [input.policy]);
}

/**
 * One window check: one policy or several, under `ctx.budget` (by default the policies'): first the
 * deny/allow lists (this isolate's copy, lists/cache.ts: no statement), then the deny cache or one
 * statement; counted and logged as `ctx` says.
 */
export async function check(db: Queryable & Pick<RequestDb, "remainingMs">, req: CheckRequest, ctx: CheckContext): Promise<Checked> {
  const names = policyNames(req);
  const budget = ctx.budget ?? budgetFor(db, names);
  const input = { key: req.key, cost: req.cost, info: req.info };
  const lists = listCacheFor(ctx.env);
  const d = await withinBudget(
    budget,
    async () => {
      const listed = lists && (await lists.current(db.keepAlive?.bind(db))).decide(names, req, Date.now());
      if (listed) return { listed } as { listed: ListMatch };
      return req.policies ? decideMany(db, { ...input, policies: names }, ctx.cache, budget) : decideOne(db, { ...input, policy: names[0] }, ctx.cache, budget);
    },
    req.policies ? { policies: names, key: req.key } : { policy: names[0], key: req.key },
  );
  if (d !== null && "listed" in d) {
    observeListed(ctx.env, ctx.via, names, req, d.listed);
    return listedAnswer(names, req, d.listed, Boolean(req.policies));
  }
  if (d === null || "missing" in d) return { kind: "missing", missing: d === null ? names : d.missing };
  observe(ctx.env, ctx.via, names, req, d, isUnenforced(d) ? waitedMs(d) : d.db_ms);
  if (isUnenforced(d)) return unenforcedAnswer(d);
  return { kind: "decided", decision: d, headers: rateLimitHeaders(d) };
}

/**
 * The fail mode's answer (also for a concurrency permit, admission.ts). Fail closed is the request
 * handle's own problem with `reason`, `consumed` and `timeout_ms` added: 503 + Retry-After when the
 * check certainly consumed nothing (`database-unavailable`, `lock-timeout`, …), 504
 * `outcome-unknown` (+ Retry-After) when the statement was sent and no answer came — never a 503
 * that hides a write (docs/reliability.md).
 */
export function unenforcedAnswer(u: Unenforced): Extract<Checked, { kind: "failOpen" | "failClosed" }> {
  const headers: Record<string, string> = { [NOT_ENFORCED_HEADER]: `false; reason=${u.reason}`, "Server-Timing": serverTiming(waitedMs(u), "none") };
  if (u.allowed) return { kind: "failOpen", body: { ...u }, headers };
  const cause = failureOf(u);
  const { allowed: _a, ...fields } = u;
  return { kind: "failClosed", refusal: new ProblemError({ ...cause.problem, ...fields } as Problem, { "Retry-After": "1", ...cause.headers, ...headers }) };
}

/** 404 for a check naming a policy that does not exist. */
export function noPolicy(policy: string): ProblemError {
  return notFound(`No rate-limit policy named ${JSON.stringify(policy)}.`);
}

/** The 429 of a multi-policy check: a quota-exceeded problem naming the violated policies (draft -11, §6). */
export function quotaExceeded(result: RateLimitResult, headers: Record<string, string>): ProblemError {
  const violated = result.violated_policies ?? [result.policy];
  return problem(
    "quota-exceeded",
    `${JSON.stringify(result.key)} is over the limit of ${violated.map((v) => JSON.stringify(v)).join(", ")}; nothing was consumed.`,
    { "violated-policies": violated, ...result },
    headers,
  );
}
