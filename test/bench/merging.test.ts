// A run's figures: percentiles, round trips and outcomes per row, and the rounds of a run merged into
// one row each.
import { describe, expect, it } from "vitest";
import { mergeRounds, percentile, type RawFigures, type Row, roundTripsPerDecision, summarize, tally } from "../../bench/report";
import { row } from "./fixtures";

describe("latency figures", () => {
  it("nearest-rank percentiles", () => {
    const xs = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(xs, 50)).toBe(50);
    expect(percentile(xs, 95)).toBe(95);
    expect(percentile(xs, 99)).toBe(99);
    expect(percentile(xs, 100)).toBe(100);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 50)).toBeNull();
  });

  it("summarize sorts its input and rounds to 0.01 ms", () => {
    expect(summarize([3.24159, 1, 2, 10, 5])).toEqual({ p50_ms: 3.24, p95_ms: 10, p99_ms: 10 });
    expect(summarize([])).toEqual({ p50_ms: null, p95_ms: null, p99_ms: null });
  });

  it("round trips per decision subtract one Terminate per closed connection", () => {
    expect(roundTripsPerDecision(300, 100, 100)).toBe(2);
    expect(roundTripsPerDecision(100, 100)).toBe(1);
    expect(roundTripsPerDecision(5, 0)).toBeNull();
    expect(tally(["201", "409", "409"])).toEqual({ "201": 1, "409": 2 });
  });
});

describe("rounds", () => {
  it("merge into one row per layer/impl/connection: counts add up, throughput over all the time, percentiles over every latency", () => {
    const raw = new Map<Row, RawFigures>();
    const made = (over: Partial<Row>, latenciesMs: number[], elapsedMs: number) => {
      const r = row({ requests: latenciesMs.length, ...over });
      raw.set(r, { latenciesMs, elapsedMs });
      return r;
    };
    const a1 = made({ violations: 0, round_trips_per_decision: 1, outcomes: { "201": 1, "409": 1 } }, [1, 2], 1000);
    const b1 = made({ layer: "ceiling", impl: "pgbench", violations: null, round_trips_per_decision: null }, [5], 500);
    const a2 = made({ violations: 1, round_trips_per_decision: 2, outcomes: { "409": 2 } }, [3, 4], 3000);
    const b2 = made({ layer: "ceiling", impl: "pgbench", violations: null, round_trips_per_decision: null }, [7], 500);
    const merged = mergeRounds(
      [
        [a1, b1],
        [a2, b2],
      ],
      (r) => raw.get(r),
    );
    expect(merged).toHaveLength(2);
    expect(merged[0]).toMatchObject({
      layer: "library",
      requests: 4,
      throughput_rps: 1,
      p50_ms: 2,
      p99_ms: 4,
      violations: 1,
      round_trips_per_decision: 1.5,
      outcomes: { "201": 1, "409": 3 },
      note: "2 rounds",
    });
    expect(merged[1]).toMatchObject({ layer: "ceiling", requests: 2, throughput_rps: 2, violations: null, round_trips_per_decision: null });
    const single = made({}, [1], 10);
    expect(mergeRounds([[single]], (r) => raw.get(r))).toEqual([single]);
  });

  it("keep an edge row's concurrencies apart, and weigh HTTP requests per decision by decisions", () => {
    const raw = new Map<Row, RawFigures>();
    const made = (over: Partial<Row>, latenciesMs: number[]) => {
      const r = row({ layer: "edge", connection: "http", requests: latenciesMs.length, ...over });
      raw.set(r, { latenciesMs, elapsedMs: 1000 });
      return r;
    };
    const merged = mergeRounds(
      [
        [made({ http_requests_per_decision: 1 }, [1, 1, 1]), made({ concurrency: 64, http_requests_per_decision: 1 }, [2])],
        [made({ http_requests_per_decision: 0.5 }, [1]), made({ concurrency: 64, http_requests_per_decision: 1 }, [2])],
      ],
      (r) => raw.get(r),
    );
    expect(merged.map((r) => [r.concurrency, r.requests, r.http_requests_per_decision])).toEqual([
      [16, 4, 0.88],
      [64, 2, 1],
    ]);
  });
});
