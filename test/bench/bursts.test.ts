// burst-1000: a thousand requests at once through a Worker, each burst held to its exact answers and
// a database that agrees, its p99 against the COALESCE=off Worker's and the no-database floor.
import { describe, expect, it } from "vitest";
import { BURST_FLOOR, burstTarget, COALESCE_OFF, evaluateTargets, markdownTable, mergeRounds, type Row } from "../../bench/report";
import { mismatch } from "../../bench/scenarios/burst";
import { burstRow } from "./fixtures";

describe("burst-1000 targets", () => {
  it("burst-1000 with coalescing and without: each burst's p99 at most half the COALESCE=off Worker's, each held to its exact answers, the rows kept apart", () => {
    const burst = burstRow;
    const rows = [
      burst({}),
      burst({ impl: COALESCE_OFF, p99_ms: 1000 }),
      burst({ burst: "semaphore 4 permits", expected: { "201": 4, "429": 996 }, outcomes: { "201": 4, "429": 996 }, p99_ms: 600 }),
      burst({ burst: "semaphore 4 permits", impl: COALESCE_OFF, expected: { "201": 4, "429": 996 }, outcomes: { "201": 4, "429": 996 }, p99_ms: 1000 }),
      // Only through Admit's Worker: no p99 target.
      burst({ burst: "reservation one interval", expected: { "201": 1, "409": 999 }, outcomes: { "201": 1, "409": 999 } }),
    ];
    const byName = Object.fromEntries(evaluateTargets(rows).map((x) => [x.name, x]));
    expect(byName["burst-1000 ratelimit fixed_window limit 50: p99 ≤ 0.5× COALESCE=off"]).toMatchObject({ value: 0.4, max: 0.5, met: true });
    expect(byName["burst-1000 semaphore 4 permits: p99 ≤ 0.5× COALESCE=off"]).toMatchObject({ value: 0.6, met: false });
    expect(byName["burst-1000 semaphore 4 permits: p99 ≤ 0.5× COALESCE=off"].detail).toContain("admit p99 600 ms ÷ COALESCE=off p99 1000 ms");
    expect(Object.keys(byName).filter((n) => n.includes("p99 ≤"))).toHaveLength(2);
    // Without a floor row, no floor in the detail.
    expect(byName["burst-1000 semaphore 4 permits: p99 ≤ 0.5× COALESCE=off"].detail).not.toContain("the floor");
    // The same exact answers through each Worker, as targets of their own.
    expect(byName["burst-1000 ratelimit fixed_window limit 50: 0 × 5xx, exactly 50×200, 950×429, the database agrees"]).toMatchObject({ met: true });
    expect(byName["burst-1000 ratelimit fixed_window limit 50, admit (COALESCE=off): 0 × 5xx, exactly 50×200, 950×429, the database agrees"]).toMatchObject({
      met: true,
    });
    const wrong = burstTarget(burst({ impl: COALESCE_OFF, outcomes: { "200": 51, "429": 949 } }));
    expect(wrong).toMatchObject({ value: 0, met: false });
    // Rows of different impls never merge.
    expect(mergeRounds([rows], () => undefined)).toHaveLength(5);
    expect(mergeRounds([rows.slice(0, 2), rows.slice(0, 2)], () => undefined)).toHaveLength(2);
  });

  it("burst-1000's floor (GET / at once, no database) has no p99 target of its own and is printed beside each burst's", () => {
    const burst = (over: Partial<Row>) =>
      burstRow({ burst: "reservation one interval", expected: { "201": 1, "409": 999 }, outcomes: { "201": 1, "409": 999 }, p99_ms: 700, ...over });
    const rows = [
      burst({}),
      burst({ impl: COALESCE_OFF, p99_ms: 1000 }),
      burst({ burst: BURST_FLOOR, expected: { "200": 1000 }, outcomes: { "200": 1000 }, p99_ms: 420 }),
    ];
    const targets = evaluateTargets(rows);
    const p99 = targets.filter((t) => t.name.includes("p99 ≤"));
    expect(p99.map((t) => t.name)).toEqual(["burst-1000 reservation one interval: p99 ≤ 0.5× COALESCE=off"]);
    expect(p99[0]).toMatchObject({ value: 0.7, met: false });
    expect(p99[0].detail).toContain(
      `the floor (${BURST_FLOOR}, same run): p99 420 ms — above it admit 280 ms, COALESCE=off 580 ms; 0.5× off leaves 80 ms above the floor`,
    );
    // The floor is still held to its answers: 1000 × 200, no 5xx.
    expect(targets.find((t) => t.name.startsWith(`burst-1000 ${BURST_FLOOR}`))).toMatchObject({ met: true });
    expect(burstTarget(burst({ burst: BURST_FLOOR, expected: { "200": 1000 }, outcomes: { "200": 999, "503": 1 }, errors_5xx: 1 }))).toMatchObject({
      met: false,
    });
  });

  it("a burst is met only with no 5xx, exactly the expected answers and a database that agrees", () => {
    const burst = (over: Partial<Row>) =>
      burstRow({ burst: "reservation one interval", expected: { "201": 1, "409": 999 }, outcomes: { "201": 1, "409": 999 }, p99_ms: 900, ...over });
    expect(burstTarget(burst({}))).toMatchObject({
      name: "burst-1000 reservation one interval: 0 × 5xx, exactly 1×201, 999×409, the database agrees",
      value: 0,
      max: 0,
      met: true,
    });
    const five = burstTarget(burst({ outcomes: { "201": 1, "409": 990, "503": 9 }, errors_5xx: 9 }));
    expect(five).toMatchObject({ value: 9, met: false });
    expect(five.detail).toContain("answers 1×201, 990×409, 9×503 — expected 1×201, 999×409");
    expect(burstTarget(burst({ db_mismatch: 'reservation ids: database [], answers ["x"]' }))).toMatchObject({ value: 0, met: false });
    // The rows of a scenario's bursts are targets of their own, and never merge with each other.
    const rows = [burst({}), burst({ burst: "semaphore 4 permits", expected: { "201": 4, "429": 996 }, outcomes: { "201": 4, "429": 996 } })];
    expect(evaluateTargets(rows).filter((t) => t.name.startsWith("burst-1000"))).toHaveLength(2);
    expect(mergeRounds([rows], () => undefined)).toHaveLength(2);
    expect(markdownTable(rows).split("\n")[2]).toMatch(/^\| burst-1000: reservation one interval \| edge \| admit \| http \| 1000 \|.* \| 0 \|$/);
  });

  it("the database check names what disagrees with the answers", () => {
    expect(
      mismatch([
        ["admitted", 50, 50],
        ["counter rows", 1, 1],
      ]),
    ).toBeNull();
    expect(mismatch([["slots", [0, 1, 2, 3], [0, 1, 2]]])).toBe("slots: database [0,1,2,3], answers [0,1,2]");
  });
});
