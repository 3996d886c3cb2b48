// Each decision's budget in a coalesced batch (functions/core/coalesce/send.ts), with
// stand-in statements (coalesce-harness.ts): the batch runs to its latest decision's deadline over
// that decision's handle, the carrier answers at its own, and a refused batch's decisions are each
// sent again on their own time. Against real Postgres: test/ratelimits/ratelimits.coalesce-budgets*.test.ts,
// test/reservations/reservations.coalesce.test.ts.
import { describe, expect, it } from "vitest";
import { type ProblemError, problem } from "../../functions/core/errors";
import { handle, harness, tick } from "./coalesce-harness";

describe("each decision keeps its own budget in a batch", () => {
  it("a batch runs to its latest decision's deadline, over that decision's handle: the carrier answers at its own and is kept open until the batch lands", async () => {
    const { sent, coalescer, db } = harness({ inFlight: 1 });
    const first = coalescer.run(db, { id: 0, key: "a" });
    const short = handle(60_000);
    const long = handle(60_000);
    // The carrier (first in the queue) has 40 ms, the decision behind it 20 s.
    const carrier = coalescer.run(short.db, { id: 1, key: "b" }, 40).catch((e: unknown) => e);
    const patient = coalescer.run(long.db, { id: 2, key: "c" }, 20_000);
    await tick();
    sent[0].answer();
    await tick();
    expect(sent[1]).toMatchObject({ items: [1, 2], together: true });
    expect(sent[1].db).toBe(long.db);
    expect(sent[1].withinMs).toBeGreaterThan(10_000);
    // Its time runs out while the batch is in the air: 504 (sent, it may be applied); the batch goes on.
    expect(((await carrier) as ProblemError).problem).toMatchObject({ status: 504, type: "/problems/outcome-unknown" });
    expect(short.kept).toHaveLength(1);
    let landed = false;
    void short.kept[0].then(() => (landed = true));
    await tick();
    expect(landed).toBe(false);
    sent[1].answer();
    expect(await patient).toBe("answer 2");
    await short.kept[0];
    expect(landed).toBe(true);
    expect(await first).toBe("answer 0");
  });

  it("a refused batch's decisions are each sent again by their own request, on their own time: the carrier's shorter time bounds only its own", async () => {
    const { sent, coalescer, db } = harness({ inFlight: 1 });
    const first = coalescer.run(db, { id: 0, key: "a" });
    const short = handle(60_000);
    const long = handle(60_000);
    const carrier = coalescer.run(short.db, { id: 1, key: "b" }, 500);
    const patient = coalescer.run(long.db, { id: 2, key: "c" }, 20_000);
    await tick();
    sent[0].answer();
    await tick();
    expect(sent[1]).toMatchObject({ items: [1, 2], together: true });
    sent[1].answer(problem("lock-timeout", "the carrier's lock timeout"));
    await tick();
    const again = (id: number) => sent.slice(2).find((s) => s.items[0] === id)!;
    expect(again(2)).toMatchObject({ together: false, db: long.db });
    expect(again(2).withinMs).toBeGreaterThan(10_000);
    expect(again(1)).toMatchObject({ together: false, db: short.db });
    expect(again(1).withinMs).toBeLessThanOrEqual(500);
    // The carrier's answer does not wait for the patient one's statement.
    again(1).answer();
    expect(await carrier).toBe("answer 1");
    again(2).answer();
    expect(await patient).toBe("answer 2");
    expect(await first).toBe("answer 0");
    expect(coalescer.stats.fallbacks).toBe(1);
  });
});
