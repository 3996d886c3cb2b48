// The coalescer's scheduling on its own (functions/core/coalesce/): who goes alone, who waits,
// what a batch holds and in which order, a failed batch's fallback, a queued decision's deadline.
// The statements here are stand-ins that record what they were asked: this suite judges the
// scheduling only. The decisions themselves, against real Postgres under real bursts, are judged
// by test/ratelimits/ratelimits.coalesce.test.ts; each decision's budget in a batch by
// coalesce.budgets.test.ts.
import { describe, expect, it } from "vitest";
import { stallMs, UNSENT } from "../../functions/core/coalesce";
import { ProblemError, problem } from "../../functions/core/errors";
import { harness, type Item, tick } from "./coalesce-harness";

describe("coalescing concurrent decisions into one statement", () => {
  it("a decision with fewer than MAX_IN_FLIGHT statements ahead goes at once, alone; the rest wait and go together, in arrival order", async () => {
    const { sent, coalescer, db } = harness();
    const answers = Array.from({ length: 6 }, (_, id) => coalescer.run(db, { id, key: `k${id}` }));
    await tick();
    expect(sent.map((s) => [s.items, s.together])).toEqual([
      [[0], false],
      [[1], false],
    ]);
    sent[0].answer();
    await tick();
    // One of the two landed: everything that waited goes as one statement.
    expect(sent[2]).toMatchObject({ items: [2, 3, 4, 5], together: true });
    sent[1].answer();
    sent[2].answer();
    expect(await Promise.all(answers)).toEqual(["answer 0", "answer 1", "answer 2", "answer 3", "answer 4", "answer 5"]);
    expect(coalescer.stats).toEqual({ alone: 2, batches: 1, batched: 4, fallbacks: 0, wakes: 4, waiting: 0 });
  });

  it("one statement at a time while the one in the air is young; the second way opens once it has been out past its stall time", async () => {
    const { sent, coalescer, db } = harness({ inFlight: 2, stallMs: () => 40 });
    const answers = Array.from({ length: 4 }, (_, id) => coalescer.run(db, { id, key: `k${id}` }));
    await tick();
    // The first goes at once, alone; the others wait for it (a second way is not open yet).
    expect(sent.map((s) => s.items)).toEqual([[0]]);
    await new Promise((r) => setTimeout(r, 15));
    expect(sent).toHaveLength(1);
    // Still out after its stall time (a lock wait, say): the first in the queue sends the rest on the second way.
    await new Promise((r) => setTimeout(r, 60));
    expect(sent.map((s) => [s.items, s.together])).toEqual([
      [[0], false],
      [[1, 2, 3], true],
    ]);
    // Both ways busy: a later decision waits, and goes when one lands.
    const later = coalescer.run(db, { id: 4, key: "k4" });
    await tick();
    expect(sent).toHaveLength(2);
    sent[1].answer();
    await tick();
    expect(sent[2].items).toEqual([4]);
    sent[0].answer();
    sent[2].answer();
    expect(await Promise.all([...answers, later])).toEqual(["answer 0", "answer 1", "answer 2", "answer 3", "answer 4"]);
  });

  it("the stall time follows how long the lane's statements usually take, from MIN_STALL_MS to MAX_STALL_MS", async () => {
    expect(stallMs(0)).toBe(5);
    expect(stallMs(1)).toBe(5);
    expect(stallMs(10)).toBe(30);
    expect(stallMs(5_000)).toBe(100); // after a statement held for a whole lock wait
    const usual: number[] = [];
    const { sent, coalescer, db } = harness({
      inFlight: 2,
      stallMs: (u) => {
        usual.push(u);
        return 10_000;
      },
    });
    const first = coalescer.run(db, { id: 0, key: "a" });
    await new Promise((r) => setTimeout(r, 30));
    sent[0].answer();
    await first;
    await new Promise((r) => setImmediate(r)); // past the turn it landed in (the next test): the two below ask apart from it
    const second = coalescer.run(db, { id: 1, key: "a" });
    const third = coalescer.run(db, { id: 2, key: "a" });
    await tick();
    sent[1].answer();
    await tick();
    sent[2].answer();
    await Promise.all([second, third]);
    // The 30 ms statement is what the lane learned before the next decision asked.
    expect(usual.length).toBeGreaterThan(0);
    expect(Math.max(...usual)).toBeGreaterThanOrEqual(25);
  });

  it("the callers a landed statement answered ask again within its turn (Node): their next decisions go together, none alone", async () => {
    const { sent, coalescer, db } = harness({ inFlight: 1 });
    // Four callers on one key, each asking again as soon as it has its answer (the library layer's clients).
    const caller = async (c: number) => {
      for (let n = 0; n < 3; n++) await coalescer.run(db, { id: 10 * c + n, key: "hot" });
    };
    const callers = Promise.all([0, 1, 2, 3].map(caller));
    // Turns of the event loop, not time: a loaded machine may run a 1 ms timer before an immediate.
    const sentReaches = async (n: number) => {
      for (let i = 0; i < 1000 && sent.length < n; i++) await new Promise((r) => setImmediate(r));
    };
    await sentReaches(1);
    expect(sent.map((s) => s.items)).toEqual([[0]]);
    sent[0].answer();
    await sentReaches(2);
    // Caller 0's next decision joins the three that waited, instead of the three leaving without it
    // and it going alone after them.
    const sorted = (i: number) => [...sent[i].items].sort((a, b) => a - b);
    expect(sorted(1)).toEqual([1, 10, 20, 30]);
    sent[1].answer();
    await sentReaches(3);
    expect(sorted(2)).toEqual([2, 11, 21, 31]);
    sent[2].answer();
    await sentReaches(4);
    expect(sorted(3)).toEqual([12, 22, 32]);
    sent[3].answer();
    await callers;
    expect(coalescer.stats).toMatchObject({ alone: 1, batches: 3, batched: 11 });
  });

  it("without a coalesceKey (COALESCE=off, a transaction) every decision is its own statement", async () => {
    const { sent, coalescer, db } = harness(undefined, null);
    const answers = Array.from({ length: 5 }, (_, id) => coalescer.run(db, { id, key: "k" }));
    await tick();
    expect(sent.map((s) => s.items)).toEqual([[0], [1], [2], [3], [4]]);
    for (const s of sent) s.answer();
    await Promise.all(answers);
    expect(coalescer.stats.batches).toBe(0);
  });

  it("an exclusive decision has its group to itself; later decisions of that group wait behind it, so each group keeps its order", async () => {
    const { sent, coalescer, db } = harness({ inFlight: 1, batch: 64 });
    const items: Item[] = [
      { id: 0, key: "x" }, // alone
      { id: 1, key: "a" },
      { id: 2, key: "a", exclusive: true }, // a is taken: next batch
      { id: 3, key: "a" }, // behind 2
      { id: 4, key: "b" },
      { id: 5, key: "c", exclusive: true },
      { id: 6, key: "c" }, // c is exclusive: next batch
    ];
    const answers = items.map((i) => coalescer.run(db, i));
    await tick();
    sent[0].answer();
    await tick();
    expect(sent[1].items).toEqual([1, 4, 5]);
    sent[1].answer();
    await tick();
    expect(sent[2].items).toEqual([2, 6]);
    sent[2].answer();
    await tick();
    expect(sent[3].items).toEqual([3]);
    sent[3].answer();
    await Promise.all(answers);
  });

  it("a batch holds at most MAX_BATCH decisions", async () => {
    const { sent, coalescer, db } = harness({ inFlight: 1, batch: 3 });
    const answers = Array.from({ length: 8 }, (_, id) => coalescer.run(db, { id, key: `k${id}` }));
    await tick();
    sent[0].answer();
    await tick();
    expect(sent[1].items).toEqual([1, 2, 3]);
    sent[1].answer();
    await tick();
    expect(sent[2].items).toEqual([4, 5, 6]);
    sent[2].answer();
    await tick();
    expect(sent[3].items).toEqual([7]);
    sent[3].answer();
    await Promise.all(answers);
  });

  it("a batch that failed on a lock wait applied nothing: each of its decisions is sent again alone and answers for itself", async () => {
    const { sent, coalescer, db } = harness({ inFlight: 1, batch: 64 });
    const answers = Array.from({ length: 4 }, (_, id) => coalescer.run(db, { id, key: `k${id}` }).catch((e: unknown) => e));
    await tick();
    sent[0].answer();
    await tick();
    expect(sent[1]).toMatchObject({ items: [1, 2, 3], together: true });
    sent[1].answer(problem("lock-timeout", "held"));
    await tick();
    // Each sent again by its own request (in the order they wake).
    const again = (id: number) => sent.slice(2).find((s) => s.items[0] === id)!;
    expect(
      sent
        .slice(2)
        .map((s) => [s.items, s.together])
        .sort(),
    ).toEqual([
      [[1], false],
      [[2], false],
      [[3], false],
    ]);
    again(1).answer();
    again(2).answer();
    again(3).answer(problem("lock-timeout", "still held")); // only this decision's key is slow
    const out = await Promise.all(answers);
    expect(out.slice(0, 3)).toEqual(["answer 0", "answer 1", "answer 2"]);
    expect((out[3] as ProblemError).problem.type).toBe("/problems/lock-timeout");
    expect(coalescer.stats.fallbacks).toBe(1);
  });

  it("any other failure of the batch's statement is every decision's (a peek's lost answer says nothing was applied)", async () => {
    const { sent, coalescer, db } = harness({ inFlight: 1, batch: 64 });
    const answers = Array.from({ length: 3 }, (_, id) => coalescer.run(db, { id, key: `k${id}` }).catch((e: unknown) => e));
    await tick();
    sent[0].answer();
    await tick();
    sent[1].answer(problem("database-unavailable", "gone"));
    const out = await Promise.all(answers);
    expect(out[0]).toBe("answer 0");
    expect((out[1] as ProblemError).problem.type).toBe("/problems/database-unavailable");
    expect((out[2] as ProblemError).problem.type).toBe("/problems/database-unavailable");
    expect(sent).toHaveLength(2);
  });

  it("a decision still waiting when its time runs out answers 503 (nothing was sent) and leaves the queue", async () => {
    const { sent, coalescer, db } = harness({ inFlight: 1, batch: 64 });
    const first = coalescer.run(db, { id: 0, key: "k" });
    const late = coalescer.run(db, { id: 1, key: "k" }, 30).catch((e: unknown) => e);
    const patient = coalescer.run(db, { id: 2, key: "k" });
    expect(coalescer.stats.waiting).toBe(2);
    const err = (await late) as ProblemError;
    expect(coalescer.stats.waiting).toBe(1);
    expect(err).toBeInstanceOf(ProblemError);
    expect(err.problem.status).toBe(503);
    expect(err.problem.detail).toMatch(/within \d+ ms/);
    sent[0].answer();
    await tick();
    expect(sent[1].items).toEqual([2]);
    sent[1].answer();
    expect(await first).toBe("answer 0");
    expect(await patient).toBe("answer 2");
  });
  it("a queued decision whose answer became known leaves unsent: the next batch goes without it, and one already in a flight takes the statement's answer", async () => {
    const { sent, coalescer, db } = harness({ inFlight: 1, batch: 64 });
    let known = false;
    const first = coalescer.runUnless(db, { id: 0, key: "k" }, undefined, { known: () => known });
    const queued = Array.from({ length: 4 }, (_, i) =>
      coalescer.runUnless(db, { id: i + 1, key: i % 2 ? "k" : "other" }, undefined, i < 2 ? { known: () => known } : undefined),
    );
    await tick();
    expect(sent.map((s) => s.items)).toEqual([[0]]);
    known = true; // e.g. the deny cache learnt a denial meanwhile
    sent[0].answer();
    await tick();
    // 1 and 2 left the queue; 3 and 4 (no `known`) go together.
    expect(sent.map((s) => s.items)).toEqual([[0], [3, 4]]);
    sent[1].answer();
    expect(await first).toBe("answer 0"); // in the air when its answer became known: the statement's answer
    expect(await Promise.all(queued)).toEqual([UNSENT, UNSENT, "answer 3", "answer 4"]);
    expect(coalescer.stats.waiting).toBe(0);
  });

  it("what a batch's answers teach is learnt as it lands, before anyone waiting wakes: the decisions queued behind it leave unsent", async () => {
    // A burst on one key in workerd: the decisions a batch carried resume (and would teach the deny
    // cache) only after the ones still queued have woken, and the first of those to wake sent them
    // all as a second statement the database refused. The carrier learns for them instead.
    const { sent, coalescer, db } = harness({ inFlight: 1, batch: 64 });
    let denied = false;
    const learnt: string[] = [];
    let settledBeforeLearning = 0;
    const done = new Set<number>();
    const ask = {
      known: () => denied,
      learn: (a: string) => {
        learnt.push(a);
        // The first answer admits (nothing to refuse from it); the batch's deny the key.
        if (a !== "answer 0") denied = true;
        settledBeforeLearning += done.size;
      },
    };
    // Which of the decisions after the first (in the batch, or behind it) have resumed.
    const decide = (id: number) =>
      coalescer.runUnless(db, { id, key: "k" }, undefined, ask).then((r) => {
        if (id > 0) done.add(id);
        return r;
      });
    const first = decide(0);
    const batched = [decide(1), decide(2)];
    await tick();
    sent[0].answer();
    await tick();
    expect(sent.map((s) => s.items)).toEqual([[0], [1, 2]]);
    const behind = [decide(3), decide(4)];
    await tick();
    sent[1].answer();
    expect(await Promise.all(behind)).toEqual([UNSENT, UNSENT]);
    expect(await Promise.all(batched)).toEqual(["answer 1", "answer 2"]);
    expect(await first).toBe("answer 0");
    expect(sent).toHaveLength(2); // no statement for 3 and 4
    // Every answer once, the one that went alone (nothing in the air) too.
    expect(learnt).toEqual(["answer 0", "answer 1", "answer 2"]);
    expect(settledBeforeLearning).toBe(0); // every lesson before any caller resumed
  });

  it("a queued decision wakes once: the next carrier waits for the flight in the air, every other for the batch that carries it", async () => {
    // In workerd each wake of a waiting request costs it ~100 µs of CPU (docs/performance.md, "One
    // wake per queued decision"). Before the next carrier's gate, every queued decision woke at
    // every landing: here 30 wakes for 16 decisions.
    const { sent, coalescer, db } = harness({ inFlight: 1 });
    const decide = (id: number) => coalescer.run(db, { id, key: `k${id}` });
    const first = decide(0);
    const second = Array.from({ length: 8 }, (_, i) => decide(1 + i));
    await tick();
    sent[0].answer();
    await tick();
    expect(sent.map((s) => s.items)).toEqual([[0], [1, 2, 3, 4, 5, 6, 7, 8]]);
    // Queued while the batch is in the air: they go as the next one when it lands.
    const third = Array.from({ length: 8 }, (_, i) => decide(9 + i));
    await tick();
    sent[1].answer();
    await tick();
    expect(sent[2].items).toEqual([9, 10, 11, 12, 13, 14, 15, 16]);
    sent[2].answer();
    expect(await Promise.all([first, ...second, ...third])).toEqual(Array.from({ length: 17 }, (_, i) => `answer ${i}`));
    expect(coalescer.stats).toMatchObject({ alone: 1, batches: 2, batched: 16, wakes: 16 });
  });

  it("the next carrier leaving the queue unsent (its answer known, its time run out) wakes the others, and one of them carries", async () => {
    const { sent, coalescer, db } = harness({ inFlight: 1 });
    let firstKnown = false;
    const first = coalescer.run(db, { id: 0, key: "a" });
    // The first queued is the next carrier; its answer becomes known while the statement is in the air.
    const carrier = coalescer.runUnless(db, { id: 1, key: "b" }, undefined, { known: () => firstKnown });
    const others = [2, 3].map((id) => coalescer.run(db, { id, key: `k${id}` }));
    await tick();
    firstKnown = true;
    sent[0].answer();
    await tick();
    expect(await carrier).toBe(UNSENT);
    expect(sent.map((s) => s.items)).toEqual([[0], [2, 3]]);
    sent[1].answer();
    expect(await Promise.all([first, ...others])).toEqual(["answer 0", "answer 2", "answer 3"]);

    // Alone at the head of the queue, its time runs out: the one behind it is not left waiting.
    const { sent: sent2, coalescer: c2, db: db2 } = harness({ inFlight: 1 });
    const inAir = c2.run(db2, { id: 0, key: "a" });
    const short = c2.runUnless(db2, { id: 1, key: "b" }, 10);
    const behind = c2.run(db2, { id: 2, key: "c" });
    await expect(short).rejects.toMatchObject({ problem: { status: 503 } });
    sent2[0].answer();
    await tick();
    expect(sent2.map((s) => s.items)).toEqual([[0], [2]]);
    sent2[1].answer();
    expect(await Promise.all([inAir, behind])).toEqual(["answer 0", "answer 2"]);
  });

  it("every queued decision's answer known: no statement at all", async () => {
    const { sent, coalescer, db } = harness({ inFlight: 1, batch: 64 });
    let known = false;
    const first = coalescer.run(db, { id: 0, key: "k" });
    const queued = Array.from({ length: 3 }, (_, i) => coalescer.runUnless(db, { id: i + 1, key: "k" }, undefined, { known: () => known }));
    await tick();
    known = true;
    sent[0].answer();
    expect(await Promise.all(queued)).toEqual([UNSENT, UNSENT, UNSENT]);
    expect(await first).toBe("answer 0");
    expect(sent).toHaveLength(1);
  });
});
