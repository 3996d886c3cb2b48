// A check's latency budget and fail mode: how long the database may take (the policies' `timeout_ms`,
// never more than the request has left, and each lock wait below that), and which way a check goes
// when the database does not decide in time — `Unenforced`, allowed or not per the fail mode, with
// whether a unit may have been consumed. check.ts turns it into the answer (fail open: through,
// `Admit-RateLimit-Enforced: false`; fail closed: 503, or 504 when a unit may have been consumed).
import type { Queryable, RequestDb } from "../core/db";
import { ProblemError } from "../core/errors";
import { DEFAULT_TIMEOUT_MS, denyCache } from "./cache";
import type { FailMode } from "./sql";

/** A check's latency budget: give up on the database after `timeoutMs`, then answer per `onUnavailable`. */
export interface Budget {
  timeoutMs: number;
  onUnavailable: FailMode;
}

/** The lock timeout a statement under `budget` may wait: never past the budget. */
export function lockTimeoutWithin(db: Queryable, budget: Budget | undefined): number {
  return budget ? Math.max(1, Math.min(db.lockTimeoutMs, budget.timeoutMs - 50)) : db.lockTimeoutMs;
}

/**
 * The budget of a check over `policies`: the shortest `timeout_ms` among them, and "deny" if any of
 * them fails closed. Each policy's settings come from `given` (the middleware's options) if set, else
 * from this isolate's memory of earlier answers, else the defaults (the request budget, 5 000 ms, and deny) — which is what a
 * fresh isolate uses the very first time. Never more than the request's remaining budget.
 */
export function budgetFor(db: Pick<RequestDb, "remainingMs">, policies: string[], given: { timeout_ms?: number; on_unavailable?: FailMode } = {}): Budget {
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
/** How long the check waited before the fail mode answered (ms; Server-Timing's `db`), kept off the body too. */
const WAITED = new WeakMap<Unenforced, number>();

/** How long an Unenforced answer's check waited for the database, in ms. */
export function waitedMs(u: Unenforced): number {
  return WAITED.get(u) ?? 0;
}

/** The request handle's problem (503 or 504) behind an Unenforced answer: what a fail-closed answer is made of. */
export function failureOf(u: Unenforced): ProblemError {
  return CAUSE.get(u)!;
}

/**
 * Runs a check under its budget. A database that is silent past the budget, unreachable, or refusing
 * (503/504 from the request's handle: the check certainly was not applied, or its outcome is unknown)
 * becomes an `Unenforced` answer; anything else (a 404, a bug) propagates.
 */
export async function withinBudget<T>(
  budget: Budget,
  run: () => Promise<T>,
  who: { policy?: string; policies?: string[]; key: string },
): Promise<T | Unenforced> {
  const t0 = performance.now();
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
    WAITED.set(u, performance.now() - t0);
    return u;
  }
}

export function isUnenforced(x: unknown): x is Unenforced {
  return typeof x === "object" && x !== null && "consumed" in x;
}
