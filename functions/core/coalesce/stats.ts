// What a coalescer did, counted as it does it, and what waits in its lanes now (read from the
// queues): the tests and the bench read these.

/** What a coalescer did (tests and the bench read it). */
export interface CoalesceStats {
  /** Decisions sent as statements of their own (few in flight). */
  alone: number;
  /** Statements that carried a batch, and the decisions they carried. */
  batches: number;
  batched: number;
  /** Batches that failed on a lock wait or conflict and were sent again one by one. */
  fallbacks: number;
  /** Times a queued decision woke from waiting (for the flights in the air, or the next carrier's gate). */
  wakes: number;
  /** Decisions waiting for a batch now (read from the queues). */
  readonly waiting: number;
}

/** Counters of what a coalescer did, and what waits in its lanes now. */
export function statsOver(lanes: Map<string, { queue: unknown[] }>): CoalesceStats {
  return {
    alone: 0,
    batches: 0,
    batched: 0,
    fallbacks: 0,
    wakes: 0,
    get waiting() {
      let n = 0;
      for (const lane of lanes.values()) n += lane.queue.length;
      return n;
    },
  };
}
