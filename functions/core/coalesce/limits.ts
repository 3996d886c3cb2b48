// How a coalescer schedules: how many statements of a kind may be on their way at once, how many
// decisions one statement holds, and when the statements in the air count as stalled. The figures
// behind each setting: docs/performance.md, "Coalescing concurrent checks".

/**
 * Statements of one kind on their way to one database at most. One at a time, normally: while it is
 * in the air everything that arrives waits for it and then goes together, and each statement costs
 * the Worker far more CPU than a decision in a batch does ("One statement in the air per kind").
 * The second way opens only while every statement in the air has been out longer than its stall
 * time (`stallMs`): one held up on a lock wait (up to LOCK_TIMEOUT_MS) then does not stall every
 * other key of the isolate behind it.
 */
export const MAX_IN_FLIGHT = 2;
/**
 * The most decisions in one statement. A burst drains in statements of at most this many, one after
 * another, each waking every decision still queued, so a larger batch means fewer statements and
 * fewer wakes ("At most 256 decisions per statement"). None of these kinds opens a subtransaction
 * per item, which would overflow other sessions' snapshots past 64: inventory's bookings, which do,
 * keep 32 (MAX_BOOKING_BATCH).
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
