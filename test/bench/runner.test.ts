// What drives a run: the load loop, the command line, and the inputs each scenario sends.
import { describe, expect, it } from "vitest";
import { runLoad } from "../../bench/load";
import { peerSql, sqlSections } from "../../bench/peers";
import { tally } from "../../bench/report";
import { edgeConcurrencies, parseArgs } from "../../bench/run";
import { keyOf } from "../../bench/scenarios/ratelimit";
import { slotOf } from "../../bench/scenarios/reservation-burst";
import { eventOf } from "../../bench/scenarios/webhooks";

describe("load loop", () => {
  it("stops at the request count, records every answer, and labels throws", async () => {
    const seen = new Set<number>();
    const r = await runLoad({ concurrency: 4, requests: 25, timeLimitMs: 60_000 }, async (i) => {
      seen.add(i);
      if (i % 5 === 0) throw Object.assign(new Error("x"), { code: "55P03" });
      return i % 2 ? "odd" : "even";
    });
    expect(r.latencies).toHaveLength(25);
    expect(seen.size).toBe(25);
    expect(tally(r.outcomes)).toEqual({ "error:55P03": 5, odd: 10, even: 10 });
  });

  it("stops at the time limit when the count is out of reach", async () => {
    const r = await runLoad({ concurrency: 2, requests: 1_000_000, timeLimitMs: 200 }, () => new Promise((res) => setTimeout(() => res("ok"), 20)));
    expect(r.latencies.length).toBeGreaterThan(0);
    expect(r.latencies.length).toBeLessThan(1_000_000);
  });
});

describe("arguments and scenario inputs", () => {
  it("--quick shortens rows; unknown flags are refused", () => {
    expect(parseArgs(["--quick"])).toMatchObject({ quick: true, seconds: 2, edge: true, concurrency: 16, rounds: 1 });
    expect(parseArgs([])).toMatchObject({ quick: false, seconds: 10, rounds: 3 });
    expect(parseArgs(["--only=reservation-burst", "--no-edge", "--concurrency=8"])).toMatchObject({
      only: ["reservation-burst"],
      edge: false,
      concurrency: 8,
      seconds: 10,
    });
    expect(() => parseArgs(["--fast"])).toThrow(/unknown argument/);
    expect(() => parseArgs(["--concurrency=0"])).toThrow(/--concurrency/);
    // The edge rows run at 16 and 64 unless told otherwise.
    expect(parseArgs([]).edgeConcurrency).toEqual([16, 64]);
    expect(parseArgs(["--edge-concurrency=8"]).edgeConcurrency).toEqual([8]);
    expect(edgeConcurrencies("16,64,128")).toEqual([16, 64, 128]);
    expect(() => edgeConcurrencies("16,16")).toThrow(/--edge-concurrency/);
    expect(() => edgeConcurrencies("0")).toThrow(/--edge-concurrency/);
  });

  it("reservation intervals are deterministic, 1–3 hours long, on the hour", () => {
    expect(slotOf(7)).toEqual(slotOf(7));
    for (let i = 0; i < 200; i++) {
      const { start, end } = slotOf(i);
      const hours = (Date.parse(end) - Date.parse(start)) / 3_600_000;
      expect([1, 2, 3]).toContain(hours);
      expect(Date.parse(start) % 3_600_000).toBe(0);
    }
  });

  it("peer SQL files split into named statements", async () => {
    expect(sqlSections("-- intro\nSELECT 0;\n-- name: a\nSELECT 1;\n-- a comment\n-- name: b\nSELECT\n  2;\n")).toEqual({ a: "SELECT 1;", b: "SELECT\n  2;" });
    expect(Object.keys(await peerSql("seed000-naive.sql"))).toEqual(["setup", "check", "insert"]);
    expect(Object.keys(await peerSql("seed000-advisory.sql"))).toEqual(["lock", "check", "insert"]);
  });

  it("scenario inputs: keys spread over 10 000, five copies per event", () => {
    expect(keyOf({ keys: 1 }, 123)).toBe("hot");
    const keys = new Set(Array.from({ length: 50_000 }, (_, i) => keyOf({ keys: 10_000 }, i)));
    expect(keys.size).toBeGreaterThan(9_000);
    expect([...keys].every((k) => /^k([1-9]\d{0,3}|10000)$/.test(k))).toBe(true);
    expect([0, 4, 5, 9, 10].map(eventOf)).toEqual([0, 0, 1, 1, 2]);
  });
});
