// A rate-limit decision: one policy (decideOne) or several at once, all-or-nothing (decideMany),
// each from the deny cache when it knows the answer is "denied", otherwise from ONE SQL statement on
// the database clock (sql.ts: admit_ratelimit_check, _multi, or a coalesced _batch of both; read
// them in schema/current/ratelimits.sql). Every entrance decides through check() (check.ts), which
// calls these under the budget and counts every answer; called alone they count nothing in the tally.
import { UNSENT } from "../core/coalesce";
import type { Queryable } from "../core/db";
import { type Budget, lockTimeoutWithin } from "./budget";
import { type DenyCache, type DenyEntry, denyCache } from "./cache";
import type { CheckRow } from "./sql";
import * as sql from "./sql";

/**
 * Why a check answered as it did: `limit` (the database decided), `cache` (this isolate's deny cache
 * refused without asking), `timeout` / `unavailable` (the database did not decide in time: the
 * policy's fail mode answered), `not-checked` (a policy of a multi-policy check the cache answer did
 * not need to look at).
 */
export type RateLimitReason = "limit" | "cache" | "timeout" | "unavailable" | "not-checked";

/** The flat result every check answers (body of /v1/ratelimits/check, `@upstash/ratelimit`-like). */
export interface RateLimitResult {
  allowed: boolean;
  policy: string;
  key: string;
  limit: number;
  remaining: number;
  reset_ms: number;
  retry_after_ms?: number;
  reason: RateLimitReason;
  /** Multi-policy checks: one result per policy, in the order asked. */
  results?: PolicyResult[];
  /** Multi-policy checks, when denied: the policies that refused. */
  violated_policies?: string[];
  /**
   * Present (true) when a limit in shadow mode would have refused this call: it was let through
   * (`allowed: true`), and counted as refused (`would_refuse`). Several policies: one of them did.
   */
  shadow?: true;
}

/** One policy's part of a multi-policy check. `allowed` is this policy's own verdict. */
export interface PolicyResult {
  allowed?: boolean;
  policy: string;
  key: string;
  limit?: number;
  remaining?: number;
  reset_ms?: number;
  retry_after_ms?: number;
  reason: RateLimitReason;
  /** This policy is in shadow mode for the key and refused (`allowed: false`): it did not refuse the check. */
  shadow?: true;
}

export interface RateLimitDecision {
  result: RateLimitResult;
  window_ms: number;
  /** true when the in-isolate deny cache answered and Postgres was not asked. */
  cached: boolean;
  /**
   * Every policy of the check, in the order asked, with its window (null when not known): what the
   * headers list. A deny-cache answer adds the start of the window each cached denial was decided in
   * (DenyEntry.windowStart), where its call is counted.
   */
  policies: Array<{ result: PolicyResult; window_ms: number | null; windowStart?: number | null; uncounted?: true }>;
  /** Time spent waiting for the database (ms; 0 when the deny cache answered): Server-Timing's `db`. */
  db_ms: number;
}

export interface CheckInput {
  policy: string;
  key: string;
  /** Units this call takes (default 1); 0 = peek (consumes nothing; "allowed" means one unit fits). */
  cost?: number;
  /** A small JSON object stored in the request log when the policy has `log: true`. */
  info?: Record<string, unknown>;
}

export interface MultiCheckInput extends Omit<CheckInput, "policy"> {
  /** 1–8 distinct policy names: admitted only if every one admits; when any denies, none consumes. */
  policies: string[];
}

/** Where this isolate's changes stood when a check left for the database (DenyCache.mark). */
interface Marks {
  policies: number;
  cache?: number;
}

function mark(cache: DenyCache | null): Marks {
  return { policies: denyCache.mark(), cache: cache?.mark() };
}

/**
 * Remember what the database said about one policy of `key`: the deny cache only ever records
 * denials. Nothing is stored when the policy or key was changed through this isolate after `marks`
 * (the answer was decided before that change).
 */
function remember(cache: DenyCache | null, r: CheckRow, fits: boolean, cost: number, now: number, marks: Marks): void {
  denyCache.learn(r.policy, r, marks.policies);
  if (!cache || r.log) return; // A logged policy wants every call in its log and its attempted count.
  if (r.shadow) return; // A limit in shadow mode never refuses: every call is decided and counted by the database.
  const windowStart = r.at === undefined ? null : Math.floor(r.at / r.window_ms) * r.window_ms;
  const common = { limit: r.limit, remaining: r.remaining, resetAt: now + r.reset_ms, windowMs: r.window_ms, windowStart };
  if (r.remaining === 0 && r.wait1_ms !== null && r.wait1_ms > 0) {
    // Nothing left: every call of any cost is refused until one unit comes back.
    cache.remember(r.policy, r.key, { ...common, minCost: 1, until: now + r.wait1_ms }, marks.cache);
  } else if (!fits && r.retry_after_ms !== null && r.retry_after_ms > 0 && cost > 0) {
    // Some units left but not `cost` of them: refuse this cost (or more) until it fits.
    cache.remember(r.policy, r.key, { ...common, minCost: cost, until: now + r.retry_after_ms }, marks.cache);
  }
  // An admit with units left does not clear an entry: under a burst it may be an older answer
  // arriving after a newer "nothing left", and an entry only ever stands until its own moment.
}

/**
 * One policy's answer as a result. A refusal of a limit in shadow mode is let through (`allowed:
 * true, shadow: true`) unless `own` asks for the policy's own verdict (a part of a several-policies
 * check: `allowed: false, shadow: true`, and the check itself decides).
 */
function flat(r: CheckRow, reason: RateLimitReason, own = false): RateLimitResult {
  const shadowed = !r.allowed && r.shadow === true;
  const allowed = r.allowed || (shadowed && !own);
  const result: RateLimitResult = { allowed, policy: r.policy, key: r.key, limit: r.limit, remaining: r.remaining, reset_ms: r.reset_ms, reason };
  if (!r.allowed && r.retry_after_ms !== null && !allowed) result.retry_after_ms = r.retry_after_ms;
  if (shadowed) result.shadow = true;
  return result;
}

/** A part of a several-policies check that refuses it: a refusal not in shadow mode. */
const refuses = (r: PolicyResult) => r.allowed === false && !r.shadow;

function fromCache(policy: string, key: string, hit: DenyEntry, now: number): RateLimitResult {
  return {
    allowed: false,
    policy,
    key,
    limit: hit.limit,
    remaining: hit.remaining,
    reset_ms: Math.max(0, hit.resetAt - now),
    retry_after_ms: Math.max(1, hit.until - now),
    reason: "cache",
  };
}

/**
 * The most restrictive of several results, whose flat fields a multi-policy answer carries: when
 * denied, the refusing policy with the longest wait (one that can never admit this cost first; a
 * policy in shadow mode never refuses);
 * when admitted, the policy with the fewest units left (the first asked, on a tie).
 */
export function mostRestrictive(results: PolicyResult[]): PolicyResult {
  const denied = results.filter(refuses);
  if (denied.length) {
    return denied.reduce((a, b) => (a.retry_after_ms === undefined ? a : b.retry_after_ms === undefined || b.retry_after_ms > a.retry_after_ms ? b : a));
  }
  return results.reduce((a, b) => ((b.remaining ?? Infinity) < (a.remaining ?? Infinity) ? b : a));
}

/**
 * Sends a check (`send`, given `known`) and returns the database's row; or the cache's answer when
 * the check left the coalescer's queue unsent because, while it waited to join a batch of a burst,
 * an earlier batch taught the cache a denial that covers it (`denied`; `answer` builds the decision).
 * Counts the check as a database call unless it never went.
 */
async function sentUnlessDenied<H, R>(
  cache: DenyCache | null,
  denied: (now: number) => H | undefined,
  answer: (hits: H, now: number) => RateLimitDecision,
  send: (known?: () => boolean) => Promise<R | typeof UNSENT>,
): Promise<{ row: R } | { cached: RateLimitDecision }> {
  const known = cache ? () => denied(Date.now()) !== undefined : undefined;
  if (cache) cache.dbCalls++;
  for (;;) {
    const r = await send(known);
    if (r !== UNSENT) return { row: r };
    const now = Date.now();
    const hits = denied(now);
    if (hits !== undefined) {
      cache!.dbCalls--; // it never went
      return { cached: answer(hits, now) };
    }
    // The entry lapsed between the queue and here (a moment): ask the database after all.
  }
}

/** What a check sends with its policy or policies: the key, cost and info, and the waits its budget allows. */
function checkArgs(db: Queryable, input: { key: string; info?: CheckInput["info"] }, cost: number, budget?: Budget): sql.CheckArgs {
  return { key: input.key, cost, info: input.info, lockTimeoutMs: lockTimeoutWithin(db, budget), withinMs: budget?.timeoutMs };
}

/**
 * One decision: from the deny cache when it knows the answer is "denied", otherwise ONE SQL
 * statement (policy + override lookup, counting and log row together, on the database clock).
 * Returns null when the policy does not exist. A deny-cache answer is counted by no statement: the
 * entrances decide through check() (check.ts), which counts every answer (observe.ts).
 */
export async function decideOne(db: Queryable, input: CheckInput, cache: DenyCache | null = denyCache, budget?: Budget): Promise<RateLimitDecision | null> {
  const cost = input.cost ?? 1;
  const denied = (now: number) => cache?.lookup(input.policy, input.key, cost, now);
  const fromHit = (hit: DenyEntry, now: number): RateLimitDecision => {
    cache!.hits++;
    const result = fromCache(input.policy, input.key, hit, now);
    return { cached: true, window_ms: hit.windowMs, result, policies: [{ result, window_ms: hit.windowMs, windowStart: hit.windowStart }], db_ms: 0 };
  };
  const started = Date.now();
  const hit = denied(started);
  if (hit) return fromHit(hit, started);
  const marks = mark(cache);
  const t0 = performance.now();
  const args = checkArgs(db, input, cost, budget);
  // The deny cache learns from the answer as soon as it comes back (in a batch: as the batch lands).
  const learn = (r: sql.CheckRow | null) => {
    if (r) remember(cache, r, r.allowed, cost, Date.now(), marks);
  };
  const sent = await sentUnlessDenied(cache, denied, fromHit, (known) => sql.check(db, input.policy, args, { known, learn }));
  if ("cached" in sent) return sent.cached;
  const r = sent.row;
  if (!r) {
    cache?.forget(input.policy);
    denyCache.policies.delete(input.policy);
    return null;
  }
  const db_ms = performance.now() - t0;
  const result = flat(r, "limit");
  // A refusal answered from a read wrote nothing: the tally counts the call (observe.ts), as a deny-cache answer.
  const read = r.counted === false ? { uncounted: true as const, windowStart: r.window_start_ms ?? null } : {};
  return { cached: false, window_ms: r.window_ms, result, policies: [{ result, window_ms: r.window_ms, ...read }], db_ms };
}

/**
 * Several policies of one key in ONE statement, all-or-nothing (sql.checkMulti).
 * The deny cache answers only when one of the policies is known denied for this cost and every policy
 * is known (from earlier answers in this isolate) not to log: a logged policy wants every call.
 * Returns `{ missing }` when some policy does not exist (nothing counted).
 */
export async function decideMany(
  db: Queryable,
  input: MultiCheckInput,
  cache: DenyCache | null = denyCache,
  budget?: Budget,
): Promise<RateLimitDecision | { missing: string[] }> {
  const cost = input.cost ?? 1;
  // The cache's denials of this check's policies, when it may answer (see above), or undefined.
  const denied = (now: number) => {
    if (!cache || !input.policies.every((p) => denyCache.policies.get(p)?.log === false)) return undefined;
    const hits = input.policies.map((p) => cache.lookup(p, input.key, cost, now));
    return hits.some(Boolean) ? hits : undefined;
  };
  const fromHits = (hits: Array<DenyEntry | undefined>, now: number): RateLimitDecision => {
    cache!.hits++;
    const policies = input.policies.map((p, i) => {
      const hit = hits[i];
      const result: PolicyResult = hit ? fromCache(p, input.key, hit, now) : { policy: p, key: input.key, reason: "not-checked" };
      return { result, window_ms: hit ? hit.windowMs : null, windowStart: hit?.windowStart };
    });
    return multiDecision(policies, true, 0);
  };
  const started = Date.now();
  const hits = denied(started);
  if (hits) return fromHits(hits, started);
  const marks = mark(cache);
  const t0 = performance.now();
  const args = checkArgs(db, input, cost, budget);
  const learn = (r: sql.CheckMultiRow) => {
    if ("missing" in r) return;
    const now = Date.now();
    for (const x of r.results) remember(cache, x, x.allowed, cost, now, marks);
  };
  const sent = await sentUnlessDenied(cache, denied, fromHits, (known) => sql.checkMulti(db, input.policies, args, { known, learn }));
  if ("cached" in sent) return sent.cached;
  const r = sent.row;
  if ("missing" in r) {
    for (const p of r.missing) {
      cache?.forget(p);
      denyCache.policies.delete(p);
    }
    return { missing: r.missing };
  }
  const db_ms = performance.now() - t0;
  const policies = r.results.map((x) => ({ result: flat(x, "limit", true) as PolicyResult, window_ms: x.window_ms }));
  return multiDecision(policies, false, db_ms);
}

function multiDecision(policies: RateLimitDecision["policies"], cached: boolean, db_ms: number): RateLimitDecision {
  const results = policies.map((p) => p.result);
  const top = mostRestrictive(results);
  const allowed = !results.some(refuses);
  const result: RateLimitResult = {
    allowed,
    policy: top.policy,
    key: top.key,
    limit: top.limit!,
    remaining: top.remaining!,
    reset_ms: top.reset_ms!,
    reason: top.reason,
    results,
  };
  if (!allowed) {
    const violated = results.filter(refuses);
    // Retry after the longest wait among the refusing policies; none when one of them can never admit this cost.
    if (violated.every((v) => v.retry_after_ms !== undefined)) result.retry_after_ms = Math.max(...violated.map((v) => v.retry_after_ms!));
    result.violated_policies = violated.map((v) => v.policy);
  } else if (results.some((r) => r.shadow)) {
    result.shadow = true;
  }
  return { result, window_ms: policies.find((p) => p.result === top)!.window_ms ?? 0, cached, policies, db_ms };
}
