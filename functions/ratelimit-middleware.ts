// Rate-limit decisions for the /v1/ratelimits/check route and for other Workers: the one-statement
// check, the IETF RateLimit headers, the in-isolate deny cache, and the `rateLimit()` Hono middleware.
// SQL: schema/000010_ratelimits.sql (admit_ratelimit_check; its fixed-window path: 000011). Routes: functions/ratelimits.ts.
import type { Context, MiddlewareHandler } from "hono";
import { RequestDb } from "./db";
import type { Bindings } from "./env";
import { problem, problemResponse, ProblemError } from "./errors";

/** The flat result every check answers (body of /v1/ratelimits/check, `@upstash/ratelimit`-like). */
export interface RateLimitResult {
  allowed: boolean;
  policy: string;
  key: string;
  limit: number;
  remaining: number;
  reset_ms: number;
  retry_after_ms?: number;
}

export interface RateLimitDecision {
  result: RateLimitResult;
  window_ms: number;
  /** true when the in-isolate deny cache answered and Postgres was not asked. */
  cached: boolean;
}

interface SqlCheck extends Omit<RateLimitResult, "retry_after_ms"> {
  window_ms: number;
  log: boolean;
  retry_after_ms: number | null;
  /** ms until one unit fits again (0 = one fits now); feeds the deny cache. */
  wait1_ms: number | null;
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

/** The one statement a check sends (policy, key, cost, log info, lock timeout in ms). */
export const CHECK_SQL = "SELECT admit_ratelimit_check($1, $2, $3::integer, $4::jsonb, $5::integer) AS r";

export interface CheckInput {
  policy: string;
  key: string;
  /** Units this call takes (default 1); 0 = peek (consumes nothing; "allowed" means one unit fits). */
  cost?: number;
  /** A small JSON object stored in the request log when the policy has `log: true`. */
  info?: Record<string, unknown>;
}

/**
 * One decision: from the deny cache when it knows the answer is "denied", otherwise ONE SQL
 * statement (policy + override lookup, counting and log row together, on the database clock).
 * Returns null when the policy does not exist.
 */
export async function checkRateLimit(db: RequestDb, input: CheckInput, cache: DenyCache | null = denyCache): Promise<RateLimitDecision | null> {
  const cost = input.cost ?? 1;
  const started = Date.now();
  const hit = cache?.lookup(input.policy, input.key, cost, started);
  if (hit) {
    cache!.hits++;
    return {
      cached: true,
      window_ms: hit.windowMs,
      result: {
        allowed: false,
        policy: input.policy,
        key: input.key,
        limit: hit.limit,
        remaining: hit.remaining,
        reset_ms: Math.max(0, hit.resetAt - started),
        retry_after_ms: Math.max(1, hit.until - started),
      },
    };
  }
  if (cache) cache.dbCalls++;
  const [{ r }] = await db.query<{ r: SqlCheck | null }>(
    CHECK_SQL,
    [input.policy, input.key, cost, input.info === undefined ? null : JSON.stringify(input.info), db.lockTimeoutMs],
    { write: cost > 0 },
  );
  if (!r) {
    cache?.forget(input.policy);
    return null;
  }
  const now = Date.now();
  const common = { limit: r.limit, remaining: r.remaining, resetAt: now + r.reset_ms, windowMs: r.window_ms };
  if (!cache || r.log) {
    // A logged policy wants every call in its log and its attempted count: never answer it from the cache.
  } else if (r.remaining === 0 && r.wait1_ms !== null && r.wait1_ms > 0) {
    // Nothing left: every call of any cost is refused until one unit comes back.
    cache.remember(input.policy, input.key, { ...common, minCost: 1, until: now + r.wait1_ms });
  } else if (!r.allowed && r.retry_after_ms !== null && r.retry_after_ms > 0 && cost > 0) {
    // Some units left but not `cost` of them: refuse this cost (or more) until it fits.
    cache.remember(input.policy, input.key, { ...common, minCost: cost, until: now + r.retry_after_ms });
  }
  // An admit with units left does not clear an entry: under a burst it may be an older answer
  // arriving after a newer "nothing left", and an entry only ever stands until its own moment.
  const result: RateLimitResult = {
    allowed: r.allowed,
    policy: r.policy,
    key: r.key,
    limit: r.limit,
    remaining: r.remaining,
    reset_ms: r.reset_ms,
  };
  if (!r.allowed && r.retry_after_ms !== null) result.retry_after_ms = r.retry_after_ms;
  return { cached: false, window_ms: r.window_ms, result };
}

/**
 * IETF draft-ietf-httpapi-ratelimit-headers (structured fields): `RateLimit-Policy: "api";q=100;w=60`
 * and `RateLimit: "api";r=42;t=17` (seconds, rounded up), plus `Retry-After` (seconds, rounded up)
 * when denied and a retry can help. Policy names are [A-Za-z0-9._:-], valid sf-strings as they are.
 */
export function rateLimitHeaders(d: RateLimitDecision): Record<string, string> {
  const { result } = d;
  const h: Record<string, string> = {
    "RateLimit-Policy": `"${result.policy}";q=${result.limit};w=${Math.max(1, Math.ceil(d.window_ms / 1000))}`,
    RateLimit: `"${result.policy}";r=${result.remaining};t=${Math.ceil(result.reset_ms / 1000)}`,
    "Admit-Cache": d.cached ? "hit" : "miss",
  };
  if (!result.allowed && result.retry_after_ms !== undefined) h["Retry-After"] = String(Math.max(1, Math.ceil(result.retry_after_ms / 1000)));
  return h;
}

export interface RateLimitOptions<C extends Context = Context> {
  /** The policy's name (created with PUT /v1/ratelimits/policies/:name). */
  policy: string;
  /** Who is limited: an API key, a user id, an IP… */
  key: (c: C) => string | Promise<string>;
  /** Units per request (default 1). */
  cost?: number | ((c: C) => number | Promise<number>);
  /** A small JSON object for the request log (policies with `log: true`). */
  info?: (c: C) => Record<string, unknown> | undefined;
}

function setHeaders(c: Context, headers: Record<string, string>): void {
  for (const [k, v] of Object.entries(headers)) c.header(k, v);
}

/**
 * Hono middleware for any Worker that can reach Admit's database: sets the RateLimit headers,
 * answers 429 problem+json when denied, and calls `next()` otherwise. Uses `c.var.db` when the app
 * already has Admit's `database()` middleware, else opens its own per-request connection from
 * `c.env` (DATABASE_URL, …) and closes it after the response. A database that cannot answer gives
 * 503 problem+json with Retry-After (fail closed).
 */
export function rateLimit<C extends Context = Context>(opts: RateLimitOptions<C>): MiddlewareHandler {
  return async (c, next) => {
    const ctx = c as unknown as C;
    const shared = (c.var as { db?: RequestDb }).db;
    const db = shared ?? new RequestDb((c.env ?? {}) as Bindings);
    let decision: RateLimitDecision | null;
    try {
      const key = await opts.key(ctx);
      const cost = typeof opts.cost === "function" ? await opts.cost(ctx) : opts.cost;
      decision = await checkRateLimit(db, { policy: opts.policy, key, cost, info: opts.info?.(ctx) }, denyCacheFor(c.env as Bindings | undefined));
    } catch (err) {
      if (err instanceof ProblemError) return problemResponse(c, err.problem, err.headers);
      throw err;
    } finally {
      if (!shared) {
        const closing = db.close();
        try {
          c.executionCtx.waitUntil(closing);
        } catch {
          /* no execution context: let it run */
        }
      }
    }
    if (!decision) {
      console.error(`rateLimit(): policy ${JSON.stringify(opts.policy)} does not exist`);
      // A setup error of the host Worker, not of the caller: refuse (never let calls through unlimited)
      // with a 503 that names the fix, rather than a 500.
      const p = problem(503, "ratelimit-policy-missing", "Rate-limit policy missing", `The rate-limit policy ${JSON.stringify(opts.policy)} does not exist: create it with PUT /v1/ratelimits/policies/${encodeURIComponent(opts.policy)}. Nothing was counted.`, {}, { "Retry-After": "30" });
      return problemResponse(c, p.problem, p.headers);
    }
    const headers = rateLimitHeaders(decision);
    if (!decision.result.allowed) {
      const { result } = decision;
      const p = problem(429, "rate-limited", "Too many requests", `${JSON.stringify(result.key)} is over the limit of ${JSON.stringify(result.policy)}.`, { ...result });
      return problemResponse(c, p.problem, headers);
    }
    setHeaders(c, headers);
    await next();
    setHeaders(c, headers);
  };
}
