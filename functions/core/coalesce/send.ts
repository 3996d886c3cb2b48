// A batch on its way: its statement's parameters, sent from the request that carries it, each of its
// decisions settled with its own answer or failure, and a batch Postgres refused for one of its items
// left for each of its decisions to send again alone, from its own request (coalescer.ts).
import { lostAnswer, type Queryable, sqlState } from "../db";
import { ProblemError } from "../errors";
import type { CoalesceStats } from "./stats";
import type { BatchKind, Waiting } from "./types";

/** What Postgres refused for one decision of a batch, not for all (a lock wait, a conflict, a value): nothing was applied. */
const ITEM_PROBLEMS = new Set(["/problems/lock-timeout", "/problems/concurrent-conflict", "/problems/conflict", "/problems/validation"]);

/** A failure that applied nothing and belongs to some decision of the batch, not to all: send each again alone. */
function retryAlone(err: unknown): boolean {
  if (err instanceof ProblemError) return ITEM_PROBLEMS.has(err.problem.type);
  const state = sqlState(err);
  return state !== undefined && (state === "55P03" || state.startsWith("40") || state.startsWith("23") || state.startsWith("22"));
}

/**
 * Sends a batch from the carrier's request and settles each of its decisions, each on its own budget:
 * - the statement may run until the LATEST deadline among its decisions (sent over that decision's
 *   handle, whose request budget reaches it), never the carrier's: a decision whose own time runs
 *   out first answers from its own timer (coalescer.ts; the carrier too, its request kept open until
 *   the batch lands), and one with more time is not answered 504 because another's ran out;
 * - its lock timeout is its most impatient decision's (batchParams): no decision waits on a lock
 *   longer than it would alone, and a wait that is refused applied nothing, so each decision is then
 *   sent again alone by its own request (runUnless), on its own budget and its own lock timeout;
 * - any other failure of the statement is every decision's, as it would have been for each.
 */
export async function sendBatch<I, A>(kind: BatchKind<I, A>, stats: CoalesceStats, batch: Waiting<I, A>[]): Promise<void> {
  const first = batch[0];
  try {
    if (batch.length === 1) {
      stats.alone++;
      settle(first, await kind.alone(first.db, first.item, msLeft(first.deadline)));
      return;
    }
    stats.batches++;
    stats.batched += batch.length;
    const latest = batch.reduce((a, w) => (w.deadline > a.deadline ? w : a));
    const answers = await kind.together(
      latest.db,
      batch.map((w) => w.item),
      msLeft(latest.deadline) ?? 60_000,
    );
    for (const [i, w] of batch.entries()) settle(w, answers[i]);
  } catch (err) {
    if (batch.length > 1 && retryAlone(err)) {
      stats.fallbacks++;
      for (const w of batch) w.result ??= { alone: true };
      return;
    }
    if (batch.length > 1) console.error(`admit coalesce: a statement of ${batch.length} decisions failed, each answers it: ${(err as Error)?.message ?? err}`);
    for (const w of batch) fail(w, !kind.write(w.item) && isOutcomeUnknown(err) ? lostAnswer(null, false) : err);
  }
}

/** The time left until `deadline` (ms, at least 1), or undefined for none. */
function msLeft(deadline: number): number | undefined {
  const left = deadline - Date.now();
  return Number.isFinite(left) ? Math.max(1, left) : undefined;
}

/**
 * A decision whose batch Postgres refused for one of its decisions (a lock wait, a conflict, a
 * value: nothing was applied), sent again as a statement of its own from its own request, with its
 * own time left and its own lock timeout: another decision's shorter ones never answer for it.
 */
export async function sendAgain<I, A>(kind: BatchKind<I, A>, db: Queryable, w: Waiting<I, A>, started: number): Promise<A> {
  if (w.deadline <= Date.now()) throw lostAnswer(Date.now() - started, false);
  return kind.alone(db, w.item, msLeft(w.deadline));
}

/**
 * A batch statement's parameters, for kinds whose items carry their own lock timeout: the items as
 * one JSON array (without it) and the shortest of them, which the whole statement waits at most. Its
 * answers come back together, so a longer wait would hold an impatient decision past its own lock
 * timeout for another's lock; a wait refused at the shortest applied nothing, and each decision is
 * sent again alone with its own (sendAgain). Rate-limit checks take the shortest the same way.
 */
export function batchParams<I extends { lockTimeoutMs: number }>(items: I[]): [string, number] {
  return [JSON.stringify(items.map(({ lockTimeoutMs: _, ...item }) => item)), Math.min(...items.map((x) => x.lockTimeoutMs))];
}

function isOutcomeUnknown(err: unknown): boolean {
  return err instanceof ProblemError && err.problem.type === "/problems/outcome-unknown";
}

function settle<I, A>(w: Waiting<I, A>, answer: A): void {
  if (w.result) return;
  w.result = { answer };
  taught(answer, w.learn);
}

/** Gives `answer` to `learn`, and returns it. */
export function taught<A>(answer: A, learn: ((answer: A) => void) | undefined): A {
  try {
    learn?.(answer);
  } catch (err) {
    // A lesson not learnt costs a later decision a statement, never this one its answer.
    console.error(`admit coalesce: learning from an answer failed: ${(err as Error)?.message ?? err}`);
  }
  return answer;
}

function fail<I, A>(w: Waiting<I, A>, error: unknown): void {
  w.result ??= { error };
}
