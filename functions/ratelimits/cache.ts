// The in-isolate deny cache (keys known to be denied until a moment) and this isolate's memory of
// each policy's settings (log flag, window, latency budget, fail mode) learnt from earlier answers.
import { CACHE_MS } from "../core/apikeys";
import { DEFAULT_BUDGET_MS } from "../core/db";
import type { Bindings } from "../core/env";
import type { FailMode } from "./sql";

/** What an isolate knows of a policy from earlier answers (checks, PUT, GET). */
export interface PolicyInfo {
  log: boolean;
  window_ms: number;
  timeout_ms: number;
  on_unavailable: FailMode;
}

export interface DenyEntry {
  /** Local time (ms) until which the denial stands. Only elapsed local time is used, never compared with the DB clock. */
  until: number;
  /** The smallest cost this denial covers: a larger cost needs at least as long, a smaller one may fit. */
  minCost: number;
  limit: number;
  remaining: number;
  resetAt: number;
  windowMs: number;
  /**
   * The database's start (ms since the epoch, on its clock) of the window the denial was decided in;
   * null when not known. A call this entry refuses is counted there (functions/core/tally.ts): a
   * fixed-window denial stands at most until its window ends, but may stop sooner (at an override
   * boundary), so how long it stands does not say which window it was.
   */
  windowStart?: number | null;
  /**
   * Local time (ms) after which the entry is no longer believed, even if its denial would still stand:
   * set by remember() to at most DENY_BELIEF_MS from then. It bounds how long a change made through
   * another isolate (a reset, a refund, a raised override) goes unseen here.
   */
  believedUntil?: number;
}

/**
 * The longest an isolate believes a cached denial without asking the database again: the API keys'
 * cache bound (5 s), so a reset, a refund or a raised limit reaches every isolate within it, as a
 * revoked key does. A hot denied key costs one statement per isolate per bound, not one per call.
 */
export const DENY_BELIEF_MS = CACHE_MS;

const MAX_ENTRIES = 10_000;
/**
 * A check's latency budget when neither the policy (as this isolate last saw it) nor the caller says:
 * the request's default budget. A tighter default made a burst of simultaneous checks answer 504 for
 * the ones still queued at the pool when it ran out — the very bursts Admit exists for; a gateway
 * that wants a tighter bound sets `timeout_ms` on the policy.
 */
export const DEFAULT_TIMEOUT_MS = DEFAULT_BUDGET_MS;

/**
 * Keys known to be denied until a moment, per isolate. It only ever answers "denied": a miss, an
 * expired entry or a cost below the cached one goes to Postgres, so it can never admit a call the
 * database would refuse. It can refuse for a little longer than needed if another isolate reset,
 * refunded or raised an override meanwhile (at most DENY_BELIEF_MS, 5 s, and never past the cached
 * moment); changes made in this isolate clear the entry at once.
 *
 * An answer is stored only if nothing it covers changed in this isolate while it was on its way: a
 * check takes a mark() before asking the database and hands it to remember()/learn(), which drop the
 * answer when forget() touched its policy or key after that mark. Without it, a check queued on a hot
 * key's row decided on the old limit, arrived after a PUT that raised it had cleared the entry, and
 * stored its denial for the rest of the window.
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
  /** Changes counted so far in this isolate (forget() calls): what a mark is. */
  private changes = 0;
  /** The change count at the last forget() of a policy ("p") or of one of its keys ("p\0k"), oldest first. */
  private readonly changedAt = new Map<string, number>();
  /** Marks below this may have seen a change whose record was dropped to bound `changedAt`: treated as changed. */
  private dropped = 0;

  /** Now, in this isolate's history of changes: take it before asking the database, give it to remember()/learn(). */
  mark(): number {
    return this.changes;
  }

  /** Did this isolate change what is known of `policy` (or of `key` in it) after `mark`? */
  changedSince(mark: number, policy: string, key?: string): boolean {
    if (mark < this.dropped) return true;
    if ((this.changedAt.get(policy) ?? -1) >= mark) return true;
    return key !== undefined && (this.changedAt.get(`${policy}\0${key}`) ?? -1) >= mark;
  }

  private changed(id: string): void {
    this.changedAt.delete(id); // re-inserted last: the map stays in order of change
    this.changedAt.set(id, this.changes++);
    if (this.changedAt.size > MAX_ENTRIES) {
      const [oldest, at] = this.changedAt.entries().next().value!;
      this.changedAt.delete(oldest);
      this.dropped = at + 1;
    }
  }

  /** Learns a policy's settings from an answer; one that left before a change of the policy in this isolate (`mark`) is dropped. */
  learn(policy: string, info: Partial<PolicyInfo> & { log: boolean; window_ms: number }, mark?: number): void {
    if (mark !== undefined && this.changedSince(mark, policy)) return;
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
    if (now >= entry.until || now >= (entry.believedUntil ?? Infinity)) {
      keys!.delete(key);
      this.size--;
      return undefined;
    }
    return Math.max(cost, 1) >= entry.minCost ? entry : undefined;
  }

  /** Stores a denial; one that left before a change of its policy or key in this isolate (`mark`) is dropped. */
  remember(policy: string, key: string, entry: DenyEntry, mark?: number): void {
    if (mark !== undefined && this.changedSince(mark, policy, key)) return;
    let keys = this.byPolicy.get(policy);
    if (!keys) this.byPolicy.set(policy, (keys = new Map()));
    if (!keys.has(key)) {
      if (this.size >= MAX_ENTRIES) this.evictOne();
      this.size++;
    }
    entry.believedUntil = Math.min(entry.believedUntil ?? Infinity, Date.now() + DENY_BELIEF_MS);
    keys.set(key, entry);
  }

  /**
   * Forget one key of a policy, or every key of it (and its settings): a change made through this
   * isolate. Answers still on their way, marked before it, will not be stored.
   */
  forget(policy: string, key?: string): void {
    this.changed(key === undefined ? policy : `${policy}\0${key}`);
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
