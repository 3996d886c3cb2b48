// A coalesced batch on its way (functions/core/coalesce.ts): sent from the request that carries it,
// each of its decisions settled with its own answer or failure, and a batch Postgres refused for one
// of its items sent again item by item.
import type { BatchKind, CoalesceStats } from "./coalesce";
import { lostAnswer, type Queryable, sqlState } from "./db";
import { ProblemError } from "./errors";

/** A decision waiting in a lane's queue, or carried in a flight. */
export interface Waiting<I, A> {
  item: I;
  /** Whether its answer is now known without the database (it then leaves the queue unsent). */
  known?: () => boolean;
  /** What its answer teaches the isolate, applied when its batch lands (in the carrier's request: memory only, no I/O). */
  learn?: (answer: A) => void;
  db: Queryable;
  deadline: number;
  /** The flight carrying it, once a carrier took it into a batch. */
  flight: Flight | null;
  /** Its answer or failure, once its flight landed. */
  result?: { answer: A } | { error: unknown };
}

/** A statement on its way: its promise is made and settled by the request that sent it, and by no other. */
export interface Flight {
  landed: Promise<void>;
  departed: number;
}

/** What Postgres refused for one decision of a batch, not for all (a lock wait, a conflict, a value): nothing was applied. */
const ITEM_PROBLEMS = new Set(["/problems/lock-timeout", "/problems/concurrent-conflict", "/problems/conflict", "/problems/validation"]);

/** A failure that applied nothing and belongs to some decision of the batch, not to all: send each again alone. */
function retryAlone(err: unknown): boolean {
  if (err instanceof ProblemError) return ITEM_PROBLEMS.has(err.problem.type);
  const state = sqlState(err);
  return state !== undefined && (state === "55P03" || state.startsWith("40") || state.startsWith("23") || state.startsWith("22"));
}

/**
 * Sends a batch from the carrier's request and settles each of its decisions. The carrier waits
 * for it (its request holds the fetch), so the statement gets the carrier's time left; a decision
 * whose own time runs out first answers from its own timer.
 */
export async function sendBatch<I, A>(kind: BatchKind<I, A>, stats: CoalesceStats, batch: Waiting<I, A>[], carrierDeadline: number): Promise<void> {
  const ms = (deadline: number) => {
    const left = Math.min(deadline, carrierDeadline) - Date.now();
    return Number.isFinite(left) ? Math.max(1, left) : undefined;
  };
  const first = batch[0];
  try {
    if (batch.length === 1) {
      stats.alone++;
      settle(first, await kind.alone(first.db, first.item, ms(first.deadline)));
      return;
    }
    stats.batches++;
    stats.batched += batch.length;
    const answers = await kind.together(
      first.db,
      batch.map((w) => w.item),
      ms(Math.max(...batch.map((w) => w.deadline))) ?? 60_000,
    );
    for (const [i, w] of batch.entries()) settle(w, answers[i]);
  } catch (err) {
    if (batch.length > 1 && retryAlone(err)) {
      stats.fallbacks++;
      await Promise.all(
        batch.map(async (w) => {
          try {
            settle(w, await kind.alone(w.db, w.item, ms(w.deadline)));
          } catch (e) {
            fail(w, e);
          }
        }),
      );
      return;
    }
    if (batch.length > 1) console.error(`admit coalesce: a statement of ${batch.length} decisions failed, each answers it: ${(err as Error)?.message ?? err}`);
    for (const w of batch) fail(w, !kind.write(w.item) && isOutcomeUnknown(err) ? lostAnswer(null, false) : err);
  }
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
