// The coalescer: who goes alone, who waits, and who carries the next batch (index.ts says what each
// decision keeps when coalesced).
//
// A decision with nothing of its kind in the air and nothing queued goes at once, as its own
// statement. Any other joins its lane's queue. One queued request, the next carrier, awaits the
// flights in the air; when one lands it wakes in its own context and sends the next batch itself (it
// carries it). Every other queued request awaits the next carrier's gate, which opens when the batch
// it carried lands: a waiting request wakes when the batch carrying it lands or when a batch is taken
// without it, not at every landing (a wake costs a waiting request ~100 µs of Worker CPU in workerd;
// docs/performance.md, "Coalescing concurrent checks": one wake per queued decision). The gate opens
// at once when the carrier leaves decisions behind (answer known, past the batch size, held back by
// their group) or leaves the queue without carrying (a timeout, an answer known): they leave, or one
// of them becomes the next carrier. Only in Node: in the turn a statement landed in, nothing leaves
// before the turn's end, so the callers that statement answered can join the next batch (lanes.ts,
// nextTurn). Why every promise a request awaits is made and settled by one request: lanes.ts.
import { lostAnswer, type Queryable } from "../db";
import { close, depart, dequeue, type Gate, type Lane, makeGate, newLane, take, wayFree } from "./lanes";
import { type CoalesceLimits, MAX_BATCH, MAX_IN_FLIGHT, stallMs } from "./limits";
import { sendAgain, sendBatch, taught } from "./send";
import { statsOver } from "./stats";
import type { Ask, BatchKind, Waiting } from "./types";

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
    if (!lane) this.lanes.set(key, (lane = newLane()));
    const started = Date.now();
    const deadline = started + Math.min(withinMs ?? Infinity, db.remainingMs?.() ?? Infinity);
    if (lane.queue.length === 0 && !lane.landing && wayFree(lane, this.limits, started) === true) {
      this.stats.alone++;
      const { land } = depart(lane);
      try {
        return taught(await this.kind.alone(db, item, withinMs), learn);
      } finally {
        land();
      }
    }
    const w: Waiting<I, A> = { item, known, learn, db, deadline, flight: null };
    lane.queue.push(w);
    // This request's own deadline timer (a timer belongs to the request that set it). Always set,
    // even where every statement it waits for is bounded by an earlier deadline: a waiting request
    // whose only pending I/O is other requests' can be cancelled by workerd under sustained load
    // (docs/performance.md, "Coalescing concurrent checks": every waiting request keeps a deadline
    // timer of its own).
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = Number.isFinite(deadline)
      ? new Promise<typeof TIMED_OUT>((resolve) => {
          timer = setTimeout(() => resolve(TIMED_OUT), Math.max(0, deadline - started));
        })
      : null;
    // Its time ran out: still queued, nothing was sent (503); in a flight, its answer is lost (504 for a write).
    const timedOut = () => {
      if (!w.flight) dequeue(lane, w);
      return lostAnswer(Date.now() - started, w.flight !== null && this.kind.write(item));
    };
    // The gate this request made, if it became the next carrier (opened on every way out of here).
    let gate: Gate<I, A> | undefined;
    try {
      while (!w.result) {
        if (!w.flight && known?.()) {
          dequeue(lane, w);
          return UNSENT;
        }
        if (!w.flight && Date.now() >= w.deadline) {
          // Its time ran out before a way was free: nothing was sent for it (503); it carries nothing.
          dequeue(lane, w);
          throw lostAnswer(Date.now() - started, false);
        }
        // One queued decision, the next carrier, waits for the flights in the air; every other waits
        // on its gate, which opens when the batch it carries lands (or sooner, when it leaves the
        // queue or leaves decisions behind): a wake-up per decision, not one per flight landing.
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
        const free = w.flight ? Infinity : wayFree(lane, this.limits, Date.now());
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
      if (gate) close(lane, gate);
    }
    if ("error" in w.result) throw w.result.error;
    if ("alone" in w.result) return taught(await sendAgain(this.kind, db, w, started), learn);
    return w.result.answer;
  }

  /**
   * Takes the next batch off the queue and sends it from the calling request, settling each of its
   * decisions, then opens the carrier's gate (those it carried wake answered). Decisions left in the
   * queue (their answer known, past the batch's size, held back by their group) wake at once: they
   * leave, or choose the next carrier.
   */
  private async carry(lane: Lane<I, A>, gate: Gate<I, A> | undefined): Promise<void> {
    const batch = take(lane, this.kind, this.limits.batch);
    if (gate) {
      if (lane.next === gate) lane.next = null;
      // Decisions left behind, or nothing to send (every queued answer became known): they wake now.
      if (lane.queue.length > 0 || batch.length === 0) gate.open();
    }
    if (batch.length === 0) return;
    const { flight, land } = depart(lane);
    for (const w of batch) w.flight = flight;
    try {
      await sendBatch(this.kind, this.stats, batch);
    } finally {
      land();
      gate?.open();
    }
  }
}
