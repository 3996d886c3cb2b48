// The window-limit part of the rateLimit() middleware as one function: what a request limited by
// these policies answers (through, with headers; or a refusal: 429, 503, 504). The middleware runs it
// on a database handle of its own; Admit's RPC entrypoint (functions/rpc/) runs it for a Worker that
// calls over a Service Binding, so both answer exactly the same.
import type { Queryable, RequestDb } from "../core/db";
import { type Problem, problem } from "../core/errors";
import { type Budget, budgetFor, isUnenforced, type Unenforced, unenforcedResponse, withinBudget } from "./budget";
import type { DenyCache } from "./cache";
import { checkRateLimit, checkRateLimits, quotaExceeded, type RateLimitDecision, type RateLimitResult } from "./decide";
import { rateLimitHeaders, withConcurrency } from "./headers";
import type { FailMode } from "./sql";

/** A window-limit check as the middleware asks it (also the input of the RPC method `rateLimitGate`). */
export interface GateInput {
  /** One policy… */
  policy?: string;
  /** …or several at once (1–8), all-or-nothing. */
  policies?: string[];
  key: string;
  cost?: number;
  info?: Record<string, unknown>;
  /** Override the policies' own latency budget and fail mode (see RateLimitOptions). */
  timeout_ms?: number;
  on_unavailable?: FailMode;
}

/**
 * What the request gets: `pass: true` goes through to the handler with `headers` (RateLimit-*, or
 * `Admit-RateLimit-Enforced: false` when `unenforced`: the database did not decide and the fail
 * mode is "allow"); `pass: false` is the refusal to answer as it is (problem+json with `headers`).
 */
export type GateAnswer =
  | { pass: true; headers: Record<string, string>; unenforced: boolean; result?: RateLimitResult }
  | { pass: false; status: number; problem: Problem; headers: Record<string, string> };

/** A concurrency limit's item in the headers (the middleware's `concurrency` option), when there is one. */
type ConcurrencyItem = { name: string; permits: number };

export async function windowGate(
  db: Queryable & Pick<RequestDb, "remainingMs">,
  input: GateInput,
  cache: DenyCache | null,
  budget: Budget,
  concurrency?: ConcurrencyItem,
): Promise<GateAnswer> {
  const names = input.policies ?? (input.policy === undefined ? [] : [input.policy]);
  const multi = input.policies !== undefined;
  const check = { key: input.key, cost: input.cost, info: input.info };
  const outcome = await withinBudget(
    budget,
    () => (multi ? checkRateLimits(db, { ...check, policies: names }, cache, budget) : checkRateLimit(db, { ...check, policy: names[0] }, cache, budget)),
    multi ? { policies: names, key: input.key } : { policy: names[0], key: input.key },
  );
  if (isUnenforced(outcome)) {
    const u = unenforcedResponse(outcome);
    if (u.status !== 200) return { pass: false, status: u.status, problem: u.body as Problem, headers: u.headers };
    // Fail open: through to the handler, saying the limit was not enforced.
    return { pass: true, headers: u.headers, unenforced: true };
  }
  if (outcome === null || "missing" in outcome) {
    const missing = outcome === null ? names : outcome.missing;
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
  let headers = rateLimitHeaders(outcome);
  if (concurrency) headers = withConcurrency(headers, concurrency, concurrency.permits);
  const { result } = outcome;
  if (result.allowed) return { pass: true, headers, unenforced: false, result };
  const p = multi
    ? quotaExceeded(result, headers)
    : problem("rate-limited", `${JSON.stringify(result.key)} is over the limit of ${JSON.stringify(result.policy)}.`, { ...result }, headers);
  return { pass: false, status: 429, problem: p.problem, headers: p.headers };
}

/**
 * One check of POST /v1/ratelimits/check (and of the RPC method `checkRateLimit`): one policy or
 * several, under the policies' budget. The decision, the fail mode's answer when the database did
 * not decide in time, or the policies that do not exist.
 */
export async function checkOnce(
  db: Queryable & Pick<RequestDb, "remainingMs">,
  b: { policy?: string; policies?: string[]; key: string; cost?: number; info?: Record<string, unknown> },
  cache: DenyCache | null,
): Promise<RateLimitDecision | Unenforced | { missing: string[] }> {
  const names = b.policies ?? [b.policy!];
  const budget = budgetFor(db, names);
  const input = { key: b.key, cost: b.cost, info: b.info };
  const d = await withinBudget(
    budget,
    () =>
      b.policies ? checkRateLimits(db, { ...input, policies: b.policies }, cache, budget) : checkRateLimit(db, { ...input, policy: b.policy! }, cache, budget),
    b.policies ? { policies: b.policies, key: b.key } : { policy: b.policy, key: b.key },
  );
  return d === null ? { missing: names } : d;
}
