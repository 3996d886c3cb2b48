// Forwarding's work: claim an attempt (one short transaction: SKIP LOCKED, a lease, the attempt
// row), send it outside any transaction (forward-send.ts), record the outcome (another short
// transaction). A database session never outlives an invocation on Workers, so nothing is held
// across the HTTP request but the lease, which no other claimer takes while it is live.
//
// Two entrances: forwardNow, in the receiver's waitUntil right after an event is stored (the sender's
// 200 does not wait for it), which then goes on with whatever of the source became due (the next
// event of an ordered value) while its time lasts; and forwardDue, the cron's, which sends every due
// attempt (retries, attempts whose sender died) and waits for the next to come due, for up to a
// minute. Both may run at once, in any number of isolates: the claims keep every attempt to one sender.
import { RequestDb } from "../core/db";
import type { Bindings } from "../core/env";
import { tallyFor } from "../core/tally";
import { type ClaimedAttempt, sendAttempt } from "./forward-send";
import * as sql from "./sql";

/** The attempts counter in /metrics: by source and outcome. */
export const ATTEMPTS_METRIC = "admit_webhook_forward_attempts_total";

/** How long work after a response goes on starting attempts (Workers keeps waitUntil work 30 s). */
export const AFTER_RESPONSE_MS = 25_000;
/** How long one cron run goes on starting attempts (the next run starts a minute after this one). */
export const CRON_MS = 45_000;
/** Attempts one cron run has in flight at once. */
const CONCURRENCY = 10;
/** The longest an idle cron run waits before asking again what is due (an ordered value's next event waits on another's outcome). */
const POLL_MS = 1_000;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** One statement on a handle of its own: each is its own short transaction, bounded by DB_BUDGET_MS. */
async function once<T>(env: Bindings, fn: (db: RequestDb) => Promise<T>): Promise<T> {
  const db = new RequestDb(env);
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

async function claim(env: Bindings, which: { source?: string; event?: string }, limit: number, trigger: sql.AttemptTrigger): Promise<ClaimedAttempt[]> {
  return once(env, (db) => sql.claimForwardAttempts(db, which, limit, trigger));
}

/** Sends a claimed attempt and records how it went. A failure to record leaves the lease to lapse: the attempt is then marked lost and made again (at least once). */
async function attempt(env: Bindings, a: ClaimedAttempt): Promise<void> {
  const r = await sendAttempt(env, a);
  try {
    await once(env, (db) => sql.recordForwardAttempt(db, a, r));
  } catch (err) {
    console.error(
      `admit forward: the outcome of attempt ${a.attempt} of event ${a.id} was not recorded (${(err as Error)?.message ?? err}); it is made again when its lease lapses`,
    );
  }
  tallyFor(env)?.count(ATTEMPTS_METRIC, { source: a.source, outcome: r.outcome }, Date.now());
}

/**
 * The first attempt of a stored event (or of a redelivered one), then whatever else of its source
 * is due — the next event of an ordered value, a retry coming due within the time left (so a first
 * retry a few seconds away is made here, not a cron minute later) — while a whole attempt still fits
 * before `budgetMs` ends. Never throws.
 */
export async function forwardNow(
  env: Bindings,
  event: { id?: string; source: string },
  trigger: sql.AttemptTrigger,
  budgetMs = AFTER_RESPONSE_MS,
): Promise<void> {
  const stopAt = Date.now() + budgetMs;
  let longest = 0; // the longest timeout_ms seen: an attempt started later must end before stopAt
  const fits = (waitMs = 0) => Date.now() + waitMs + longest + 2_000 <= stopAt;
  try {
    let batch = await claim(env, event.id ? { event: event.id } : { source: event.source }, event.id ? 1 : CONCURRENCY, trigger);
    let waited = false;
    while (batch.length > 0 || !waited) {
      if (batch.length > 0) {
        longest = Math.max(longest, ...batch.map((a) => a.forward.timeout_ms));
        await Promise.all(batch.map((a) => attempt(env, a)));
        waited = false;
      } else {
        // Nothing due now: wait once for what comes due soonest, if an attempt then still fits.
        const dueIn = await once(env, (db) => sql.nextForwardDue(db));
        if (dueIn === null || longest === 0 || !fits(dueIn)) break;
        await sleep(dueIn);
        waited = true;
      }
      if (!fits()) break;
      batch = await claim(env, { source: event.source }, CONCURRENCY, "schedule");
    }
  } catch (err) {
    console.error(`admit forward: ${(err as Error)?.message ?? err}; the cron makes the attempt`);
  } finally {
    await tallyFor(env)?.flush();
  }
}

/**
 * The cron's run: every due attempt of every source, CONCURRENCY at a time, then whatever comes due
 * before `budgetMs` ends; attempts started are awaited. Returns how many were sent.
 */
export async function forwardDue(env: Bindings, budgetMs = CRON_MS): Promise<number> {
  const stopAt = Date.now() + budgetMs;
  const inFlight = new Set<Promise<void>>();
  let sent = 0;
  try {
    while (Date.now() < stopAt) {
      const room = CONCURRENCY - inFlight.size;
      const batch = room > 0 ? await claim(env, {}, room, "schedule") : [];
      for (const a of batch) {
        const p = attempt(env, a).finally(() => inFlight.delete(p));
        inFlight.add(p);
        sent++;
      }
      if (room > 0 && batch.length === room) continue; // more may be due now
      const dueIn = await once(env, (db) => sql.nextForwardDue(db));
      // Nothing pending, or nothing due before this run ends: the receivers and the next run go on.
      if (inFlight.size === 0 && (dueIn === null || dueIn >= stopAt - Date.now())) break;
      const wait = Math.min(Math.max(dueIn ?? POLL_MS, batch.length === 0 ? POLL_MS : 0), POLL_MS * 10, stopAt - Date.now());
      if (wait <= 0) continue;
      await Promise.race([sleep(wait), ...inFlight]);
    }
  } catch (err) {
    console.error(`admit forward (cron): ${(err as Error)?.message ?? err}; the next run goes on`);
  } finally {
    await Promise.allSettled([...inFlight]);
    await tallyFor(env)?.flush();
  }
  return sent;
}
