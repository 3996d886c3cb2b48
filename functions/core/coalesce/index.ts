// Concurrent decisions of one kind, coalesced into one statement (docs/performance.md, "Coalescing
// concurrent checks"). What the capabilities' sql.ts files and the tests import.
//
// Under a burst many decisions are in flight in one isolate at once, and alone each pays its own
// fetch to the SQL endpoint, its own turn on a pooled connection and, on a hot key, its own turn on
// the row lock. Here a decision that arrives while a statement of its kind is on its way to the same
// database waits for it to come back, and everything that waited goes as ONE statement (at most
// MAX_BATCH decisions) that decides each as its own statement would have, in arrival order per thing
// locked. No timer before sending: a decision with nothing in the air goes at once, as its own
// statement, exactly as with coalescing off. A second way opens only for a stalled statement
// (MAX_IN_FLIGHT).
//
// Per decision, as alone:
// - its budget: a decision still queued when its time runs out answers 503 (nothing was sent); one
//   whose batch was sent answers as a lost answer does (504 for a write: it may have been applied),
//   at its own deadline, the carrier too: the batch runs to its latest decision's (send.ts);
// - its lock timeout and its failure: a batch Postgres refused for one of its items (a lock wait, a
//   serialization conflict, a constraint, a value) applied nothing, and each of its decisions is sent
//   again as a statement of its own, by its own request, with its own time left and lock timeout;
//   any other failure of the statement (the database unreachable) is every decision's, as it would
//   have been for each;
// - a handle inside an explicit transaction, on DB_TRANSPORT=websocket, or with COALESCE=off has no
//   coalesceKey: never coalesced;
// - its answer known meanwhile without the database (`runUnless`'s `known`: a rate-limit check its
//   isolate's deny cache now refuses, learnt from an earlier batch of the burst): a decision still
//   queued leaves the queue unsent and answers from there, as if it had arrived now. One already in a
//   flight takes the database's answer;
// - what its answer teaches the isolate (`runUnless`'s `learn`: a denial for the deny cache) is
//   applied by the carrier the moment the batch lands, before any waiting request wakes: the
//   decisions still queued then find their answer known at once, instead of the first of them to
//   wake sending them as a statement the database then refuses (docs/performance.md, "Coalescing
//   concurrent checks": what a batch teaches is learnt as it lands).
//
// The files, each importing only those above it (no import circle):
//   types.ts      a kind of decision (BatchKind), what a caller may ask (Ask), a decision waiting or
//                 carried, a statement on its way
//   limits.ts     how many statements in the air, how many decisions in one, when one is stalled
//   stats.ts      what a coalescer did
//   lanes.ts      a lane per database: its queue, its flights, the next batch, the carrier's gate
//   send.ts       a batch sent and each decision settled; a refused batch's decisions sent alone
//   coalescer.ts  Coalescer: who goes alone, who waits, who carries the next batch
export { Coalescer, UNSENT } from "./coalescer";
export { type CoalesceLimits, MAX_BATCH, MAX_IN_FLIGHT, MAX_STALL_MS, MIN_STALL_MS, STALL_FACTOR, stallMs } from "./limits";
export { batchParams } from "./send";
export type { CoalesceStats } from "./stats";
export type { Ask, BatchKind } from "./types";
