// The in-isolate deny cache (keys known to be denied until a moment) and this isolate's memory of
// each policy's settings (log flag, window, latency budget, fail mode) learnt from earlier answers.
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
}

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
