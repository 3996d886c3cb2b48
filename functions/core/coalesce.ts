// Concurrent decisions of one kind, coalesced into one statement (issue 33, part 2; docs/performance.md).
//
// Under a burst many decisions are in flight in one isolate at once, and alone each pays its own
// fetch to the SQL endpoint, its own turn on a pooled connection and, on a hot key, its own turn on
// the row lock. Here a decision that arrives while MAX_IN_FLIGHT statements of its kind are already
// on their way to the same database waits for one of them to come back, and everything that waited
// goes as ONE statement (at most MAX_BATCH decisions) that decides each as its own statement would
// have, in arrival order per thing locked. No timer: a decision with fewer than MAX_IN_FLIGHT
// statements ahead of it goes at once, as its own statement, exactly as with coalescing off.
//
// In workerd an I/O object (a fetch, a timer) belongs to the request that made it, and code that
// touches another request's is refused or cancelled with it. So a batch is sent by one of the
// requests waiting in it (its carrier, woken through a promise of its own), which waits for the
// answer itself; and each waiting request sets and clears only its own deadline timer.
//
// Per decision, as alone:
// - its budget: a decision still queued when its time runs out answers 503 (nothing was sent); one
//   whose batch was sent answers as a lost answer does (504 for a write: it may have been applied);
// - its failure: a batch Postgres refused for one of its items (a lock wait, a serialization
//   conflict, a constraint, a value) applied nothing, and each of its decisions is sent again as a
//   statement of its own, with the time it has left; any other failure of the statement (the
//   database unreachable) is every decision's, as it would have been for each;
// - a handle inside an explicit transaction, or without COALESCE=on (the default: off, see
//   docs/performance.md for the open failure in workerd), has no coalesceKey: never coalesced.
import { lostAnswer, type Queryable, sqlState } from "./db";
import { ProblemError } from "./errors";

/**
 * Statements of one kind on their way to one database before the next decision waits for a batch.
 * Two, not one: a statement held up on a lock wait (up to LOCK_TIMEOUT_MS) leaves the other way open,
 * so it does not stall every other key of the isolate behind it.
 */
export const MAX_IN_FLIGHT = 2;
/** The most decisions in one statement. */
export const MAX_BATCH = 64;

/** How one kind of decision is sent alone and together, and what it locks. */
export interface BatchKind<I, A> {
  /** The decision's own statement: what runs when few are in flight, and a failed batch's fallback. */
  alone(db: Queryable, item: I, withinMs: number | undefined): Promise<A>;
  /** One statement deciding `items`, one answer per item in order. */
  together(db: Queryable, items: I[], withinMs: number): Promise<A[]>;
  /** What the item locks: items of one group are decided in arrival order. */
  group(item: I): string;
  /** An exclusive item shares its group with no other item of a batch (it waits for the next one). */
  exclusive(item: I): boolean;
  /** A write: a lost answer after sending it is "outcome unknown". */
  write(item: I): boolean;
}

interface Waiting<I, A> {
  item: I;
  db: Queryable;
  started: number;
  deadline: number;
  sent: boolean;
  done: boolean;
  timer?: ReturnType<typeof setTimeout>;
  /** Its answer or failure, once settled. */
  result?: { answer: A } | { error: unknown };
  /** Wakes the waiting decision: its answer, its failure, or a batch for it to send (it carries one); only the first wake counts. */
  wake(turn: Turn<I, A>): void;
}

type Turn<I, A> = { answer: A } | { error: unknown } | { carry: Waiting<I, A>[]; out: () => void };

interface Lane<I, A> {
  inFlight: number;
  queue: Waiting<I, A>[];
}

/** What a coalescer did (tests and the bench read it). */
export interface CoalesceStats {
  /** Decisions sent as statements of their own (few in flight). */
  alone: number;
  /** Statements that carried a batch, and the decisions they carried. */
  batches: number;
  batched: number;
  /** Batches that failed on a lock wait or conflict and were sent again one by one. */
  fallbacks: number;
  /** Decisions waiting for a batch now. */
  waiting: number;
}

/** What Postgres refused for one decision of a batch, not for all (a lock wait, a conflict, a value): nothing was applied. */
const ITEM_PROBLEMS = new Set(["/problems/lock-timeout", "/problems/concurrent-conflict", "/problems/conflict", "/problems/validation"]);

/** A failure that applied nothing and belongs to some decision of the batch, not to all: send each again alone. */
function retryAlone(err: unknown): boolean {
  if (err instanceof ProblemError) return ITEM_PROBLEMS.has(err.problem.type);
  const state = sqlState(err);
  return state !== undefined && (state === "55P03" || state.startsWith("40") || state.startsWith("23") || state.startsWith("22"));
}

export class Coalescer<I, A> {
  private readonly lanes = new Map<string, Lane<I, A>>();
  readonly stats: CoalesceStats = { alone: 0, batches: 0, batched: 0, fallbacks: 0, waiting: 0 };

  constructor(
    private readonly kind: BatchKind<I, A>,
    private readonly limits: { inFlight: number; batch: number } = { inFlight: MAX_IN_FLIGHT, batch: MAX_BATCH },
  ) {}

  /** Decides `item` on `db`: at once alone, or in the next batch of its database. */
  async run(db: Queryable, item: I, withinMs?: number): Promise<A> {
    const key = db.coalesceKey;
    if (key === undefined) return this.kind.alone(db, item, withinMs);
    let lane = this.lanes.get(key);
    if (!lane) this.lanes.set(key, (lane = { inFlight: 0, queue: [] }));
    if (lane.inFlight < this.limits.inFlight && lane.queue.length === 0) {
      this.stats.alone++;
      const out = this.leave(key, lane);
      try {
        return await this.kind.alone(db, item, withinMs);
      } finally {
        out();
      }
    }
    const started = Date.now();
    const deadline = started + Math.min(withinMs ?? Infinity, db.remainingMs?.() ?? Infinity);
    const l = lane;
    let w!: Waiting<I, A>;
    const turn = await new Promise<Turn<I, A>>((wake) => {
      w = { item, db, started, deadline, sent: false, done: false, wake };
      if (Number.isFinite(deadline)) w.timer = setTimeout(() => this.expire(l, w), Math.max(0, deadline - started));
      l.queue.push(w);
      this.stats.waiting++;
    });
    // Only this request touches its own timer: in workerd a timer belongs to the request that set it.
    if (!("carry" in turn)) clearTimeout(w.timer);
    if ("answer" in turn) return turn.answer;
    if ("error" in turn) throw turn.error;
    // This decision carries the batch: the statement is sent from its own request, which waits for
    // it (so the runtime keeps that request's I/O alive until the batch is answered), and the one
    // after it is woken from here.
    const out = turn.out;
    try {
      await this.send(turn.carry);
    } finally {
      out();
    }
    clearTimeout(w.timer);
    const mine = w.result;
    if (!mine) throw new Error("coalesce: the carrier's own answer is missing");
    if ("error" in mine) throw mine.error;
    return mine.answer;
  }

  /** A statement leaves for the lane's database; the returned function says it came back, and what waits may go. */
  private leave(key: string, lane: Lane<I, A>): () => void {
    lane.inFlight++;
    let out = false;
    return () => {
      if (out) return;
      out = true;
      lane.inFlight--;
      this.drain(key, lane);
    };
  }

  /** Wakes the carrier of each batch the lane may send now (the batch's most patient decision). */
  private drain(key: string, lane: Lane<I, A>): void {
    while (lane.inFlight < this.limits.inFlight && lane.queue.length > 0) {
      const batch = this.take(lane);
      for (const w of batch) w.sent = true;
      const carrier = batch.reduce((a, b) => (b.deadline > a.deadline ? b : a));
      carrier.wake({ carry: batch, out: this.leave(key, lane) });
    }
    if (lane.inFlight === 0 && lane.queue.length === 0 && this.lanes.get(key) === lane) this.lanes.delete(key);
  }

  /** The next batch: the queue in order, an item joining unless its group is taken by an exclusive one (or it is exclusive and its group is taken), or an earlier item of its group stayed behind. */
  private take(lane: Lane<I, A>): Waiting<I, A>[] {
    const taken: Waiting<I, A>[] = [];
    const left: Waiting<I, A>[] = [];
    const groups = new Map<string, boolean>();
    const behind = new Set<string>();
    for (const w of lane.queue) {
      const g = this.kind.group(w.item);
      const exclusive = this.kind.exclusive(w.item);
      const there = groups.get(g);
      if (taken.length < this.limits.batch && !behind.has(g) && (there === undefined || (!there && !exclusive))) {
        taken.push(w);
        groups.set(g, there === undefined ? exclusive : there);
      } else {
        left.push(w);
        behind.add(g);
      }
    }
    lane.queue = left;
    this.stats.waiting -= taken.length;
    return taken;
  }

  /** Sends a batch (its carrier's request runs this) and settles each of its decisions. */
  private async send(batch: Waiting<I, A>[]): Promise<void> {
    // The statement may take as long as the most patient decision (the carrier); each gives up at its own deadline.
    const carrier = batch.reduce((a, b) => (b.deadline > a.deadline ? b : a));
    const left = carrier.deadline - Date.now();
    const withinMs = Number.isFinite(left) ? Math.max(1, left) : undefined;
    try {
      if (batch.length === 1) {
        this.stats.alone++;
        settle(carrier, await this.kind.alone(carrier.db, carrier.item, withinMs));
        return;
      }
      this.stats.batches++;
      this.stats.batched += batch.length;
      const answers = await this.kind.together(
        carrier.db,
        batch.map((w) => w.item),
        withinMs ?? 60_000,
      );
      for (const [i, w] of batch.entries()) settle(w, answers[i]);
    } catch (err) {
      if (batch.length > 1 && retryAlone(err)) {
        this.stats.fallbacks++;
        await Promise.all(
          batch.map(async (w) => {
            if (w.done) return;
            const ms = w.deadline - Date.now();
            try {
              settle(w, await this.kind.alone(w.db, w.item, Number.isFinite(ms) ? Math.max(1, ms) : undefined));
            } catch (e) {
              fail(w, e);
            }
          }),
        );
        return;
      }
      if (batch.length > 1)
        console.error(`admit coalesce: a statement of ${batch.length} decisions failed, each answers it: ${(err as Error)?.message ?? err}`);
      for (const w of batch) fail(w, !this.kind.write(w.item) && isOutcomeUnknown(err) ? lostAnswer(null, false) : err);
    }
  }

  /** The decision's time ran out: 503 if still queued (nothing sent), else a lost answer. */
  private expire(lane: Lane<I, A>, w: Waiting<I, A>): void {
    if (w.done) return;
    if (!w.sent) {
      lane.queue = lane.queue.filter((x) => x !== w);
      this.stats.waiting--;
    }
    fail(w, lostAnswer(Date.now() - w.started, w.sent && this.kind.write(w.item)));
  }
}

function isOutcomeUnknown(err: unknown): boolean {
  return err instanceof ProblemError && err.problem.type === "/problems/outcome-unknown";
}

function settle<I, A>(w: Waiting<I, A>, answer: A): void {
  if (w.done) return;
  w.done = true;
  w.result = { answer };
  w.wake(w.result);
}

function fail<I, A>(w: Waiting<I, A>, error: unknown): void {
  if (w.done) return;
  w.done = true;
  w.result = { error };
  w.wake(w.result);
}
