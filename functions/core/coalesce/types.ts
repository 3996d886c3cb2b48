// The shapes the coalescer works with: a kind of decision (how it is sent alone and together, what
// it locks), what a caller may ask of a queued decision, a decision waiting or carried, and a
// statement on its way. Types only; every other file of the folder may import this one, and it
// imports none of them.
import type { Queryable } from "../db";

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

/** A statement on its way: its promise is made and settled by the request that sent it, and by no other. */
export interface Flight {
  landed: Promise<void>;
  departed: number;
}

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
  /**
   * Its answer or failure, once its flight landed; `alone`: its batch was refused for one of its
   * decisions and applied nothing, so it is sent again as a statement of its own, by its own request.
   */
  result?: { answer: A } | { error: unknown } | { alone: true };
}
