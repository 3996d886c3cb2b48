// In-request mutual exclusion: withTryLock / withLock take pg_(try_)advisory_xact_lock(fnv64("lock/" + key))
// and run `fn` in the same transaction. The lock ends with the transaction — commit, rollback, or a
// connection that dies — so a crashed holder never blocks anyone. Not available → a typed result
// ({acquired: false}) that a route turns into 409 + Retry-After with lockUnavailable().
// Locks held across requests are leases (routes.ts, /v1/locks/{key}/…): semaphores of one permit.
import type { RequestDb } from "../core/db";
import { type ProblemError, problem } from "../core/errors";
import { tryXactLock, xactLockWithin } from "./sql";

export type LockResult<T> = { acquired: true; value: T } | { acquired: false; key: string };

/**
 * Runs `fn` inside one transaction holding the advisory lock of `key`, or returns `{acquired: false}`
 * at once when another transaction holds it. Joins an outer transaction if one is open (the lock is
 * then held until that one ends).
 */
export function withTryLock<T>(db: RequestDb, key: string, fn: (db: RequestDb) => Promise<T>): Promise<LockResult<T>> {
  return db.transaction(async (tx) => {
    const locked = await tryXactLock(tx, key);
    return locked ? { acquired: true as const, value: await fn(tx) } : { acquired: false as const, key };
  });
}

/**
 * Like withTryLock, but waits for the lock up to `waitMs` (default: the request's lock timeout,
 * never past its budget). A wait that runs out answers `{acquired: false}` and leaves the
 * transaction usable (the wait runs in a subtransaction in SQL).
 */
export function withLock<T>(db: RequestDb, key: string, fn: (db: RequestDb) => Promise<T>, opts: { waitMs?: number } = {}): Promise<LockResult<T>> {
  const waitMs = Math.max(1, Math.min(opts.waitMs ?? db.lockTimeoutMs, db.remainingMs() - 50));
  return db.transaction(async (tx) => {
    const locked = await xactLockWithin(tx, key, waitMs);
    return locked ? { acquired: true as const, value: await fn(tx) } : { acquired: false as const, key };
  });
}

/** The 409 a route answers when an in-request lock is held by another request. */
export function lockUnavailable(
  key: string,
  detail = `Another request holds ${JSON.stringify(key)} right now; nothing was done.`,
  retryAfterS = 1,
): ProblemError {
  return problem("lock-unavailable", `${detail} Retry after ${retryAfterS} s.`, { key }, { "Retry-After": String(retryAfterS) });
}

/** The value of a LockResult, or the 409 problem thrown. */
export function orConflict<T>(r: LockResult<T>, detail?: string): T {
  if (!r.acquired) throw lockUnavailable(r.key, detail);
  return r.value;
}
