// A lane per database an isolate talks to: its queue of waiting decisions, the statements in the air
// (flights) with how long they usually take, whether a way is free, the next batch taken off the
// queue, and the next carrier's gate.
//
// In workerd an I/O object (a fetch, a timer, a response body) belongs to the request that made it,
// and code that runs in another request's context cannot touch it ("Cannot perform I/O on behalf of
// a different request"). Code resumes in its own request's context only when the promise it awaits
// was made by ANOTHER request: its own promise, settled from another request's code, may resume it
// in the settler's context, and every I/O it then makes fails. So no request settles a promise
// another request made: each flight has one promise, made and settled by the request that sent it
// (`depart`), and each gate one, made and opened by the request that will carry the next batch
// (`makeGate`). A waiting request awaits those, and a deadline timer of its own (coalescer.ts).
import type { CoalesceLimits } from "./limits";
import type { BatchKind, Flight, Waiting } from "./types";

/**
 * The queued decision that will carry the next batch, and its gate: a promise its request made and
 * only its request settles, which every other queued decision waits on instead of the flights.
 */
export interface Gate<I, A> {
  owner: Waiting<I, A>;
  opened: Promise<void>;
  open: () => void;
}

export interface Lane<I, A> {
  flights: Set<Flight>;
  queue: Waiting<I, A>[];
  /** The next carrier's gate, while one is chosen (cleared when it takes its batch or leaves the queue). */
  next: Gate<I, A> | null;
  /** How long its statements usually take (ms): a moving average of the last ones. */
  usualMs: number;
  /** Node: set while the turn in which a flight landed lasts (nextTurn); nothing leaves before it ends. */
  landing: Promise<void> | null;
}

/** A lane with nothing queued and nothing in the air. */
export function newLane<I, A>(): Lane<I, A> {
  return { flights: new Set(), queue: [], next: null, usualMs: 0, landing: null };
}

/**
 * In Node (the library layer), one turn of the event loop: a flight that just landed resumed the
 * callers it answered, and their next decisions arrive within the turn. The waiter that will carry
 * the next batch lets them join it instead of sending the one or two that waited meanwhile alone,
 * ahead of the rest (docs/performance.md, "Coalescing concurrent checks": the landing turn).
 * Workers has no setImmediate, and there the next decisions come over the network, later than any
 * turn: none.
 */
const nextTurn: (() => Promise<void>) | null = typeof setImmediate === "function" ? () => new Promise((r) => setImmediate(r)) : null;

/**
 * Whether a statement may leave now: none in the air, or a way left and every one in the air stalled
 * (else: when they will be, ms from now; Infinity while every way is taken).
 */
export function wayFree<I, A>(lane: Lane<I, A>, limits: CoalesceLimits, now: number): true | number {
  if (lane.flights.size === 0) return true;
  if (lane.flights.size >= limits.inFlight) return Infinity;
  const stall = limits.stallMs(lane.usualMs);
  let youngest = -Infinity;
  for (const f of lane.flights) youngest = Math.max(youngest, f.departed);
  const left = youngest + stall - now;
  return left <= 0 ? true : left;
}

/** A statement leaves for the lane's database: its flight, and the function (called by the same request) that says it landed. */
export function depart<I, A>(lane: Lane<I, A>): { flight: Flight; land: () => void } {
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
 * The next batch, taken off the queue: the queue in order, an item joining unless its group is taken
 * by an exclusive one (or it is exclusive and its group is taken), or an earlier item of its group
 * stayed behind, up to `batch` items. An item whose answer is now known stays in the queue without
 * holding its group back: it leaves when it wakes.
 */
export function take<I, A>(lane: Lane<I, A>, kind: BatchKind<I, A>, batch: number): Waiting<I, A>[] {
  const taken: Waiting<I, A>[] = [];
  const left: Waiting<I, A>[] = [];
  const groups = new Map<string, boolean>();
  const behind = new Set<string>();
  for (const w of lane.queue) {
    if (w.known?.()) {
      left.push(w);
      continue;
    }
    const g = kind.group(w.item);
    const exclusive = kind.exclusive(w.item);
    const there = groups.get(g);
    if (taken.length < batch && !behind.has(g) && (there === undefined || (!there && !exclusive))) {
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

/** A waiting decision leaves the queue unsent (its time ran out, or its answer became known). */
export function dequeue<I, A>(lane: Lane<I, A>, w: Waiting<I, A>): void {
  lane.queue = lane.queue.filter((x) => x !== w);
}

/** A gate made by the request that calls this (and opened only by it). */
export function makeGate<I, A>(owner: Waiting<I, A>): Gate<I, A> {
  const { promise: opened, fire: open } = signal();
  return { owner, opened, open };
}

/** A next carrier leaves the queue without carrying: its gate opens and the lane has no next carrier. */
export function close<I, A>(lane: Lane<I, A>, gate: Gate<I, A>): void {
  if (lane.next === gate) lane.next = null;
  gate.open();
}

/** A promise and the function that settles it: made by the request that calls this, settled only by it (a flight, a gate). */
function signal(): { promise: Promise<void>; fire: () => void } {
  let fire!: () => void;
  const promise = new Promise<void>((resolve) => (fire = resolve));
  return { promise, fire };
}
