// The bench's pure pieces and its violation counting, so `npm run bench` code is typechecked and
// exercised by `npm test` without running the (slow, machine-dependent) benchmark itself.
import { describe, expect, it } from "vitest";
import { classifier, cpuBetween, cpuMeter, cpuSample } from "../bench/cpu";
import { runLoad } from "../bench/load";
import { type BenchContext, ceiling, pgbenchMissing } from "../bench/measure";
import { peerSql, sqlSections } from "../bench/peers";
import { decisionLatencies, findPgbench, parsePgbenchLog, parsePgbenchSummary, pgbenchArgs, runPgbench } from "../bench/pgbench";
import { pgbouncerIni } from "../bench/pgbouncer";
import {
  ALONE,
  AUTHZ,
  atCeilingCost,
  atOwnCpu,
  BURST_FLOOR,
  burstTarget,
  COALESCE_OFF,
  COALESCED,
  coalescingTargets,
  compareMarkdown,
  cpuTable,
  DRIVER,
  evaluateTargets,
  METRICS_OFF,
  markdownTable,
  mergeRounds,
  percentile,
  type RawFigures,
  type Row,
  roundTripsPerDecision,
  runLabel,
  summarize,
  type Target,
  tally,
  targetHistory,
  targetsMarkdown,
  withRoundSpread,
} from "../bench/report";
import { edgeConcurrencies, parseArgs } from "../bench/run";
import { mismatch } from "../bench/scenarios/burst";
import { DUPLICATE_PERMITS, pgbenchScript, releases } from "../bench/scenarios/permits";
import { EXCESS_ADMISSIONS, keyOf } from "../bench/scenarios/ratelimit";
import { ADMIT_OVERLAPS, PEER_OVERLAPS, slotOf } from "../bench/scenarios/reservation-burst";
import { DUPLICATE_INBOX_ROWS, eventOf } from "../bench/scenarios/webhooks";
import { DRIVER_WORKER } from "../bench/stack";
import { type Proc, parseStat } from "../dev/proc";
import { startWranglerDev } from "../dev/wrangler";
import { MAX_WINDOW_MS } from "../functions/ratelimits/schemas";
import { freshDatabase, sql, workerSuite } from "./support";

function row(over: Partial<Row>): Row {
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

/** A burst-1000 row (the fixed-window burst through Admit's Worker, answered exactly), with `over` on top. */
function burstRow(over: Partial<Row>): Row {
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

describe("report", () => {
  it("a markdown table with one line per row, skipped rows saying why", () => {
    const table = markdownTable([row({}), row({ layer: "ceiling", impl: "pgbench", skipped: "pgbench not installed", throughput_rps: null })]);
    const lines = table.split("\n");
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^\| scenario \| layer \| impl \| connection \|/);
    expect(lines[2]).toContain("| ratelimit-hot | library | admit | pooled | 16 | 1000 | 1000 |");
    expect(lines[3]).toContain("skipped: pgbench not installed");
  });

  it("evaluates issue 17's edge targets per concurrency: Admit vs the bare HTTP Worker, HTTP vs WebSocket, every one-statement row vs the no-op", () => {
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
    // The ended issue's library ratios are diagnostics: a value, never met or unmet.
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

  it("coalescing (issue 33): Admit's edge rows against the bare HTTP Worker, HTTP requests per decision, one client alone, the library row, only where both rows exist", () => {
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
    // The ≥ 0.9× targets stay.
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

  it("a row whose requests got no answer (a Worker gone: ECONNREFUSED, faster than any decision) or 5xx meets no ratio, and fails the every-row-answered target", () => {
    // Seen in a run whose Workers wrangler dev restarted mid-run: reservation-burst c=16 read 2.71× the no-op, "met".
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

describe("targets across runs (npm run bench:compare)", () => {
  const t = (name: string, value: number | null, met: boolean | null): Target => ({ name, value, met, min: 0.35, detail: "" });
  const runs = [
    { label: "11-27 06:28", targets: [t("a", 0.4, true), t("b", 0.3, false), t("c", 0.2, false), t("diag", 0.5, null)] },
    { label: "11-27 08:19 d3132da", targets: [t("a", 0.5, true), t("b", 0.36, true), t("c", 0.25, false), t("d | e", 0.6, true), t("diag", 0.6, null)] },
  ];

  it("each judged target with its value and verdict per run, the least met first; a run that did not judge one leaves it out of the count", () => {
    expect(targetHistory(runs)).toEqual([
      { name: "c", values: [0.2, 0.25], mets: [false, false], met: 0, judged: 2 },
      { name: "b", values: [0.3, 0.36], mets: [false, true], met: 1, judged: 2 },
      { name: "a", values: [0.4, 0.5], mets: [true, true], met: 2, judged: 2 },
      { name: "d | e", values: [null, 0.6], mets: [null, true], met: 1, judged: 1 },
    ]);
  });

  it("as markdown: a column per run, met values bold, '–' where a run did not judge it, pipes in a name escaped", () => {
    const md = compareMarkdown(runs).split("\n");
    expect(md[0]).toBe("| target | 11-27 06:28 | 11-27 08:19 d3132da | met in |");
    expect(md[1]).toBe("| --- | --- | --- | --- |");
    expect(md[2]).toBe("| c | 0.2 | 0.25 | 0 of 2 |");
    expect(md[3]).toBe("| b | 0.3 | **0.36** | 1 of 2 |");
    expect(md[5]).toBe("| d \\| e | – | **0.6** | 1 of 1 |");
    expect(md).toHaveLength(6);
  });

  it("the /v1/authz row's targets have names of their own; in older reports, where a name's second target was that row's, it is read as such", () => {
    const edge = (over: Partial<Row>) => row({ layer: "edge", connection: "http", round_trips_per_decision: 0, http_requests_per_decision: 0.1, ...over });
    const rows = [
      edge({ scenario: "edge-noop", impl: "noop", connection: "none", throughput_rps: 1000, http_requests_per_decision: 0 }),
      edge({ throughput_rps: 300 }),
      edge({ impl: AUTHZ, throughput_rps: 400, http_requests_per_decision: 0.2 }),
      row({ layer: "ceiling", impl: "pgbench", throughput_rps: 1000 }),
    ];
    const targets = evaluateTargets(rows);
    const names = targets.map((x) => x.name);
    expect(new Set(names).size).toBe(names.length);
    const byName = Object.fromEntries(targets.map((x) => [x.name, x]));
    expect(byName["ratelimit-hot c=16: edge http ≥ 0.35× the edge no-op"]).toMatchObject({ value: 0.3, met: false });
    expect(byName["ratelimit-hot c=16: GET /v1/authz, edge http ≥ 0.35× the edge no-op"]).toMatchObject({ value: 0.4, met: true });
    expect(byName["ratelimit-hot c=16: GET /v1/authz, HTTP SQL requests per decision ≤ 1"]).toMatchObject({ value: 0.2, met: true });
    expect(byName["ratelimit-hot: GET /v1/authz, edge http c=16 ÷ pgbench pooled (diagnostic)"]).toMatchObject({ value: 0.4 });
    expect(byName["ratelimit-hot: edge http c=16 ÷ pgbench pooled (diagnostic)"]).toMatchObject({ value: 0.3 });
    // A report of before: both rows' targets under one name, the check's first.
    const old = { label: "old", targets: targets.map((x) => ({ ...x, name: x.name.replace("GET /v1/authz, ", "") })) };
    const history = targetHistory([old, { label: "new", targets }]);
    expect(history.find((h) => h.name === "ratelimit-hot c=16: GET /v1/authz, edge http ≥ 0.35× the edge no-op")?.values).toEqual([0.4, 0.4]);
    expect(history.find((h) => h.name === "ratelimit-hot c=16: edge http ≥ 0.35× the edge no-op")?.values).toEqual([0.3, 0.3]);
  });

  it("a run's label: its start to the minute (UTC) and its commit when the report names one", () => {
    expect(runLabel({ started_at: "2026-11-27T15:02:18.640Z" })).toBe("11-27 15:02");
    expect(runLabel({ started_at: "2026-11-27T15:02:18.640Z", commit: "932840d+changes" })).toBe("11-27 15:02 932840d+changes");
    expect(runLabel({ started_at: "2026-11-27T15:02:18.640Z", commit: null })).toBe("11-27 15:02");
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

describe("machine time per decision, by part of the stack", () => {
  const proc = (pid: number, over: Partial<Proc>): Proc => ({ pid, comm: "x", state: "S", ppid: 1, pgrp: pid, ticks: 0, childTicks: 0, ...over });

  it("reads /proc/PID/stat fields after the command, which may hold spaces and parentheses", () => {
    // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime …
    const p = parseStat(42, "42 (a (b) c) S 7 40 40 0 -1 4194560 10 0 0 0 123 45 6 7 20 0 1 0 100 0 0");
    expect(p).toEqual({ pid: 42, comm: "a (b) c", state: "S", ppid: 7, pgrp: 40, ticks: 168, childTicks: 13 });
  });

  it("splits an interval's CPU into parts, counting a backend that exited through the postmaster, pgbench through the bench", () => {
    const c = classifier({ postmaster: 100, bridge: 200, wranglers: [400], self: 300 });
    const a = cpuSample(
      [
        proc(100, { ticks: 50 }),
        proc(101, { ppid: 100, ticks: 30 }),
        proc(200, { ticks: 20 }),
        proc(300, { ticks: 10 }),
        proc(401, { comm: "workerd", pgrp: 400, ticks: 5 }),
        proc(999, { ticks: 70 }),
      ],
      { busy: 1000, idle: 500 },
      c,
    );
    const b = cpuSample(
      // 101 exited (45 ticks in all) and was reaped by the postmaster; 102 is a new backend; pgbench
      // (9 ticks) ran and was reaped by the bench; 999 is a neighbour.
      [
        proc(100, { ticks: 52, childTicks: 45 }),
        proc(102, { ppid: 100, ticks: 7 }),
        proc(200, { ticks: 25 }),
        proc(300, { ticks: 12, childTicks: 9 }),
        proc(401, { comm: "workerd", pgrp: 400, ticks: 5 }),
        proc(999, { ticks: 130 }),
      ],
      { busy: 1100, idle: 520 },
      c,
    );
    // ticks are 10 ms: postgres 52+45+7 − (50+30) = 24, bridge 5, client 2, pgbench 9, worker 0;
    // other = 100 busy − 40 known = 60; idle 20.
    expect(cpuBetween(a, b)).toEqual({ postgres: 240_000, bridge: 50_000, client: 20_000, pgbench: 90_000, worker: 0, other: 600_000, idle: 200_000 });
  });

  it("charges a wrangler dev instance's workerd to the Worker, and wrangler's own Node process and its esbuild watcher apart", () => {
    const c = classifier({ postmaster: null, bridge: null, wranglers: [400], self: 300 });
    const a = cpuSample(
      [proc(400, { comm: "node", ticks: 10 }), proc(401, { comm: "esbuild", pgrp: 400, ticks: 20 }), proc(402, { comm: "workerd", pgrp: 400, ticks: 30 })],
      { busy: 100, idle: 0 },
      c,
    );
    const b = cpuSample(
      [proc(400, { comm: "node", ticks: 11 }), proc(401, { comm: "esbuild", pgrp: 400, ticks: 29 }), proc(402, { comm: "workerd", pgrp: 400, ticks: 80 })],
      { busy: 160, idle: 0 },
      c,
    );
    // worker 50 ticks (workerd), wrangler 1 + 9 = 10; nothing else ran.
    expect(cpuBetween(a, b)).toEqual({ worker: 500_000, wrangler: 100_000, other: 0, idle: 0 });
  });

  it("measures this process's own CPU from /proc as the client's", async (t) => {
    if (process.platform !== "linux") return t.skip();
    const meter = cpuMeter({ postmaster: null, bridge: null, wranglers: [], self: process.pid });
    const before = process.cpuUsage();
    const stop = meter();
    let x = 0;
    // Busy until the kernel has charged this process 300 ms more CPU, however loaded the machine is.
    while (process.cpuUsage(before).user < 300_000) for (let i = 0; i < 10_000; i++) x += Math.sqrt(x + i);
    const used = stop()!;
    const spent = process.cpuUsage(before);
    expect(x).toBeGreaterThan(0);
    // /proc counts in 10 ms ticks: within a few ticks of what getrusage says.
    expect(Math.abs(used.client - (spent.user + spent.system))).toBeLessThanOrEqual(40_000);
    expect(used.postgres ?? 0).toBe(0);
  });

  it("rounds add their CPU up before dividing by all their decisions", () => {
    const raw = new Map<Row, RawFigures>();
    const r1 = row({ requests: 100 });
    const r2 = row({ requests: 300 });
    raw.set(r1, { latenciesMs: Array(100).fill(1), elapsedMs: 100, cpuUs: { postgres: 10_000, client: 4_000, idle: 0 } });
    raw.set(r2, { latenciesMs: Array(300).fill(1), elapsedMs: 300, cpuUs: { postgres: 30_000, client: 4_000, idle: 800 } });
    expect(mergeRounds([[r1], [r2]], (r) => raw.get(r))[0].cpu_us_per_decision).toEqual({ postgres: 100, client: 20, idle: 2 });
    raw.set(r2, { latenciesMs: Array(300).fill(1), elapsedMs: 300, cpuUs: null }); // a round without /proc: no figure
    expect(mergeRounds([[r1], [r2]], (r) => raw.get(r))[0].cpu_us_per_decision).toBeUndefined();
  });

  it("a table of the parts each row used, and what a ratio would be at the CPU its own parts used", () => {
    // wrangler's dev tooling idles through a library row (wrangler 4): not one of the library's own parts.
    const lib = row({ throughput_rps: 400, cpu_us_per_decision: { postgres: 300, bridge: 80, wrangler: 4, client: 100, other: 5, idle: 15 } });
    const ceil = row({ layer: "ceiling", impl: "pgbench", throughput_rps: 1000, cpu_us_per_decision: { postgres: 180, pgbench: 15, other: 0, idle: 5 } });
    const table = cpuTable([lib, ceil, row({ impl: "other" })]).split("\n");
    expect(table[0]).toBe("| scenario | layer | impl | connection | conc | postgres | bridge | client | pgbench | wrangler | other | idle | machine |");
    expect(table[2]).toBe("| ratelimit-hot | library | admit | pooled | 16 | 300 | 80 | 100 | 0 | 4 | 5 | 15 | 504 |");
    expect(table).toHaveLength(4); // the row without figures is left out
    // 200 µs of machine per ceiling decision ÷ (Postgres 180 + own parts 180) = 0.56
    const a = { scenario: "ratelimit-hot", layer: "library" as const, impl: "admit", connection: "pooled" as const };
    const b = { scenario: "ratelimit-hot", layer: "ceiling" as const, impl: "pgbench", connection: "pooled" as const };
    expect(atCeilingCost([lib, ceil], a, b)?.value).toBe(0.56);
    const t = evaluateTargets([lib, ceil]).find((x) => x.name === "ratelimit-hot: library pooled ÷ pgbench pooled (diagnostic)")!;
    expect(t).toMatchObject({ value: 0.4, at_ceiling_cost: 0.56, met: null });
    // An HTTP edge row's statements run on the bridge's pool: its Postgres cost is the pooled ceiling's.
    const edgeRow = row({
      layer: "edge",
      connection: "http",
      throughput_rps: 300,
      cpu_us_per_decision: { postgres: 300, bridge: 100, worker: 500, client: 100, other: 0, idle: 0 },
    });
    expect(atCeilingCost([edgeRow, ceil], { ...a, layer: "edge", connection: "http" }, b)?.value).toBe(0.23); // 200 ÷ (180 + 700)
    expect(t.detail).toContain("0.56 here at its own parts' cost");
    // Between two edge rows: what each one's own stack used per decision (neighbours, idle cores and
    // wrangler's dev tooling left out).
    const admitEdge = row({
      layer: "edge",
      connection: "http",
      throughput_rps: 400,
      cpu_us_per_decision: { postgres: 400, bridge: 400, worker: 1200, client: 200, wrangler: 300, other: 900, idle: 10 },
    });
    const bareEdge = row({
      layer: "edge",
      impl: DRIVER,
      connection: "http",
      throughput_rps: 500,
      cpu_us_per_decision: { postgres: 400, bridge: 350, worker: 900, client: 200, other: 100, idle: 0 },
    });
    const mA = { scenario: "ratelimit-hot", layer: "edge" as const, impl: "admit", connection: "http" as const };
    expect(atOwnCpu([admitEdge, bareEdge], mA, { ...mA, impl: DRIVER })?.value).toBe(0.84); // 1850 ÷ 2200
    const e = evaluateTargets([admitEdge, bareEdge]).find((x) => x.name === "ratelimit-hot c=16: edge admit ≥ 0.9× the bare HTTP Worker")!;
    expect(e).toMatchObject({ value: 0.8, at_own_cpu: 0.84 });
    expect(e).not.toHaveProperty("at_ceiling_cost");
    expect(e).not.toHaveProperty("driver_alone");
    // Without CPU figures there is no bound.
    expect(atCeilingCost([row({}), row({ layer: "ceiling", impl: "pgbench" })], a, b)).toBeNull();
  });
});

describe("pgbench", () => {
  it("runs the statement with extended protocol (unnamed statements), -C per request", () => {
    const r = {
      script: "",
      clients: 16,
      seconds: 5,
      connectPerTransaction: true,
      defines: { resource: "rb/x" },
      host: "127.0.0.1",
      port: 5432,
      user: "u",
      password: "p",
      database: "d",
    };
    const args = pgbenchArgs(r, "/tmp/s.sql", "/tmp/log");
    expect(args.join(" ")).toBe("-n -M extended -c 16 -j 2 -T 5 -C -D resource=rb/x -l --log-prefix=/tmp/log -f /tmp/s.sql -h 127.0.0.1 -p 5432 -U u d");
    expect(pgbenchArgs({ ...r, connectPerTransaction: false }, "s", "l")).not.toContain("-C");
  });

  it("without pgbench the ceiling rows are marked skipped, and the install command is given", async () => {
    const lines: string[] = [];
    const ctx = { concurrency: 16, profile: null, pgbench: null, log: (l: string) => lines.push(l) } as unknown as BenchContext;
    const r = await ceiling(ctx, { scenario: "reservation-burst", impl: "pgbench", connection: "per-request", script: "SELECT 1;" });
    expect(r).toMatchObject({ layer: "ceiling", impl: "pgbench", connection: "per-request", skipped: "pgbench not installed", throughput_rps: null });
    expect(lines.join("\n")).toContain("skipped (pgbench not installed)");
    expect(pgbenchMissing).toContain("apt-get install -y postgresql-contrib");
  });

  it("parses per-transaction logs (µs) and the summary", () => {
    const log = "0 0 1500 0 1700000000 1\n1 0 2500 0 1700000000 2\n1 1 failed 0 1700000000 3\n\n";
    expect(parsePgbenchLog(log)).toEqual({
      logged: [
        { client: 0, tx: 0, ms: 1.5 },
        { client: 1, tx: 0, ms: 2.5 },
      ],
      failed: 1,
    });
    const out = "number of transactions actually processed: 10206\nlatency average = 3.1 ms\ntps = 5236.123 (without initial connection time)\n";
    expect(parsePgbenchSummary(out)).toEqual({ tps: 5236.123, transactions: 10206 });
  });
});

describe("decisions of several pgbench transactions (permits: acquire, then release)", () => {
  it("a continuing transaction adds to its client's decision before it, and only to that one", () => {
    const logged = [
      { client: 1, tx: 2, ms: 4 },
      { client: 0, tx: 1, ms: 1 },
      { client: 0, tx: 2, ms: 2 },
      { client: 1, tx: 1, ms: 3 },
      { client: 0, tx: 3, ms: 5 },
    ];
    // client 0: tx 1 granted, tx 2 its release; tx 3 refused. client 1: tx 1 refused, tx 2 refused.
    expect(decisionLatencies(logged, new Set(["0:2"]))).toEqual([3, 5, 3, 4]);
    expect(decisionLatencies(logged, new Set())).toEqual([1, 2, 5, 3, 4]);
    // A continuation with no decision before it (the run's first transaction) stands alone.
    expect(decisionLatencies([{ client: 2, tx: 1, ms: 7 }], new Set(["2:1"]))).toEqual([7]);
  });

  const pgbench = findPgbench();
  it("under pgbench -C each statement is its own transaction, and every release is paired with its grant", async (t) => {
    const bin = await pgbench;
    if (!bin) return t.skip("pgbench not installed (apt-get install -y postgresql-contrib)");
    const db = await freshDatabase("bench_permit_script");
    const key = "9001";
    await sql(db, "SELECT admit_semaphore_put($1::bigint, 's', 2, 60000, false, 2000)", [key]);
    const u = new URL(db);
    const r = await runPgbench(bin, {
      script: pgbenchScript("semaphore"),
      clients: 4,
      seconds: 1,
      connectPerTransaction: true,
      defines: { key, name: "s", held: "0", t: "0" },
      host: u.hostname,
      port: Number(u.port),
      user: decodeURIComponent(u.username),
      password: decodeURIComponent(u.password),
      database: u.pathname.slice(1),
    });
    expect(r.failed).toBe(0);
    const [claims] = await sql<{ granted: number; released: number }>(
      db,
      "SELECT count(*)::int AS granted, count(released_at)::int AS released FROM permits WHERE name = 's'",
    );
    expect(claims.released).toBeGreaterThan(0);
    const continuing = await releases((text, params) => sql(db, text, params), "semaphore", "s");
    expect(continuing.size).toBe(claims.granted);
    // Each released claim's release is the logged transaction right after its grant; a claim still
    // held when the run ended has none.
    const paired = r.logged.filter((x) => continuing.has(`${x.client}:${x.tx}`)).length;
    expect(paired).toBe(claims.released);
    expect(decisionLatencies(r.logged, continuing)).toHaveLength(r.logged.length - paired);
    expect(await sql(db, DUPLICATE_PERMITS, ["semaphore", "s", 2])).toEqual([{ n: 0 }]);
  });
});

describe("pgbouncer profile", () => {
  it("transaction pooling, cleartext auth for the Neon driver's pipelined password, loopback only", () => {
    const ini = pgbouncerIni({ host: "127.0.0.1", port: 5432, user: "postgres", password: "p", database: "admit_bench" }, 6432, "/tmp/x", 20);
    expect(ini).toContain("admit_bench = host=127.0.0.1 port=5432 dbname=admit_bench");
    expect(ini).toMatch(/^pool_mode = transaction$/m);
    expect(ini).toMatch(/^auth_type = plain$/m);
    expect(ini).toMatch(/^listen_addr = 127\.0\.0\.1$/m);
    expect(ini).toMatch(/^listen_port = 6432$/m);
  });
});

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
});

describe("violations are counted from the database", () => {
  it("overlapping pairs among a resource's active reservations, and in the peers' table", async () => {
    const db = await freshDatabase("bench_violations");
    // The EXCLUDE constraint forbids what this counts: drop it in this throwaway database to plant overlaps.
    await sql(db, "ALTER TABLE reservations DROP CONSTRAINT reservations_no_overlap");
    const put = (resource: string, from: string, to: string, cancelled = false) =>
      sql(
        db,
        `INSERT INTO reservations (resource, holder, during, cancelled_at) VALUES ($1, 'h', tstzrange($2::timestamptz, $3::timestamptz, '[)'), ${cancelled ? "now()" : "NULL"})`,
        [resource, from, to],
      );
    await put("rb/a", "2030-01-01T00:00:00Z", "2030-01-01T03:00:00Z");
    await put("rb/a", "2030-01-01T02:00:00Z", "2030-01-01T04:00:00Z"); // overlaps the first
    await put("rb/a", "2030-01-01T01:00:00Z", "2030-01-01T02:00:00Z"); // overlaps the first only
    await put("rb/a", "2030-01-01T04:00:00Z", "2030-01-01T05:00:00Z"); // back to back: no overlap
    await put("rb/a", "2030-01-01T00:00:00Z", "2030-01-01T09:00:00Z", true); // cancelled: ignored
    await put("rb/b", "2030-01-01T00:00:00Z", "2030-01-01T03:00:00Z"); // another resource
    expect(await sql(db, ADMIT_OVERLAPS, ["rb/a"])).toEqual([{ n: 2 }]);
    expect(await sql(db, ADMIT_OVERLAPS, ["rb/b"])).toEqual([{ n: 0 }]);

    const naive = await peerSql("seed000-naive.sql");
    await sql(db, naive.setup);
    // [0,2) then [1,3) (overlaps it; the check says so, but nothing stops an insert) then [3,4) (back to back).
    const plan: [string, string, number][] = [
      ["2030-01-01T00:00:00Z", "2030-01-01T02:00:00Z", 0],
      ["2030-01-01T01:00:00Z", "2030-01-01T03:00:00Z", 1],
      ["2030-01-01T03:00:00Z", "2030-01-01T04:00:00Z", 0],
    ];
    for (const [from, to, taken] of plan) {
      expect(await sql(db, naive.check, ["p", from, to])).toHaveLength(taken);
      await sql(db, naive.insert, ["p", from, to, "u"]);
    }
    expect(await sql(db, PEER_OVERLAPS, ["p"])).toEqual([{ n: 1 }]);
  });
});

describe("duplicate permits are counted from the history", () => {
  it("a claim overlapping an earlier one on its slot, a slot beyond the size, a token out of order", async () => {
    const db = await freshDatabase("bench_permits");
    const put = (slot: number, from: string, to: string, token: number) =>
      sql(
        db,
        "INSERT INTO permits (kind, name, slot, holder, fencing_token, ttl_ms, claimed_at, expires_at, released_at) VALUES ('semaphore', 's', $1, 'h', $2, 60000, $3::timestamptz, $3::timestamptz + interval '1 min', $4::timestamptz)",
        [slot, token, from, to],
      );
    await put(0, "2030-01-01T10:00:00Z", "2030-01-01T10:05:00Z", 1);
    await put(0, "2030-01-01T10:03:00Z", "2030-01-01T10:06:00Z", 2); // slot 0 still held by the first: 1
    await put(1, "2030-01-01T10:04:00Z", "2030-01-01T10:10:00Z", 3);
    await put(0, "2030-01-01T10:06:00Z", "2030-01-01T10:07:00Z", 4); // starts as the second ends: fine
    await put(4, "2030-01-01T10:20:00Z", "2030-01-01T10:21:00Z", 5); // slot 4 of a 4-permit semaphore: 1
    await put(2, "2030-01-01T10:30:00Z", "2030-01-01T10:31:00Z", 0); // granted last, smaller token: 1
    expect(await sql(db, DUPLICATE_PERMITS, ["semaphore", "s", 4])).toEqual([{ n: 3 }]);
    expect(await sql(db, DUPLICATE_PERMITS, ["semaphore", "other", 4])).toEqual([{ n: 0 }]);
  });
});

describe("rate-limit and webhook violations are counted from the database", () => {
  it("admissions beyond the limit in a window, per counter row", async () => {
    const db = await freshDatabase("bench_ratelimit");
    await sql(db, "SELECT admit_ratelimit_put_policy('p', 'fixed_window', 5, 60000, false, 604800000)");
    const put = (key: string, slot: number, admitted: number) =>
      sql(
        db,
        "INSERT INTO ratelimit_counters (policy, key, slot, window_start, consumed, admitted, attempted, rejected, last_allowed, expires_at) VALUES ('p', $1, $2, now(), $3::int, $3::int, $3::int, 0, true, now() + interval '1 h')",
        [key, slot, admitted],
      );
    await put("a", 1, 7); // 2 beyond
    await put("a", 2, 5); // at the limit
    await put("b", 1, 6); // 1 beyond
    expect(await sql(db, EXCESS_ADMISSIONS, ["p"])).toEqual([{ n: 3 }]);
  });

  it("more than one inbox row per webhook-id", async () => {
    const db = await freshDatabase("bench_webhooks");
    await sql(db, "SELECT admit_webhook_put_source('s', 'standard-webhooks', $1, NULL, 300, NULL, NULL)", ["whsec_" + Buffer.alloc(32, 7).toString("base64")]);
    // The unique constraint forbids what this counts: drop it in this throwaway database to plant duplicates.
    await sql(db, "ALTER TABLE webhook_events DROP CONSTRAINT webhook_events_once");
    for (const id of ["e1", "e1", "e1", "e2"]) {
      await sql(db, "INSERT INTO webhook_events (source, webhook_id, webhook_timestamp, payload) VALUES ('s', $1, now(), '{}')", [id]);
    }
    expect(await sql(db, DUPLICATE_INBOX_ROWS, ["s"])).toEqual([{ n: 2 }]);
  });

  it("scenario inputs: keys spread over 10 000, five copies per event", () => {
    expect(keyOf({ keys: 1 }, 123)).toBe("hot");
    const keys = new Set(Array.from({ length: 50_000 }, (_, i) => keyOf({ keys: 10_000 }, i)));
    expect(keys.size).toBeGreaterThan(9_000);
    expect([...keys].every((k) => /^k([1-9]\d{0,3}|10000)$/.test(k))).toBe(true);
    expect([0, 4, 5, 9, 10].map(eventOf)).toEqual([0, 0, 1, 1, 2]);
  });
});

describe("the driver-alone Worker (bench/peers/driver-worker)", () => {
  const suite = workerSuite("bench_driver_worker", { config: DRIVER_WORKER });

  it("answers the check from Admit's statement in the Workers runtime, over HTTP and over a WebSocket Client: 200 admitted, 429 refused, 404 without the policy", async () => {
    // The longest window (windows start at multiples of their length since the epoch): with a minute's,
    // the four checks straddled a minute's end in one clean-clone run and the fourth found a fresh window.
    await sql(suite.db, `SELECT admit_ratelimit_put_policy('d', 'fixed_window', 2, ${MAX_WINDOW_MS}, false, 604800000)`);
    const check = (path: string, policy: string) => fetch(suite.worker.url + path, { method: "POST", body: JSON.stringify({ policy, key: "k" }) });
    const answers = [];
    for (const path of ["/check/http", "/check/websocket", "/check/http", "/check"]) {
      const res = await check(path, "d");
      answers.push([res.status, (await res.json()).remaining]);
    }
    expect(answers).toEqual([
      [200, 1],
      [200, 0],
      [429, 0],
      [429, 0],
    ]);
    expect((await check("/check/http", "missing")).status).toBe(404);
    expect((await check("/check/websocket", "missing")).status).toBe(404);
    expect(await sql(suite.db, "SELECT admitted::int, attempted::int FROM ratelimit_counters WHERE policy = 'd'")).toEqual([{ admitted: 2, attempted: 4 }]);
  }, 30_000);
});

describe("edge rows reach the Worker past wrangler's dev proxy", () => {
  it("wrangler dev's user Worker has a socket of its own, found from /proc, that answers as the proxy does", async () => {
    // No database is needed: "/" and an unauthenticated call are answered before any query.
    const worker = await startWranglerDev({
      vars: { DATABASE_URL: "postgres://nobody:x@127.0.0.1:1/none", NEON_WS_PROXY: "127.0.0.1:1/v1", API_TOKEN: "bench-test" },
      devtools: false,
      direct: true,
    });
    try {
      expect(worker.directUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(worker.directUrl).not.toBe(worker.url);
      for (const base of [worker.url, worker.directUrl!]) {
        const root = await fetch(base + "/");
        expect(await root.json()).toMatchObject({ name: "Admit" });
        const check = await fetch(base + "/v1/ratelimits/check", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
        expect(check.status).toBe(401);
        expect(check.headers.get("content-type")).toContain("application/problem+json");
      }
    } finally {
      await worker.stop();
    }
  }, 90_000);
});
