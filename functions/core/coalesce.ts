// Concurrent decisions of one kind, coalesced into one statement (issue 33, part 2; docs/performance.md).
//
// Under a burst many decisions are in flight in one isolate at once, and alone each pays its own
// fetch to the SQL endpoint, its own turn on a pooled connection and, on a hot key, its own turn on
// the row lock. Here a decision that arrives while a statement of its kind is on its way to the same
// database waits for it to come back, and everything that waited goes as ONE statement (at most
// MAX_BATCH decisions) that decides each as its own statement would have, in arrival order per thing
// locked. No timer before sending: a decision with nothing in the air goes at once, as its own
// statement, exactly as with coalescing off; only in Node, in the turn a statement landed in, the
// next waits for the turn's end so the callers that statement answered can join it (nextTurn).
// A second way opens only for a stalled statement (MAX_IN_FLIGHT).
//
// In workerd an I/O object (a fetch, a timer, a response body) belongs to the request that made it,
// and code that runs in another request's context cannot touch it. Code resumes in its own request's
// context only when the promise it awaits was made by ANOTHER request: its own promise settled from
// another request's code resumed it, under sustained load, in the settler's context — seen as 500s
// "Cannot perform I/O on behalf of a different request" and whole batches failing, once one carrier
// had resumed in the wrong context every later one did. So no request settles a promise another
// request made: each statement on its way (a flight) has one promise, made and settled by the request
// that sent it, and a waiting request awaits the flights (and a deadline timer of its own). One
// queued request, the next carrier, awaits the flights in the air; when one lands it wakes in its own
// context and sends the next batch itself (it carries it). Every other queued request awaits the next
// carrier's gate, a promise that request made and opens when the batch it carried lands: each waiting
// request wakes once, where it woke at every landing before (a wake costs a waiting request ~100 µs
// of Worker CPU in workerd; docs/performance.md, "One wake per queued decision"). The gate opens at
// once when the carrier leaves decisions behind (answer known, past MAX_BATCH, held back by their
// group) or leaves the queue without carrying (a timeout, an answer known): they leave, or one of
// them becomes the next carrier.
//
// Per decision, as alone (the sending and settling of a batch: coalesce-send.ts):
// - its budget: a decision still queued when its time runs out answers 503 (nothing was sent); one
//   whose batch was sent answers as a lost answer does (504 for a write: it may have been applied),
//   at its own deadline, the carrier too: the batch runs to its latest decision's (coalesce-send.ts);
// - its lock timeout and its failure: a batch Postgres refused for one of its items (a lock wait, a
//   serialization conflict, a constraint, a value) applied nothing, and each of its decisions is sent
//   again as a statement of its own, by its own request, with its own time left and lock timeout;
//   any other failure of the statement (the database unreachable) is every decision's, as it would
//   have been for each;
// - a handle inside an explicit transaction, on DB_TRANSPORT=websocket, or with COALESCE=off has no
//   coalesceKey: never coalesced.
// - its answer known meanwhile without the database (`runUnless`'s `known`: a rate-limit check its
//   isolate's deny cache now refuses, learnt from an earlier batch of the burst): a decision still
//   queued leaves the queue unsent and answers from there, as if it had arrived now. One already in a
//   flight takes the database's answer.
// - what its answer teaches the isolate (`runUnless`'s `learn`: a denial for the deny cache) is
//   applied by the carrier the moment the batch lands, before any waiting request wakes: the
//   decisions still queued then find their answer known at once, instead of the first of them to
//   wake sending them as a statement the database then refuses (seen in a burst of 1 000 checks on
//   one key: 256 more sent 3 ms after the batch that refused them landed; docs/performance.md,
//   "Bursts: what a batch teaches").
import { type Flight, sendAgain, sendBatch, statsOver, taught, type Waiting } from "./coalesce-send";
import { lostAnswer, type Queryable } from "./db";

export { batchParams, type CoalesceStats } from "./coalesce-send";

/**
 * Statements of one kind on their way to one database at most. One at a time, normally: while it is
 * in the air everything that arrives waits for it and then goes together, and each statement costs
 * the Worker far more CPU than a decision in a batch does (docs/performance.md: with two always open,
 * twice the statements and ~20 % more Worker CPU per check at 16 clients). The second way opens only
 * while every statement in the air has been out longer than its stall time (`stallMs`): one held up
 * on a lock wait (up to LOCK_TIMEOUT_MS) then does not stall every other key of the isolate behind it.
 */
export const MAX_IN_FLIGHT = 2;
/**
 * The most decisions in one statement. A burst of 1 000 at once went in ~16 statements of 64, one
 * after another, each waking every decision still queued; with 256, in 4–5 (none of these kinds
 * opens a subtransaction per item, which would overflow other sessions' snapshots past 64:
 * inventory's bookings, which do, keep 32).
 */
export const MAX_BATCH = 256;
/** A statement is stalled once it has been out this many times as long as the lane's statements usually take… */
export const STALL_FACTOR = 3;
/** …and at least this long (ms)… */
export const MIN_STALL_MS = 5;
/** …and at most this long (ms): one statement held for a whole lock wait must not teach the lane to wait that long. */
export const MAX_STALL_MS = 100;

/** When the statements in the air count as stalled, from how long the lane's statements usually take (ms). */
export function stallMs(usualMs: number): number {
  return Math.min(MAX_STALL_MS, Math.max(MIN_STALL_MS, STALL_FACTOR * usualMs));
}

/** How a coalescer schedules: its ways, its batch size, and when a second way opens (`stallMs: () => 0`: at once). */
export interface CoalesceLimits {
  inFlight: number;
  batch: number;
  stallMs: (usualMs: number) => number;
}

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

/** What `runUnless` may ask of a queued decision: whether its answer became known, and what its answer teaches. */
export interface Ask<A> {
  known?: () => boolean;
  learn?: (answer: A) => void;
}

/**
 * The queued decision that will carry the next batch, and its gate: a promise its request made and
 * only its request settles, which every other queued decision waits on instead of the flights.
 */
interface Gate<I, A> {
  owner: Waiting<I, A>;
  opened: Promise<void>;
  open: () => void;
}

interface Lane<I, A> {
  flights: Set<Flight>;
  queue: Waiting<I, A>[];
  /** The next carrier's gate, while one is chosen (cleared when it takes its batch or leaves the queue). */
  next: Gate<I, A> | null;
  /** How long its statements usually take (ms): a moving average of the last ones. */
  usualMs: number;
  /** Node: set while the turn in which a flight landed lasts (nextTurn); nothing leaves before it ends. */
  landing: Promise<void> | null;
}

/**
 * In Node (the library layer), one turn of the event loop: a flight that just landed resumed the
 * callers it answered, and their next decisions arrive within the turn. The waiter that will carry
 * the next batch lets them join it instead of sending the one or two that waited meanwhile alone
 * (at 16 callers on one key: statements of 1 and 15 alternated). Workers has no setImmediate, and
 * there the next decisions come over the network, later than any turn: none.
 */
const nextTurn: (() => Promise<void>) | null = typeof setImmediate === "function" ? () => new Promise((r) => setImmediate(r)) : null;

const TIMED_OUT = Symbol("timed out");
/** What `runUnless` answers for a decision that left the queue unsent because its answer became known. */
export const UNSENT = Symbol("unsent");
const STALLED = Symbol("stalled");

export class Coalescer<I, A> {
  private readonly lanes = new Map<string, Lane<I, A>>();
  readonly stats = statsOver(this.lanes);

  constructor(
    private readonly kind: BatchKind<I, A>,
    private readonly limits: CoalesceLimits = { inFlight: MAX_IN_FLIGHT, batch: MAX_BATCH, stallMs },
  ) {}

  /** Whether a statement may leave now: none in the air, or a way left and every one in the air stalled (else: when they will be, ms from now). */
  private wayFree(lane: Lane<I, A>, now: number): true | number {
    if (lane.flights.size === 0) return true;
    if (lane.flights.size >= this.limits.inFlight) return Infinity;
    const stall = this.limits.stallMs(lane.usualMs);
    let youngest = -Infinity;
    for (const f of lane.flights) youngest = Math.max(youngest, f.departed);
    const left = youngest + stall - now;
    return left <= 0 ? true : left;
  }

  /** Decides `item` on `db`: at once alone, or in a batch of its database. */
  async run(db: Queryable, item: I, withinMs?: number): Promise<A> {
    return (await this.runUnless(db, item, withinMs)) as A;
  }

  /**
   * As run(), but while the decision waits in the queue (before any statement carries it) `known` is
   * asked each time it wakes and whenever a batch is taken: once true it leaves the queue unsent and
   * this answers UNSENT (the caller answers from what it now knows). `learn` is given every answer
   * once, as soon as it comes back: sent alone, here; in a batch, by the request that carried it,
   * as the batch lands (not when this one wakes). What it teaches must be in memory only (no I/O: it
   * may run in another request's context).
   */
  async runUnless(db: Queryable, item: I, withinMs?: number, { known, learn }: Ask<A> = {}): Promise<A | typeof UNSENT> {
    const key = db.coalesceKey;
    if (key === undefined) return taught(await this.kind.alone(db, item, withinMs), learn);
    // A lane per database the isolate talks to (a handful): kept, with what its statements usually take.
    let lane = this.lanes.get(key);
    if (!lane) this.lanes.set(key, (lane = { flights: new Set(), queue: [], next: null, usualMs: 0, landing: null }));
    const started = Date.now();
    const deadline = started + Math.min(withinMs ?? Infinity, db.remainingMs?.() ?? Infinity);
    if (lane.queue.length === 0 && !lane.landing && this.wayFree(lane, started) === true) {
      this.stats.alone++;
      const { land } = this.depart(lane);
      try {
        return taught(await this.kind.alone(db, item, withinMs), learn);
      } finally {
        land();
      }
    }
    const w: Waiting<I, A> = { item, known, learn, db, deadline, flight: null };
    lane.queue.push(w);
    // This request's own deadline timer (a timer belongs to the request that set it). Always set,
    // even where every statement it waits for is bounded by an earlier deadline: without one of its
    // own, workerd cancelled waiting requests under sustained load (a full bench: 500s in the bursts
    // and ~100 000 "promise resolved from a different request context" warnings; docs/performance.md).
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = Number.isFinite(deadline)
      ? new Promise<typeof TIMED_OUT>((resolve) => {
          timer = setTimeout(() => resolve(TIMED_OUT), Math.max(0, deadline - started));
        })
      : null;
    // Its time ran out: still queued, nothing was sent (503); in a flight, its answer is lost (504 for a write).
    const timedOut = () => {
      if (!w.flight) this.dequeue(lane, w);
      return lostAnswer(Date.now() - started, w.flight !== null && this.kind.write(item));
    };
    // The gate this request made, if it became the next carrier (opened on every way out of here).
    let gate: Gate<I, A> | undefined;
    try {
      while (!w.result) {
        if (!w.flight && known?.()) {
          this.dequeue(lane, w);
          return UNSENT;
        }
        if (!w.flight && Date.now() >= w.deadline) {
          // Its time ran out before a way was free: nothing was sent for it (503); it carries nothing.
          this.dequeue(lane, w);
          throw lostAnswer(Date.now() - started, false);
        }
        // One queued decision, the next carrier, waits for the flights in the air; every other waits
        // on its gate, which opens when the batch it carries lands (or sooner, when it leaves the
        // queue or leaves decisions behind): a wake-up per decision, not one per flight landing
        // (each costs a waiting request ~100 µs of Worker CPU in workerd; docs/performance.md).
        const next = w.flight ? null : lane.next;
        if (next && next.owner !== w) {
          const woke = await (timeout ? Promise.race([next.opened, timeout]) : next.opened);
          this.stats.wakes++;
          if (woke === TIMED_OUT && !w.result) throw timedOut();
          continue;
        }
        if (!w.flight && !next) {
          gate = makeGate(w);
          lane.next = gate;
        }
        const free = w.flight ? Infinity : this.wayFree(lane, Date.now());
        if (free === true) {
          if (lane.landing) {
            // A flight landed in this turn: the decisions it answered may ask again within it (nextTurn).
            await lane.landing;
            continue;
          }
          // A way is free: this request sends the next batch (itself in it, unless an earlier
          // decision of its group holds it back) and waits for it in its own context, until its own
          // deadline (the batch runs to its latest decision's; keepAlive holds the request till then).
          const carrying = gate;
          gate = undefined;
          const carried = this.carry(lane, carrying);
          db.keepAlive?.(carried);
          const woke = await (timeout ? Promise.race([carried, timeout]) : carried);
          if (woke === TIMED_OUT && !w.result) throw timedOut();
          continue;
        }
        const flights: Promise<unknown>[] = w.flight ? [w.flight.landed] : [...lane.flights].map((f) => f.landed);
        if (timeout) flights.push(timeout);
        // The next carrier also wakes when the statements in the air will count as stalled.
        let stallTimer: ReturnType<typeof setTimeout> | undefined;
        if (Number.isFinite(free) && !w.flight) {
          flights.push(new Promise<typeof STALLED>((resolve) => (stallTimer = setTimeout(() => resolve(STALLED), free))));
        }
        const woke = await Promise.race(flights);
        this.stats.wakes++;
        clearTimeout(stallTimer);
        if (woke === TIMED_OUT && !w.result) throw timedOut();
        if (!w.result && w.flight && !lane.flights.has(w.flight)) w.result = { error: new Error("coalesce: a batch landed without this decision's answer") };
      }
    } finally {
      clearTimeout(timer);
      // Leaving the queue uncarried (an answer, a timeout, UNSENT): the others choose a next carrier.
      if (gate) this.close(lane, gate);
    }
    if ("error" in w.result) throw w.result.error;
    if ("alone" in w.result) return taught(await sendAgain(this.kind, db, w, started), learn);
    return w.result.answer;
  }

  /** A statement leaves for the lane's database: its flight, and the function (called by the same request) that says it landed. */
  private depart(lane: Lane<I, A>): { flight: Flight; land: () => void } {
    const { promise: landed, fire: resolve } = signal();
    const flight: Flight = { landed, departed: Date.now() };
    lane.flights.add(flight);
    const land = () => {
      if (!lane.flights.delete(flight)) return;
      const took = Date.now() - flight.departed;
      lane.usualMs = lane.usualMs === 0 ? took : 0.8 * lane.usualMs + 0.2 * took;
      if (nextTurn && !lane.landing) {
        const landing = nextTurn().then(() => {
          if (lane.landing === landing) lane.landing = null;
        });
        lane.landing = landing;
      }
      resolve();
    };
    return { flight, land };
  }

  /**
   * Takes the next batch off the queue and sends it from the calling request, settling each of its
   * decisions, then opens the carrier's gate (those it carried wake answered). Decisions left in the
   * queue (their answer known, past the batch's size, held back by their group) wake at once: they
   * leave, or choose the next carrier.
   */
  private async carry(lane: Lane<I, A>, gate: Gate<I, A> | undefined): Promise<void> {
    const batch = this.take(lane);
    if (gate) {
      if (lane.next === gate) lane.next = null;
      // Decisions left behind, or nothing to send (every queued answer became known): they wake now.
      if (lane.queue.length > 0 || batch.length === 0) gate.open();
    }
    if (batch.length === 0) return;
    const { flight, land } = this.depart(lane);
    for (const w of batch) w.flight = flight;
    try {
      await sendBatch(this.kind, this.stats, batch);
    } finally {
      land();
      gate?.open();
    }
  }

  /** A next carrier leaves the queue without carrying: its gate opens and the lane has no next carrier. */
  private close(lane: Lane<I, A>, gate: Gate<I, A>): void {
    if (lane.next === gate) lane.next = null;
    gate.open();
  }

  /** A waiting decision leaves the queue unsent (its time ran out). */
  private dequeue(lane: Lane<I, A>, w: Waiting<I, A>): void {
    lane.queue = lane.queue.filter((x) => x !== w);
  }

  /**
   * The next batch: the queue in order, an item joining unless its group is taken by an exclusive one
   * (or it is exclusive and its group is taken), or an earlier item of its group stayed behind. An
   * item whose answer is now known stays in the queue without holding its group back: it leaves
   * when it wakes (every queued decision wakes when a flight lands).
   */
  private take(lane: Lane<I, A>): Waiting<I, A>[] {
    const taken: Waiting<I, A>[] = [];
    const left: Waiting<I, A>[] = [];
    const groups = new Map<string, boolean>();
    const behind = new Set<string>();
    for (const w of lane.queue) {
      if (w.known?.()) {
        left.push(w);
        continue;
      }
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
    return taken;
  }
}

/** A promise and the function that settles it: made by the request that calls this, settled only by it (a flight, a gate). */
function signal(): { promise: Promise<void>; fire: () => void } {
  let fire!: () => void;
  const promise = new Promise<void>((resolve) => (fire = resolve));
  return { promise, fire };
}

/** A gate made by the request that calls this (and opened only by it). */
function makeGate<I, A>(owner: Waiting<I, A>): Gate<I, A> {
  const { promise: opened, fire: open } = signal();
  return { owner, opened, open };
}
