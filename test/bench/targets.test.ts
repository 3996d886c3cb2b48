// The targets a bench run is judged by (bench/report): each edge row against the bare Worker and the
// no-op, coalescing, metrics, violations and unanswered requests, ratios by round.
import { describe, expect, it } from "vitest";
import {
  ALONE,
  COALESCE_OFF,
  COALESCED,
  coalescingTargets,
  DRIVER,
  evaluateTargets,
  METRICS_OFF,
  markdownTable,
  type Row,
  targetsMarkdown,
  withRoundSpread,
} from "../../bench/report";
import { row } from "./fixtures";

describe("targets", () => {
  it("a markdown table with one line per row, skipped rows saying why", () => {
    const table = markdownTable([row({}), row({ layer: "ceiling", impl: "pgbench", skipped: "pgbench not installed", throughput_rps: null })]);
    const lines = table.split("\n");
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^\| scenario \| layer \| impl \| connection \|/);
    expect(lines[2]).toContain("| ratelimit-hot | library | admit | pooled | 16 | 1000 | 1000 |");
    expect(lines[3]).toContain("skipped: pgbench not installed");
  });

  it("evaluates the edge targets per concurrency: Admit vs the bare HTTP Worker, HTTP vs WebSocket, every one-statement row vs the no-op", () => {
    const edge = (over: Partial<Row>) => row({ layer: "edge", connection: "http", round_trips_per_decision: 0, http_requests_per_decision: 1, ...over });
    const rows = [
      edge({ scenario: "edge-noop", impl: "noop", connection: "none", throughput_rps: 1000, http_requests_per_decision: 0 }),
      edge({ scenario: "edge-noop", impl: "noop", connection: "none", concurrency: 64, throughput_rps: 2000, http_requests_per_decision: 0 }),
      edge({ throughput_rps: 450 }),
      edge({ impl: DRIVER, throughput_rps: 500 }),
      edge({ impl: DRIVER, connection: "websocket", throughput_rps: 100, http_requests_per_decision: 0 }),
      edge({ concurrency: 64, throughput_rps: 600 }),
      edge({ impl: DRIVER, concurrency: 64, throughput_rps: 800 }),
      edge({ impl: DRIVER, connection: "websocket", concurrency: 64, throughput_rps: 300, http_requests_per_decision: 0 }),
      edge({ scenario: "ratelimit-10k-keys", throughput_rps: 340, http_requests_per_decision: 0.6 }),
      edge({ scenario: "reservation-burst", throughput_rps: 300, http_requests_per_decision: 1.2 }),
      edge({ scenario: "semaphore-churn", throughput_rps: 200, statements_per_decision: 2, http_requests_per_decision: 2 }),
      row({ layer: "ceiling", impl: "pgbench", throughput_rps: 1000 }),
      row({ throughput_rps: 450 }),
    ];
    const byName = Object.fromEntries(evaluateTargets(rows).map((x) => [x.name, x]));
    expect(byName["ratelimit-hot c=16: edge admit ≥ 0.9× the bare HTTP Worker"]).toMatchObject({ value: 0.9, met: true, min: 0.9 });
    expect(byName["ratelimit-hot c=64: edge admit ≥ 0.9× the bare HTTP Worker"]).toMatchObject({ value: 0.75, met: false });
    expect(byName["ratelimit-hot c=16: bare HTTP Worker ≥ 3× the bare WebSocket Worker"]).toMatchObject({ value: 5, met: true });
    expect(byName["ratelimit-hot c=64: bare HTTP Worker ≥ 3× the bare WebSocket Worker"]).toMatchObject({ value: 2.67, met: false });
    // Each row against the no-op row of its own concurrency.
    expect(byName["ratelimit-hot c=16: edge http ≥ 0.35× the edge no-op"]).toMatchObject({ value: 0.45, met: true });
    expect(byName["ratelimit-hot c=64: edge http ≥ 0.35× the edge no-op"]).toMatchObject({ value: 0.3, met: false });
    expect(byName["ratelimit-10k-keys c=16: edge http ≥ 0.35× the edge no-op"]).toMatchObject({ value: 0.34, met: false });
    // One HTTP request per statement at most (the deny cache answers some with none).
    expect(byName["ratelimit-10k-keys c=16: HTTP SQL requests per decision ≤ 1"]).toMatchObject({ value: 0.6, met: true });
    expect(byName["reservation-burst c=16: HTTP SQL requests per decision ≤ 1"]).toMatchObject({ value: 1.2, met: false });
    // A decision of two statements: two requests allowed, and its no-op ratio is no target.
    expect(byName["semaphore-churn c=16: HTTP SQL requests per decision ≤ 2"]).toMatchObject({ value: 2, met: true });
    expect(byName["semaphore-churn c=16: edge http ≥ 0.35× the edge no-op (diagnostic)"]).toMatchObject({ value: 0.2, met: null });
    expect(byName["semaphore-churn c=16: edge http ≥ 0.35× the edge no-op (diagnostic)"]).not.toHaveProperty("min");
    // The library ratios against pgbench are diagnostics: a value, never met or unmet.
    expect(byName["ratelimit-hot: library pooled ÷ pgbench pooled (diagnostic)"]).toMatchObject({ value: 0.45, met: null });
    expect(byName["zero violations in every Admit scenario"]).toMatchObject({ value: 0, met: true });
    expect(targetsMarkdown(evaluateTargets(rows))).toContain("(diagnostic): **0.45** (not a target)");
  });

  it("metrics on vs off: a target per rate-limit row that ran both, and the isolate's flushes (one per 2 s) allowed on top of one HTTP request per statement", () => {
    const edge = (over: Partial<Row>) => row({ layer: "edge", connection: "http", round_trips_per_decision: 0, http_requests_per_decision: 1, ...over });
    const rows = [
      // 227 decisions at 95 req/s: about 2.4 s, so at most 3 flushes → up to 0.02 more per decision.
      edge({ requests: 227, throughput_rps: 95, http_requests_per_decision: 1.01 }),
      edge({ impl: METRICS_OFF, requests: 227, throughput_rps: 100, http_requests_per_decision: 1 }),
      edge({ scenario: "ratelimit-10k-keys", requests: 227, throughput_rps: 95, http_requests_per_decision: 1.05 }),
      edge({ scenario: "ratelimit-10k-keys", impl: METRICS_OFF, requests: 227, throughput_rps: 120, http_requests_per_decision: 1 }),
    ];
    const byName = Object.fromEntries(evaluateTargets(rows).map((x) => [x.name, x]));
    expect(byName["ratelimit-hot c=16: edge admit with metrics ≥ 0.9× METRICS=off"]).toMatchObject({ value: 0.95, met: true });
    expect(byName["ratelimit-10k-keys c=16: edge admit with metrics ≥ 0.9× METRICS=off"]).toMatchObject({ value: 0.79, met: false });
    expect(byName["ratelimit-hot c=16: HTTP SQL requests per decision ≤ 1"]).toMatchObject({ value: 1.01, met: true });
    expect(byName["ratelimit-10k-keys c=16: HTTP SQL requests per decision ≤ 1"]).toMatchObject({ value: 1.05, met: false });
  });

  it("coalescing: Admit's edge rows against the bare HTTP Worker, HTTP requests per decision, one client alone, the library row, only where both rows exist", () => {
    const edge = (over: Partial<Row>) => row({ layer: "edge", connection: "http", round_trips_per_decision: 0, http_requests_per_decision: 1, ...over });
    const rows = [
      edge({ concurrency: 64, throughput_rps: 1600, http_requests_per_decision: 0.05 }),
      edge({ impl: COALESCE_OFF, concurrency: 64, throughput_rps: 700, http_requests_per_decision: 1 }),
      edge({ impl: DRIVER, concurrency: 64, throughput_rps: 1000 }),
      edge({ throughput_rps: 1100 }),
      edge({ impl: DRIVER, throughput_rps: 1000 }),
      edge({ scenario: "ratelimit-10k-keys", concurrency: 64, throughput_rps: 1200, http_requests_per_decision: 0.3 }),
      edge({ concurrency: ALONE, requests: 2000, throughput_rps: 400, p50_ms: 2.5 }),
      edge({ impl: COALESCE_OFF, concurrency: ALONE, requests: 2000, throughput_rps: 420, p50_ms: 2 }),
      row({ impl: COALESCED, throughput_rps: 1100 }),
      row({ layer: "ceiling", impl: "pgbench", throughput_rps: 1000 }),
    ];
    const byName = Object.fromEntries(evaluateTargets(rows).map((x) => [x.name, x]));
    expect(byName["ratelimit-hot c=64: edge admit ≥ 1.5× the bare HTTP Worker"]).toMatchObject({ value: 1.6, min: 1.5, met: true });
    expect(byName["ratelimit-hot c=16: edge admit ≥ 1.2× the bare HTTP Worker"]).toMatchObject({ value: 1.1, min: 1.2, met: false });
    // The bare Worker has a hot-key row only: the spread is read against it.
    expect(
      byName["ratelimit-10k-keys c=64: edge admit ≥ 1.3× the bare HTTP Worker on ratelimit-hot c=64 (the bare Worker has a hot-key row only)"],
    ).toMatchObject({
      value: 1.2,
      met: false,
    });
    // The ≥ 0.9× targets hold beside them.
    expect(byName["ratelimit-hot c=64: edge admit ≥ 0.9× the bare HTTP Worker"]).toMatchObject({ value: 1.6, met: true });
    const http = byName["ratelimit-hot c=64: edge admit, HTTP SQL requests per decision ≤ 0.25 (coalesced)"];
    expect(http).toMatchObject({ value: 0.05, max: 0.25, met: true });
    expect(http.detail).toContain("about 20 decisions per statement");
    expect(http.detail).toContain("COALESCE=off: 1");
    // So does at most one HTTP request per statement, for every Admit edge row, the one-client row included.
    expect(byName["ratelimit-hot c=64: HTTP SQL requests per decision ≤ 1"]).toMatchObject({ value: 0.05, met: true });
    expect(byName["ratelimit-hot c=1: HTTP SQL requests per decision ≤ 1"]).toMatchObject({ value: 1, met: true });
    // One client: 2.5 ms against 1.1 × 2 + 0.3 = 2.5 ms is within noise; 2.51 is not.
    const alone = byName["ratelimit-hot c=1: edge admit p50 ≤ 1.1× COALESCE=off p50 + 0.3 ms (never slower alone)"];
    expect(alone).toMatchObject({ value: 2.5, max: 2.5, met: true });
    expect(alone.detail).toContain("COALESCE=off p50 2 ms");
    const slower = coalescingTargets(rows.map((r) => (r.concurrency === ALONE && r.impl === "admit" ? { ...r, p50_ms: 2.51 } : r)));
    expect(slower.find((t) => t.name.includes("never slower alone"))).toMatchObject({ value: 2.51, met: false });
    expect(byName["ratelimit-hot: library admit (coalesced) pooled ≥ 1.0× pgbench pooled"]).toMatchObject({ value: 1.1, min: 1, met: true });
    // The one-client pair has no bare Worker row: no "not measured" target for it.
    expect(byName["ratelimit-hot c=1: edge admit ≥ 0.9× the bare HTTP Worker"]).toBeUndefined();
    // The diagnostics against pgbench stay at the lowest edge concurrency of the scenario, not the one-client pair.
    expect(byName["ratelimit-hot: edge http c=16 ÷ pgbench pooled (diagnostic)"]).toMatchObject({ value: 1.1 });
    expect(byName["ratelimit-hot: edge http c=1 ÷ pgbench pooled (diagnostic)"]).toBeUndefined();
    // A row missing: its target is not computed at all.
    const some = coalescingTargets(rows.filter((r) => r.impl !== DRIVER && r.impl !== COALESCE_OFF && r.layer !== "ceiling")).map((t) => t.name);
    expect(some).toEqual(["ratelimit-hot c=64: edge admit, HTTP SQL requests per decision ≤ 0.25 (coalesced)"]);
    const many = coalescingTargets([edge({ concurrency: 64, requests: 1000, throughput_rps: 1000, http_requests_per_decision: 0.3 })]);
    expect(many[0]).toMatchObject({ value: 0.3, met: false });
    // Violations in the coalesced and COALESCE=off rows are Admit's.
    expect(evaluateTargets([row({ impl: COALESCED, violations: 1 })])[0]).toMatchObject({ value: 1, met: false });
    expect(evaluateTargets([row({ impl: COALESCE_OFF, layer: "edge", connection: "http", violations: 2 })])[0]).toMatchObject({ value: 2, met: false });
  });

  it("the driver alone: Admit's hot-key ratio says what the bare Worker makes of it, and its violations count as Admit's", () => {
    const rows = [
      row({ layer: "edge", connection: "http", throughput_rps: 450 }),
      row({ layer: "edge", impl: DRIVER, connection: "http", throughput_rps: 500 }),
      row({ scenario: "edge-noop", layer: "edge", impl: "noop", connection: "none", throughput_rps: 1000 }),
    ];
    const byName = Object.fromEntries(evaluateTargets(rows).map((x) => [x.name, x]));
    const noop = byName["ratelimit-hot c=16: edge http ≥ 0.35× the edge no-op"];
    expect(noop).toMatchObject({ value: 0.45, driver_alone: 0.5, met: true });
    expect(noop.detail).toContain("the driver alone (the same statement, no Admit code): 0.5× (500 req/s; Admit 0.9× of it)");
    // It runs Admit's statement: its violations are Admit's.
    const t = evaluateTargets([row({ impl: DRIVER, violations: 3 })]);
    expect(t[0]).toMatchObject({ value: 3, met: false });
  });

  it("a row whose requests got no answer (a Worker gone: ECONNREFUSED, faster than any decision) or 5xx meets no ratio, and fails the every-row-answered target", () => {
    // A Worker gone answers at once: read as throughput, such a row would stand far above the no-op and pass.
    const edge = (over: Partial<Row>) => row({ layer: "edge", connection: "http", http_requests_per_decision: 0, ...over });
    const rows = [
      edge({ scenario: "edge-noop", impl: "noop", connection: "none", throughput_rps: 3000, outcomes: { 200: 9000 } }),
      edge({ scenario: "reservation-burst", throughput_rps: 8000, outcomes: { "error:ECONNREFUSED": 24000 } }),
      edge({ scenario: "inventory-hot-night", throughput_rps: 1200, outcomes: { 201: 3000, 503: 2 } }),
      edge({ scenario: "ratelimit-10k-keys", throughput_rps: 1200, outcomes: { 200: 3000, 429: 600 } }),
    ];
    const byName = Object.fromEntries(evaluateTargets(rows).map((x) => [x.name, x]));
    expect(byName["reservation-burst c=16: edge http ≥ 0.35× the edge no-op"]).toMatchObject({ value: 2.67, met: false });
    expect(byName["reservation-burst c=16: edge http ≥ 0.35× the edge no-op"].detail).toContain("answered error:ECONNREFUSED×24000");
    expect(byName["inventory-hot-night c=16: edge http ≥ 0.35× the edge no-op"]).toMatchObject({ value: 0.4, met: false });
    expect(byName["ratelimit-10k-keys c=16: edge http ≥ 0.35× the edge no-op"]).toMatchObject({ value: 0.4, met: true });
    expect(byName["every row answered: no request without an answer, no 5xx"]).toMatchObject({ value: 24002, met: false });
    expect(evaluateTargets(rows.slice(3)).find((t) => t.name.startsWith("every row answered"))).toMatchObject({ value: 0, met: true });
  });

  it("a violation in any Admit row (peers excepted) fails the zero-violation target", () => {
    const t = evaluateTargets([row({ violations: 2 }), row({ impl: "seed000-naive", violations: 40 })]);
    expect(t[0]).toMatchObject({ value: 2, met: false });
    expect(t[0].detail).toContain("ratelimit-hot library admit pooled");
    expect(evaluateTargets([row({ impl: "seed000-naive", violations: 40 })])[0].met).toBeNull();
  });
});

describe("ratios by round", () => {
  it("each ratio target also carries the ratio of every round on its own; counts and single rounds are left alone", () => {
    const admit = (rps: number) => row({ layer: "edge", connection: "http", throughput_rps: rps });
    const bare = (rps: number) => row({ layer: "edge", impl: DRIVER, connection: "http", throughput_rps: rps });
    const rounds = [[admit(70), bare(100)], [admit(90), bare(100)], [bare(100)]];
    const merged = evaluateTargets([admit(90), bare(100)]);
    const spread = withRoundSpread(merged, rounds);
    const t = spread.find((x) => x.name === "ratelimit-hot c=16: edge admit ≥ 0.9× the bare HTTP Worker")!;
    expect(t).toMatchObject({ value: 0.9, met: true, rounds: [0.7, 0.9, null] });
    expect(t.detail).toMatch(/; by round 0\.7, 0\.9, –$/);
    expect(spread.find((x) => x.name === "zero violations in every Admit scenario")!.rounds).toBeUndefined();
    expect(withRoundSpread(merged, [rounds[0]])).toBe(merged);
  });
});

describe("each edge row against the no-op measured right before its scenario's edge rows", () => {
  it("a scenario's own no-op row at the row's concurrency where the run has one, else the edge-noop scenario's (measured when the run began)", () => {
    const edge = (over: Partial<Row>) => row({ layer: "edge", connection: "http", round_trips_per_decision: 0, http_requests_per_decision: 0.1, ...over });
    const noop = (scenario: string, concurrency: number, throughput_rps: number) =>
      edge({ scenario, impl: "noop", connection: "none", concurrency, throughput_rps, http_requests_per_decision: 0 });
    const rows = [
      noop("edge-noop", 16, 1000),
      noop("edge-noop", 64, 1000),
      noop("ratelimit-hot", 16, 600),
      edge({ throughput_rps: 300 }),
      edge({ concurrency: 64, throughput_rps: 300 }),
      edge({ scenario: "ratelimit-10k-keys", throughput_rps: 340 }),
    ];
    const byName = Object.fromEntries(evaluateTargets(rows).map((x) => [x.name, x]));
    const hot = byName["ratelimit-hot c=16: edge http ≥ 0.35× the edge no-op"];
    expect(hot).toMatchObject({ value: 0.5, met: true });
    expect(hot.detail).toContain("the no-op measured right before ratelimit-hot's edge rows");
    // No no-op of its own at c=64, none for 10 000 keys: the run's first.
    expect(byName["ratelimit-hot c=64: edge http ≥ 0.35× the edge no-op"]).toMatchObject({ value: 0.3, met: false });
    expect(byName["ratelimit-10k-keys c=16: edge http ≥ 0.35× the edge no-op"]).toMatchObject({ value: 0.34, met: false });
    expect(byName["ratelimit-10k-keys c=16: edge http ≥ 0.35× the edge no-op"].detail).not.toContain("right before");
    // Round by round, each round's own.
    const spread = withRoundSpread(evaluateTargets(rows), [rows, [...rows.slice(0, 2), noop("ratelimit-hot", 16, 1200), ...rows.slice(3)]]);
    expect(spread.find((x) => x.name === "ratelimit-hot c=16: edge http ≥ 0.35× the edge no-op")?.rounds).toEqual([0.5, 0.25]);
  });
});

describe("pattern overrides", () => {
  const NAME = "ratelimit-hot: library pooled with 1 000 pattern overrides ≥ 0.9× without";
  it("the pooled row with 1 000 patterns is held to 0.9× the row without, only where both ran", () => {
    const at = (rps: number) =>
      evaluateTargets([row({ throughput_rps: 1000 }), row({ impl: "admit-1000-patterns", throughput_rps: rps })]).find((t) => t.name === NAME);
    expect(at(950)).toMatchObject({ value: 0.95, min: 0.9, met: true });
    expect(at(810)).toMatchObject({ value: 0.81, met: false });
    expect(evaluateTargets([row({ throughput_rps: 1000 })]).find((t) => t.name === NAME)).toBeUndefined();
  });
});
