// Rows for the bench suites: one the report's functions accept, with only what a test varies given.
import type { Row } from "../../bench/report";

/** A library row of ratelimit-hot through Admit, pooled, at concurrency 16, with `over` on top. */
export function row(over: Partial<Row>): Row {
  return {
    scenario: "ratelimit-hot",
    layer: "library",
    impl: "admit",
    connection: "pooled",
    concurrency: 16,
    requests: 1000,
    throughput_rps: 1000,
    p50_ms: 1,
    p95_ms: 2,
    p99_ms: 3,
    violations: 0,
    round_trips_per_decision: 1,
    ...over,
  };
}

/** A burst-1000 row (the fixed-window burst through Admit's Worker, answered exactly), with `over` on top. */
export function burstRow(over: Partial<Row>): Row {
  return row({
    scenario: "burst-1000",
    burst: "ratelimit fixed_window limit 50",
    layer: "edge",
    connection: "http",
    concurrency: 1000,
    expected: { "200": 50, "429": 950 },
    outcomes: { "200": 50, "429": 950 },
    errors_5xx: 0,
    db_mismatch: null,
    p99_ms: 400,
    ...over,
  });
}
