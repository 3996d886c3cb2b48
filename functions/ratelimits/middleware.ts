// Rate-limit decisions for the /v1/ratelimits/check route and for other Workers: the one-statement
// check (one policy, or several at once, all-or-nothing), the IETF RateLimit headers, the in-isolate
// deny cache and policy memory, the latency budget with its fail mode, and the `rateLimit()` Hono
// middleware (window limits and concurrency limits).
// SQL: schema/000010_ratelimits.sql (admit_ratelimit_check; its fixed-window path: 000011),
// 000015 (admit_ratelimit_check_multi, timeout_ms / on_unavailable). Routes: functions/ratelimits/.
import type { Context, MiddlewareHandler } from "hono";
import { lockKey } from "../core/keys";
import { DEFAULT_BUDGET_MS, RequestDb } from "../core/db";
import type { Bindings } from "../core/env";
import { problem, problemResponse, ProblemError } from "../core/errors";

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
}

export interface RateLimitDecision {
  result: RateLimitResult;
  window_ms: number;
  /** true when the in-isolate deny cache answered and Postgres was not asked. */
  cached: boolean;
  /** Every policy of the check, in the order asked, with its window (null when not known): what the headers list. */
  policies: Array<{ result: PolicyResult; window_ms: number | null }>;
}

interface SqlCheck extends Omit<RateLimitResult, "retry_after_ms" | "reason" | "results" | "violated_policies"> {
  window_ms: number;
  log: boolean;
  retry_after_ms: number | null;
  /** ms until one unit fits again (0 = one fits now); feeds the deny cache. */
  wait1_ms: number | null;
  timeout_ms?: number;
  on_unavailable?: FailMode;
}

type SqlMulti = { missing: string[] } | { allowed: boolean; key: string; results: SqlCheck[] };

export type FailMode = "deny" | "allow";

/** What an isolate knows of a policy from earlier answers (checks, PUT, GET). */
export interface PolicyInfo {
  log: boolean;
  window_ms: number;
  timeout_ms: number;
  on_unavailable: FailMode;
}

interface DenyEntry {
  /** Local time (ms) until which the denial stands. Only elapsed local time is used, never compared with the DB clock. */
  until: number;
  /** The smallest cost this denial covers: a larger cost needs at least as long, a smaller one may fit. */
  minCost: number;
  limit: number;
  remaining: number;
  resetAt: number;
  windowMs: number;
}

const MAX_ENTRIES = 10_000;
/**
 * A check's latency budget when neither the policy (as this isolate last saw it) nor the caller says:
 * the request's default budget. A tighter default (1 s) made a burst of 1000 simultaneous checks on
 * this 2-core machine answer 504 for the ones still queued at the pool after a second — the very
 * bursts Admit exists for; a gateway that wants a tighter bound sets `timeout_ms` on the policy.
 */
export const DEFAULT_TIMEOUT_MS = DEFAULT_BUDGET_MS;

/**
 * Keys known to be denied until a moment, per isolate. It only ever answers "denied": a miss, an
 * expired entry or a cost below the cached one goes to Postgres, so it can never admit a call the
 * database would refuse. It can refuse for a little longer than needed if another isolate refunded
 * or raised an override meanwhile (at most until the cached moment); changes made in this isolate
 * clear the entry at once.
 */
export class DenyCache {
  private readonly byPolicy = new Map<string, Map<string, DenyEntry>>();
  private size = 0;
  /** Decisions answered from the cache. */
  hits = 0;
  /** Decisions that went to Postgres. */
  dbCalls = 0;
  /** Policies as last seen by this isolate (their log flag, window, budget and fail mode). */
  readonly policies = new Map<string, PolicyInfo>();

  learn(policy: string, info: Partial<PolicyInfo> & { log: boolean; window_ms: number }): void {
    const known = this.policies.get(policy);
    if (!known && this.policies.size >= MAX_ENTRIES) this.policies.delete(this.policies.keys().next().value!);
    this.policies.set(policy, {
      log: info.log,
      window_ms: info.window_ms,
      timeout_ms: info.timeout_ms ?? known?.timeout_ms ?? DEFAULT_TIMEOUT_MS,
      on_unavailable: info.on_unavailable ?? known?.on_unavailable ?? "deny",
    });
  }

  lookup(policy: string, key: string, cost: number, now: number): DenyEntry | undefined {
    const keys = this.byPolicy.get(policy);
    const entry = keys?.get(key);
    if (!entry) return undefined;
    if (now >= entry.until) {
      keys!.delete(key);
      this.size--;
      return undefined;
    }
    return Math.max(cost, 1) >= entry.minCost ? entry : undefined;
  }

  remember(policy: string, key: string, entry: DenyEntry): void {
    let keys = this.byPolicy.get(policy);
    if (!keys) this.byPolicy.set(policy, (keys = new Map()));
    if (!keys.has(key)) {
      if (this.size >= MAX_ENTRIES) this.evictOne();
      this.size++;
    }
    keys.set(key, entry);
  }

  /** Forget one key of a policy, or every key of it. */
  forget(policy: string, key?: string): void {
    if (key === undefined) this.policies.delete(policy);
    const keys = this.byPolicy.get(policy);
    if (!keys) return;
    if (key === undefined) {
      this.size -= keys.size;
      this.byPolicy.delete(policy);
    } else if (keys.delete(key)) {
      this.size--;
    }
  }

  private evictOne(): void {
    for (const [policy, keys] of this.byPolicy) {
      for (const key of keys.keys()) {
        keys.delete(key);
        this.size--;
        if (keys.size === 0) this.byPolicy.delete(policy);
        return;
      }
    }
  }
}

/** One cache per isolate, shared by the check route and every `rateLimit()` middleware in it. */
export const denyCache = new DenyCache();

/** The isolate's deny cache, or null when the Worker's `RATELIMIT_DENY_CACHE` var is "off". */
export function denyCacheFor(env: Bindings | undefined): DenyCache | null {
  return env?.RATELIMIT_DENY_CACHE === "off" ? null : denyCache;
}

/** The one statement a single-policy check sends (policy, key, cost, log info, lock timeout in ms). */
export const CHECK_SQL = "SELECT admit_ratelimit_check($1, $2, $3::integer, $4::jsonb, $5::integer) AS r";
/** The one statement a multi-policy check sends (policies, key, cost, log info, lock timeout in ms). */
export const CHECK_MULTI_SQL = "SELECT admit_ratelimit_check_multi($1::text[], $2, $3::integer, $4::jsonb, $5::integer) AS r";

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

/** Remember what the database said about one policy of `key`: the deny cache only ever records denials. */
function remember(cache: DenyCache | null, r: SqlCheck, fits: boolean, cost: number, now: number): void {
  denyCache.learn(r.policy, r);
  if (!cache || r.log) return; // A logged policy wants every call in its log and its attempted count.
  const common = { limit: r.limit, remaining: r.remaining, resetAt: now + r.reset_ms, windowMs: r.window_ms };
  if (r.remaining === 0 && r.wait1_ms !== null && r.wait1_ms > 0) {
    // Nothing left: every call of any cost is refused until one unit comes back.
    cache.remember(r.policy, r.key, { ...common, minCost: 1, until: now + r.wait1_ms });
  } else if (!fits && r.retry_after_ms !== null && r.retry_after_ms > 0 && cost > 0) {
    // Some units left but not `cost` of them: refuse this cost (or more) until it fits.
    cache.remember(r.policy, r.key, { ...common, minCost: cost, until: now + r.retry_after_ms });
  }
  // An admit with units left does not clear an entry: under a burst it may be an older answer
  // arriving after a newer "nothing left", and an entry only ever stands until its own moment.
}

function flat(r: SqlCheck, allowed: boolean, reason: RateLimitReason): RateLimitResult {
  const result: RateLimitResult = { allowed, policy: r.policy, key: r.key, limit: r.limit, remaining: r.remaining, reset_ms: r.reset_ms, reason };
  if (!allowed && r.retry_after_ms !== null) result.retry_after_ms = r.retry_after_ms;
  return result;
}

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
 * denied, the refusing policy with the longest wait (one that can never admit this cost first);
 * when admitted, the policy with the fewest units left (the first asked, on a tie).
 */
export function mostRestrictive(results: PolicyResult[]): PolicyResult {
  const denied = results.filter((r) => r.allowed === false);
  if (denied.length) {
    return denied.reduce((a, b) => (a.retry_after_ms === undefined ? a : b.retry_after_ms === undefined || b.retry_after_ms > a.retry_after_ms ? b : a));
  }
  return results.reduce((a, b) => ((b.remaining ?? Infinity) < (a.remaining ?? Infinity) ? b : a));
}

/**
 * One decision: from the deny cache when it knows the answer is "denied", otherwise ONE SQL
 * statement (policy + override lookup, counting and log row together, on the database clock).
 * Returns null when the policy does not exist.
 */
export async function checkRateLimit(db: RequestDb, input: CheckInput, cache: DenyCache | null = denyCache, budget?: Budget): Promise<RateLimitDecision | null> {
  const cost = input.cost ?? 1;
  const started = Date.now();
  const hit = cache?.lookup(input.policy, input.key, cost, started);
  if (hit) {
    cache!.hits++;
    const result = fromCache(input.policy, input.key, hit, started);
    return { cached: true, window_ms: hit.windowMs, result, policies: [{ result, window_ms: hit.windowMs }] };
  }
  if (cache) cache.dbCalls++;
  const [{ r }] = await db.query<{ r: SqlCheck | null }>(
    CHECK_SQL,
    [input.policy, input.key, cost, input.info === undefined ? null : JSON.stringify(input.info), lockTimeoutWithin(db, budget)],
    { write: cost > 0, withinMs: budget?.timeoutMs },
  );
  if (!r) {
    cache?.forget(input.policy);
    denyCache.policies.delete(input.policy);
    return null;
  }
  remember(cache, r, r.allowed, cost, Date.now());
  const result = flat(r, r.allowed, "limit");
  return { cached: false, window_ms: r.window_ms, result, policies: [{ result, window_ms: r.window_ms }] };
}

/**
 * Several policies of one key in ONE statement, all-or-nothing (admit_ratelimit_check_multi, 000015).
 * The deny cache answers only when one of the policies is known denied for this cost and every policy
 * is known (from earlier answers in this isolate) not to log: a logged policy wants every call.
 * Returns `{ missing }` when some policy does not exist (nothing counted).
 */
export async function checkRateLimits(db: RequestDb, input: MultiCheckInput, cache: DenyCache | null = denyCache, budget?: Budget): Promise<RateLimitDecision | { missing: string[] }> {
  const cost = input.cost ?? 1;
  const started = Date.now();
  if (cache && input.policies.every((p) => denyCache.policies.get(p)?.log === false)) {
    const hits = input.policies.map((p) => cache.lookup(p, input.key, cost, started));
    if (hits.some(Boolean)) {
      cache.hits++;
      const policies = input.policies.map((p, i) => {
        const hit = hits[i];
        const result: PolicyResult = hit ? fromCache(p, input.key, hit, started) : { policy: p, key: input.key, reason: "not-checked" };
        return { result, window_ms: hit ? hit.windowMs : null };
      });
      return multiDecision(policies, true);
    }
  }
  if (cache) cache.dbCalls++;
  const [{ r }] = await db.query<{ r: SqlMulti }>(
    CHECK_MULTI_SQL,
    [input.policies, input.key, cost, input.info === undefined ? null : JSON.stringify(input.info), lockTimeoutWithin(db, budget)],
    { write: cost > 0, withinMs: budget?.timeoutMs },
  );
  if ("missing" in r) {
    for (const p of r.missing) {
      cache?.forget(p);
      denyCache.policies.delete(p);
    }
    return { missing: r.missing };
  }
  const now = Date.now();
  const policies = r.results.map((x) => {
    remember(cache, x, x.allowed, cost, now);
    return { result: flat(x, x.allowed, "limit") as PolicyResult, window_ms: x.window_ms };
  });
  return multiDecision(policies, false);
}

function multiDecision(policies: RateLimitDecision["policies"], cached: boolean): RateLimitDecision {
  const results = policies.map((p) => p.result);
  const top = mostRestrictive(results);
  const allowed = results.every((r) => r.allowed !== false);
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
    const violated = results.filter((r) => r.allowed === false);
    // Retry after the longest wait among the refusing policies; none when one of them can never admit this cost.
    if (violated.every((v) => v.retry_after_ms !== undefined)) result.retry_after_ms = Math.max(...violated.map((v) => v.retry_after_ms!));
    result.violated_policies = violated.map((v) => v.policy);
  }
  return { result, window_ms: policies.find((p) => p.result === top)!.window_ms ?? 0, cached, policies };
}

/** A check's latency budget: give up on the database after `timeoutMs`, then answer per `onUnavailable`. */
export interface Budget {
  timeoutMs: number;
  onUnavailable: FailMode;
}

function lockTimeoutWithin(db: RequestDb, budget: Budget | undefined): number {
  return budget ? Math.max(1, Math.min(db.lockTimeoutMs, budget.timeoutMs - 50)) : db.lockTimeoutMs;
}

/**
 * The budget of a check over `policies`: the shortest `timeout_ms` among them, and "deny" if any of
 * them fails closed. Each policy's settings come from `given` (the middleware's options) if set, else
 * from this isolate's memory of earlier answers, else the defaults (the request budget, 5 000 ms, and deny) — which is what a
 * fresh isolate uses the very first time. Never more than the request's remaining budget.
 */
export function budgetFor(db: RequestDb, policies: string[], given: { timeout_ms?: number; on_unavailable?: FailMode } = {}): Budget {
  let timeoutMs = Infinity;
  let onUnavailable: FailMode = "allow";
  for (const p of policies) {
    const known = denyCache.policies.get(p);
    timeoutMs = Math.min(timeoutMs, given.timeout_ms ?? known?.timeout_ms ?? DEFAULT_TIMEOUT_MS);
    if ((given.on_unavailable ?? known?.on_unavailable ?? "deny") === "deny") onUnavailable = "deny";
  }
  return { timeoutMs: Math.max(1, Math.min(timeoutMs, db.remainingMs())), onUnavailable };
}

/** What a check answers when the database did not decide within the budget. */
export interface Unenforced {
  allowed: boolean;
  policy?: string;
  policies?: string[];
  key: string;
  reason: "timeout" | "unavailable";
  /** "unknown": the statement was sent and may have consumed a unit; "none": it certainly did not. */
  consumed: "unknown" | "none";
  timeout_ms: number;
}

/** The database's own failure behind an Unenforced answer (kept off the JSON body). */
const CAUSE = new WeakMap<Unenforced, ProblemError>();

/**
 * Runs a check under its budget. A database that is silent past the budget, unreachable, or refusing
 * (503/504 from the request's handle: the check certainly was not applied, or its outcome is unknown)
 * becomes an `Unenforced` answer; anything else (a 404, a bug) propagates.
 */
export async function withinBudget<T>(budget: Budget, run: () => Promise<T>, who: { policy?: string; policies?: string[]; key: string }): Promise<T | Unenforced> {
  try {
    return await run();
  } catch (err) {
    if (!(err instanceof ProblemError) || (err.problem.status !== 503 && err.problem.status !== 504)) throw err;
    const timedOut = /within \d+ ms/.test(String(err.problem.detail)) || err.problem.type === "/problems/lock-timeout";
    const u: Unenforced = {
      allowed: budget.onUnavailable === "allow",
      ...who,
      reason: timedOut ? "timeout" : "unavailable",
      consumed: err.problem.status === 504 ? "unknown" : "none",
      timeout_ms: budget.timeoutMs,
    };
    CAUSE.set(u, err);
    return u;
  }
}

export function isUnenforced(x: unknown): x is Unenforced {
  return typeof x === "object" && x !== null && "consumed" in x;
}

/** The response headers of an unenforced answer, and the 503 problem of a fail-closed one. */
export const NOT_ENFORCED_HEADER = "Admit-RateLimit-Enforced";

/**
 * A fail-open answer (200, through to the handler) or a fail-closed one. A fail-closed answer is the
 * request handle's own honest problem with `reason`, `consumed` and `timeout_ms` added: 503 +
 * Retry-After when the check certainly consumed nothing (`database-unavailable`, `lock-timeout`, …),
 * 504 `outcome-unknown` (+ Retry-After) when the statement was sent and no answer came, so a unit
 * may have been consumed — never a 503 that hides a write (DESIGN.md, "Outcomes are honest").
 */
export function unenforcedResponse(u: Unenforced): { status: 200 | 503 | 504; body: Record<string, unknown>; headers: Record<string, string> } {
  const headers: Record<string, string> = { [NOT_ENFORCED_HEADER]: `false; reason=${u.reason}` };
  if (u.allowed) return { status: 200, body: { ...u }, headers };
  const cause = CAUSE.get(u)!;
  const { allowed: _a, ...fields } = u;
  return { status: cause.problem.status as 503 | 504, body: { ...cause.problem, ...fields }, headers: { "Retry-After": "1", ...cause.headers, ...headers } };
}

/** An sf-string (RFC 9651): policy names are [A-Za-z0-9._:-], but escape `"` and `\` in anything else. */
function sfString(s: string): string {
  return `"${s.replace(/[\\"]/g, (ch) => "\\" + ch)}"`;
}

/**
 * IETF draft-ietf-httpapi-ratelimit-headers-11 (Structured Field lists, one item per policy, in the
 * order asked): `RateLimit-Policy: "burst";q=100;w=60, "daily";q=10000;w=86400` (quota units;
 * window in seconds, rounded up) and `RateLimit: "burst";r=40;t=30, "daily";r=9000;t=5000`
 * (remaining units; seconds until the quota resets, rounded up — a token bucket: until full), plus
 * `Retry-After` (seconds, rounded up) when denied and a retry can help. A policy a cached answer did
 * not look at (`not-checked`) is left out of both lists.
 */
export function rateLimitHeaders(d: RateLimitDecision): Record<string, string> {
  const { result } = d;
  const known = d.policies.filter((p) => p.result.limit !== undefined && p.result.remaining !== undefined && p.window_ms !== null);
  const h: Record<string, string> = {
    "RateLimit-Policy": known.map((p) => `${sfString(p.result.policy)};q=${p.result.limit};w=${Math.max(1, Math.ceil(p.window_ms! / 1000))}`).join(", "),
    RateLimit: known.map((p) => `${sfString(p.result.policy)};r=${p.result.remaining};t=${Math.ceil(p.result.reset_ms! / 1000)}`).join(", "),
    "Admit-Cache": d.cached ? "hit" : "miss",
  };
  if (!result.allowed && result.retry_after_ms !== undefined) h["Retry-After"] = String(Math.max(1, Math.ceil(result.retry_after_ms / 1000)));
  return h;
}

/** The 429 of a multi-policy check: a quota-exceeded problem naming the violated policies (draft -11, §6). */
export function quotaExceeded(result: RateLimitResult, headers: Record<string, string>): ProblemError {
  const violated = result.violated_policies ?? [result.policy];
  return problem("quota-exceeded", `${JSON.stringify(result.key)} is over the limit of ${violated.map((v) => JSON.stringify(v)).join(", ")}; nothing was consumed.`,
    { "violated-policies": violated, ...result },
    headers,
  );
}

/** A concurrency limit: at most `permits` requests in flight at once (a semaphore of Admit's). */
export interface ConcurrencyOptions {
  /** The semaphore's name (/v1/semaphores/{name}); created with `permits` on first use if missing. */
  name: string;
  /** How many requests at once (1–10000). Used to create a missing semaphore and in the headers; an existing semaphore keeps its own size. */
  permits: number;
  /** How long a permit is held at most if this Worker dies before releasing it (1000–3600000 ms; default 60000). */
  ttl_ms?: number;
}

export interface RateLimitOptions<C extends Context = Context> {
  /** The policy's name (created with PUT /v1/ratelimits/policies/:name). */
  policy?: string;
  /** Several policies at once (1–8), all-or-nothing: admitted only if every one admits. */
  policies?: string[];
  /** Who is limited: an API key, a user id, an IP… (required with `policy`/`policies`). */
  key?: (c: C) => string | Promise<string>;
  /** Units per request (default 1). */
  cost?: number | ((c: C) => number | Promise<number>);
  /** A small JSON object for the request log (policies with `log: true`). */
  info?: (c: C) => Record<string, unknown> | undefined;
  /**
   * The check's latency budget and fail mode, overriding what this isolate learnt of the policies
   * from earlier answers (default: the policies' own `timeout_ms` / `on_unavailable` once seen, and
   * 5 000 ms / "deny" before the first answer).
   */
  timeout_ms?: number;
  on_unavailable?: FailMode;
  /** A concurrency limit, taken after the window limits admit the request and given back after the response. */
  concurrency?: ConcurrencyOptions;
}

function setHeaders(c: Context, headers: Record<string, string>): void {
  for (const [k, v] of Object.entries(headers)) c.header(k, v);
}

/** Adds a concurrency item to RateLimit-Policy (and to RateLimit when its remaining count is known). */
function withConcurrency(headers: Record<string, string>, conc: ConcurrencyOptions, permits: number, remaining?: number): Record<string, string> {
  const h = { ...headers };
  const item = `${sfString(conc.name)};q=${permits};qu="concurrent-requests"`;
  h["RateLimit-Policy"] = h["RateLimit-Policy"] ? `${h["RateLimit-Policy"]}, ${item}` : item;
  if (remaining !== undefined) {
    const r = `${sfString(conc.name)};r=${remaining}`;
    h.RateLimit = h.RateLimit ? `${h.RateLimit}, ${r}` : r;
  }
  return h;
}

type AcquireAnswer =
  | { status: "acquired"; permit: { permit_id: string; slot: number } }
  | { status: "busy"; permits: number; in_use: number; retry_after_ms: number; expires_at: string }
  | { status: "not_found" };

const ACQUIRE_SQL = "SELECT admit_permit_acquire($1::bigint, 'semaphore', $2, $3, $4::integer, $5::integer) AS r";

async function acquire(db: RequestDb, conc: ConcurrencyOptions, holder: string, budget: Budget): Promise<AcquireAnswer> {
  const run = async () =>
    (await db.query<{ r: AcquireAnswer }>(ACQUIRE_SQL, [lockKey("semaphore", conc.name), conc.name, holder, conc.ttl_ms ?? null, lockTimeoutWithin(db, budget)], { write: true, withinMs: budget.timeoutMs }))[0].r;
  let r = await run();
  if (r.status === "not_found") {
    // First use: create it with the configured size (an existing one is never resized here), then take a permit.
    await db.query("SELECT admit_semaphore_put($1::bigint, $2, $3::integer, $4::integer, $5::integer)", [lockKey("semaphore", conc.name), conc.name, conc.permits, conc.ttl_ms ?? 60_000, lockTimeoutWithin(db, budget)], { write: true, withinMs: budget.timeoutMs });
    r = await run();
  }
  return r;
}

/**
 * Hono middleware for any Worker that can reach Admit's database: window limits (`policy` or
 * `policies`, one all-or-nothing statement) and/or a concurrency limit (`concurrency`). Sets the
 * RateLimit headers, answers 429 problem+json when denied (`/problems/rate-limited` for one policy,
 * `/problems/quota-exceeded` with `violated-policies` for several, `/problems/concurrency-limited`
 * when every permit is taken), and calls `next()` otherwise. Uses `c.var.db` when the app already
 * has Admit's `database()` middleware, else opens its own per-request connection from `c.env` and
 * closes it after the response. A database that does not decide within the budget answers per the
 * fail mode: 503 + Retry-After (deny) or through to the handler with `Admit-RateLimit-Enforced: false` (allow).
 */
export function rateLimit<C extends Context = Context>(opts: RateLimitOptions<C>): MiddlewareHandler {
  const names = opts.policies ?? (opts.policy === undefined ? [] : [opts.policy]);
  if (names.length > 8) throw new Error("rateLimit(): at most 8 policies");
  if (names.length && !opts.key) throw new Error("rateLimit(): `key` is required with `policy`/`policies`");
  if (!names.length && !opts.concurrency) throw new Error("rateLimit(): give `policy`, `policies` or `concurrency`");
  return async (c, next) => {
    const ctx = c as unknown as C;
    const shared = (c.var as { db?: RequestDb }).db;
    const db = shared ?? new RequestDb((c.env ?? {}) as Bindings);
    const closeOwn = () => {
      if (shared) return;
      const closing = db.close();
      try {
        c.executionCtx.waitUntil(closing);
      } catch {
        /* no execution context: let it run */
      }
    };
    let headers: Record<string, string> = {};
    let windowHeaders: Record<string, string> = {};
    let permit: { permit_id: string } | undefined;
    // With window limits, their policies' budget and fail mode; a concurrency limit alone: the options', else 5 000 ms / deny.
    const budget = names.length
      ? budgetFor(db, names, opts)
      : { timeoutMs: Math.max(1, Math.min(opts.timeout_ms ?? DEFAULT_TIMEOUT_MS, db.remainingMs())), onUnavailable: opts.on_unavailable ?? ("deny" as FailMode) };
    let unenforced = false;
    try {
      if (names.length) {
        const key = await opts.key!(ctx);
        const cost = typeof opts.cost === "function" ? await opts.cost(ctx) : opts.cost;
        const input = { key, cost, info: opts.info?.(ctx) };
        const cache = denyCacheFor(c.env as Bindings | undefined);
        const multi = opts.policies !== undefined;
        const outcome = await withinBudget(
          budget,
          () => (multi ? checkRateLimits(db, { ...input, policies: names }, cache, budget) : checkRateLimit(db, { ...input, policy: names[0] }, cache, budget)),
          multi ? { policies: names, key } : { policy: names[0], key },
        );
        if (isUnenforced(outcome)) {
          const u = unenforcedResponse(outcome);
          if (u.status !== 200) return problemResponse(c, u.body as never, u.headers);
          headers = windowHeaders = u.headers; // fail open: through to the handler, saying the limit was not enforced
          unenforced = true;
        } else if (outcome === null || "missing" in outcome) {
          const missing = outcome === null ? names : outcome.missing;
          console.error(`rateLimit(): policy ${missing.map((m) => JSON.stringify(m)).join(", ")} does not exist`);
          // A setup error of the host Worker, not of the caller: refuse (never let calls through unlimited)
          // with a 503 that names the fix, rather than a 500.
          const p = problem("ratelimit-policy-missing", `The rate-limit policy ${JSON.stringify(missing[0])} does not exist: create it with PUT /v1/ratelimits/policies/${encodeURIComponent(missing[0])}. Nothing was counted.`, {}, { "Retry-After": "30" });
          return problemResponse(c, p.problem, p.headers);
        } else {
          headers = windowHeaders = rateLimitHeaders(outcome);
          if (opts.concurrency) headers = withConcurrency(headers, opts.concurrency, opts.concurrency.permits);
          const { result } = outcome;
          if (!result.allowed) {
            const p = multi
              ? quotaExceeded(result, headers)
              : problem("rate-limited", `${JSON.stringify(result.key)} is over the limit of ${JSON.stringify(result.policy)}.`, { ...result }, headers);
            return problemResponse(c, p.problem, p.headers);
          }
        }
      }
      // The database just failed to answer within the budget and the policies fail open: do not wait
      // a second budget for a permit; the concurrency limit is not enforced either (the header says so).
      if (opts.concurrency && !unenforced) {
        const conc = opts.concurrency;
        const r = await withinBudget(budget, () => acquire(db, conc, `${c.req.method} ${c.req.path}`.slice(0, 200), budget), { policy: conc.name, key: conc.name });
        if (isUnenforced(r)) {
          const u = unenforcedResponse(r);
          if (u.status !== 200) return problemResponse(c, u.body as never, u.headers);
          headers = { ...windowHeaders, ...u.headers };
        } else if (r.status === "busy") {
          const h = withConcurrency(windowHeaders, conc, r.permits, 0);
          h["Retry-After"] = String(Math.max(1, Math.ceil(r.retry_after_ms / 1000)));
          const p = problem("concurrency-limited", `All ${r.permits} permits of ${JSON.stringify(conc.name)} are in use; the earliest expires at ${r.expires_at}.`, { permits: r.permits, in_use: r.in_use, earliest_expires_at: r.expires_at }, h);
          return problemResponse(c, p.problem, p.headers);
        } else if (r.status !== "acquired") {
          throw new Error(`rateLimit(): semaphore ${conc.name} answered ${r.status}`);
        } else {
          permit = r.permit;
          if (!names.length) headers = withConcurrency({}, conc, conc.permits);
        }
      }
    } catch (err) {
      if (err instanceof ProblemError) return problemResponse(c, err.problem, err.headers);
      throw err;
    } finally {
      if (!permit) closeOwn();
    }
    setHeaders(c, headers);
    try {
      await next();
    } finally {
      if (permit) {
        // Given back before the response leaves (also when the handler threw), on a handle of its own:
        // the request's budget may be spent by a slow handler. If this fails, the TTL frees the permit.
        closeOwn();
        const releaser = new RequestDb((c.env ?? {}) as Bindings);
        try {
          await releaser.query("SELECT admit_permit_release($1::bigint, 'semaphore', $2, $3::uuid, $4::integer) AS r", [lockKey("semaphore", opts.concurrency!.name), opts.concurrency!.name, permit.permit_id, lockTimeoutWithin(releaser, budget)], { write: true, withinMs: budget.timeoutMs });
        } catch (err) {
          console.error(`rateLimit(): releasing a permit of ${opts.concurrency!.name} failed; its TTL frees it`, err);
        } finally {
          const closing = releaser.close();
          try {
            c.executionCtx.waitUntil(closing);
          } catch {
            /* no execution context: let it run */
          }
        }
      }
    }
    setHeaders(c, headers);
  };
}
