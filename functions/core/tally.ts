// What an isolate learns on the hot path, accumulated in memory and written with ONE statement per
// flush after the response (schema/current/observability.sql, admit_observe_flush): the calls the
// rate-limit deny cache answered (so `attempted`/`rejected` count every call), and decisions per
// outcome for the Prometheus counters. Never a statement per request, never a row shared by every key.
//
// The interface is small on purpose (the coalescer decides on top of it):
//   tallyFor(env)            this isolate's tally for env's database, or null when METRICS=off;
//   tally.denied(…)          one call (or n) the deny cache refused;
//   tally.count(…)           one decision (or n) of a metric with its labels;
//   flushSoon(env, ctx)      after a response: make sure a flush is scheduled (waitUntil), at most
//                            METRICS_FLUSH_MS after the first unflushed count.
//
// The bound: a count reaches the database at most METRICS_FLUSH_MS (default 2 000 ms) plus one
// statement after it was made, while the isolate lives — except one made in the last interval of a
// chain that has run CHAIN_MS (10 s) of back-to-back flushes, which waits for the next request's.
// A flush Postgres refused (409: a deadlock or serialization failure; 503: a lock or statement
// timeout, no connection, the database unavailable — rolled back or never run, so nothing applied)
// is kept: its counts go back into the tally ahead of newer ones and are sent again after the
// refusal's Retry-After, within the chain, else by the next request's chain. A flush whose outcome
// is unknown (504: sent, no answer) is dropped and logged, never re-sent — a count may be lost there,
// never counted twice — and so is one refused for good (another 4xx, or an error that is a bug), which
// would otherwise be refused again on every flush and hold back every count behind it. An isolate
// evicted with a flush pending loses what it held: at most one flush interval of its counts.

import { intSetting, RequestDb } from "./db";
import type { Bindings } from "./env";
import { ProblemError } from "./errors";

export const DEFAULT_FLUSH_MS = 2_000;
/**
 * How long one flush chain runs before it ends and leaves the next flush to a later request's
 * flushSoon(). The chain lives in the waitUntil of the request that started it, which workerd cancels
 * about 30 s after that response: a chain that looped for as long as counts kept arriving was cut
 * there, and its promise never settled.
 */
export const CHAIN_MS = 10_000;
/**
 * Distinct groups (hit groups + metric series) one tally holds; past it a flush starts at once and new
 * groups are dropped (counted in stats.lost). A kept flush's groups come back first, so at the cap what
 * is dropped is the newest groups, never counts already refused once. A group is a number that grows,
 * so what a tally holds never grows past the cap however long the database refuses.
 */
export const MAX_GROUPS = 10_000;
/** Policies with a `policy` label of their own (the rest are policy="_other"). */
export const DEFAULT_MAX_POLICIES = 100;

interface HitGroup {
  policy: string;
  key: string;
  n: number;
  /** Local time of the latest call. */
  last: number;
  /** The database's start (ms since the epoch) of the window the cached denial that answered was decided in (null: not known). */
  windowStart: number | null;
}

interface CountGroup {
  metric: string;
  labels: Record<string, string>;
  n: number;
  /** Local time of the first count. */
  first: number;
}

export interface TallyStats {
  /** Flushes that landed. */
  flushes: number;
  /** Deny-cache calls written to counters. */
  hitsFlushed: number;
  /** Calls or counts given up on: an outcome-unknown (or refused for good) flush, or the group cap reached. */
  lost: number;
  /** Flushes Postgres refused whose counts were kept for the next one. */
  kept: number;
}

export class Tally {
  private hits = new Map<string, HitGroup>();
  private counts = new Map<string, CountGroup>();
  private pending: Promise<void> | null = null;
  private flushing = 0;
  readonly stats: TallyStats = { flushes: 0, hitsFlushed: 0, lost: 0, kept: 0 };

  constructor(private readonly env: Bindings) {}

  get size(): number {
    return this.hits.size + this.counts.size;
  }

  /** Nothing held and no flush under way: every count made so far has landed (or been given up on). */
  get idle(): boolean {
    return this.size === 0 && this.pending === null && this.flushing === 0;
  }

  /** `n` calls of `policy`/`key` the deny cache refused; `windowStart`: DenyEntry.windowStart of the denial that answered. */
  denied(policy: string, key: string, windowStart: number | null, now: number, n = 1): void {
    const id = `${policy}\u0000${key}\u0000${windowStart ?? ""}`;
    const g = this.hits.get(id);
    if (g) {
      g.n += n;
      g.last = now;
    } else if (this.size < MAX_GROUPS) {
      this.hits.set(id, { policy, key, n, last: now, windowStart });
    } else {
      this.stats.lost += n;
    }
  }

  /** `n` events of a counter `metric` with `labels` (bounded sets only: never a rate-limit key). */
  count(metric: string, labels: Record<string, string>, now: number, n = 1): void {
    let id = metric;
    for (const k in labels) id += `\u0000${k}=${labels[k]}`;
    const g = this.counts.get(id);
    if (g) g.n += n;
    else if (this.size < MAX_GROUPS) this.counts.set(id, { metric, labels, n, first: now });
    else this.stats.lost += n;
  }

  /**
   * Makes sure a flush is on its way: after `delayMs`, or at once when the tally is full. Returns the
   * chain when this call started it (null: one is already on its way, or nothing to flush): only the
   * request that started a chain keeps it alive, since in workerd a promise and its timers belong to
   * the request that made them.
   */
  schedule(delayMs: number): Promise<void> | null {
    if (this.pending || this.size === 0) return null;
    const wait = this.size >= MAX_GROUPS ? 0 : delayMs;
    // One chain per isolate: it flushes, then again while counts arrived meanwhile (so an isolate
    // that goes idle still writes what it learnt last), then ends.
    const run = async () => {
      let delay = wait;
      const started = Date.now();
      try {
        while (this.size > 0) {
          await new Promise((resolve) => setTimeout(resolve, delay));
          const r = await this.flush();
          // A flush whose outcome is unknown (the database is away) ends the chain: what is held
          // waits for the next request's flushSoon() instead of a loop that keeps the isolate busy.
          if (r === "lost") break;
          // Refused and kept: sent again after the refusal's Retry-After, if the chain has that long.
          if (typeof r === "object") {
            if (Date.now() - started + r.retryAfterMs >= CHAIN_MS) break;
            delay = r.retryAfterMs;
            continue;
          }
          // Bounded in time (CHAIN_MS): what arrives later is the next request's chain to send.
          if (Date.now() - started >= CHAIN_MS) break;
          delay = this.size >= MAX_GROUPS ? 0 : delayMs;
        }
      } finally {
        this.pending = null;
      }
    };
    this.pending = run();
    return this.pending;
  }

  /**
   * Puts a refused flush's groups back, ahead of those counted while it was on its way (merged into
   * them where they meet); past MAX_GROUPS the newest groups are the ones dropped.
   */
  private keep(hits: Map<string, HitGroup>, counts: Map<string, CountGroup>): void {
    const newerHits = this.hits;
    const newerCounts = this.counts;
    this.hits = hits;
    this.counts = counts;
    for (const g of newerHits.values()) this.denied(g.policy, g.key, g.windowStart, g.last, g.n);
    for (const g of newerCounts.values()) this.count(g.metric, g.labels, g.first, g.n);
  }

  /**
   * Writes everything held now in one statement; what was counted meanwhile waits for the next flush.
   * "landed"; "lost" (given up on: see the top of this file); or kept for the next flush, which should
   * wait `retryAfterMs` (the refusal's Retry-After).
   */
  async flush(): Promise<"landed" | "lost" | { retryAfterMs: number }> {
    if (this.size === 0) return "landed";
    const hits = this.hits;
    const counts = this.counts;
    this.hits = new Map();
    this.counts = new Map();
    const now = Date.now();
    const hitRows = [...hits.values()].map((g) => ({ p: g.policy, k: g.key, n: g.n, a: now - g.last, w: g.windowStart }));
    const countRows = [...counts.values()].map((g) => ({ m: g.metric, l: g.labels, n: g.n, a: now - g.first }));
    const db = new RequestDb(this.env);
    this.flushing++;
    try {
      const [{ r }] = await db.query<{ r: { hits: number } }>(
        "SELECT admit_observe_flush($1::jsonb, $2::jsonb, $3::integer, $4::integer) AS r",
        [JSON.stringify(hitRows), JSON.stringify(countRows), intSetting(this.env.METRICS_MAX_POLICIES, DEFAULT_MAX_POLICIES, 0, 10_000), db.lockTimeoutMs],
        { write: true },
      );
      this.stats.flushes++;
      this.stats.hitsFlushed += r.hits;
      return "landed";
    } catch (err) {
      if (err instanceof ProblemError && (err.problem.status === 409 || err.problem.status === 503)) {
        // Refused by Postgres, or never run: certainly not applied. Kept, ahead of what came meanwhile.
        this.keep(hits, counts);
        this.stats.kept++;
        const retryAfterMs = 1_000 * Math.max(1, Number(err.headers?.["Retry-After"]) || 1);
        console.error(`admit tally: flush not applied (${err.problem.detail}); kept, sent again in ${retryAfterMs} ms`);
        return { retryAfterMs };
      }
      let n = 0;
      for (const g of hits.values()) n += g.n;
      for (const g of counts.values()) n += g.n;
      this.stats.lost += n;
      const why = err instanceof ProblemError && err.problem.status === 504 ? "outcome unknown" : "refused for good";
      console.error(`admit tally: flush ${why} (${(err as Error)?.message ?? err}); ${n} counts not re-sent (never counted twice)`);
      return "lost";
    } finally {
      await db.close();
      this.flushing--;
    }
  }
}

const tallies = new Map<string, Tally>();
const byEnv = new WeakMap<Bindings, Tally | null>();

/** Whether the METRICS var turns counting off ("off"): the bench's switch. */
export function metricsOn(env: Bindings | undefined): boolean {
  return env?.METRICS !== "off";
}

/** This isolate's tally for env's database (one per database: tests serve several from one process), or null when METRICS=off. */
export function tallyFor(env: Bindings | undefined): Tally | null {
  if (!env) return null;
  // The hot path asks once per decision: the same bindings object answers from a WeakMap.
  const known = byEnv.get(env);
  if (known !== undefined) return known;
  let t: Tally | null = null;
  if (env.DATABASE_URL && metricsOn(env)) {
    const id = `${env.DATABASE_URL}\u0000${env.NEON_WS_PROXY ?? ""}`;
    t = tallies.get(id) ?? null;
    if (!t) tallies.set(id, (t = new Tally(env)));
  }
  byEnv.set(env, t);
  return t;
}

/** After a response: a flush within METRICS_FLUSH_MS of the first unflushed count, kept alive by the waitUntil of the request that scheduled it. */
export function flushSoon(env: Bindings | undefined, ctx: { waitUntil(p: Promise<unknown>): void } | undefined): void {
  const t = tallyFor(env);
  if (!t || t.size === 0) return;
  const p = t.schedule(intSetting(env?.METRICS_FLUSH_MS, DEFAULT_FLUSH_MS, 0, 60_000));
  if (p && ctx) ctx.waitUntil(p);
}
