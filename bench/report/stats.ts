// The figures of a row: latency percentiles, rounding, round trips and CPU per decision, answers
// counted by kind, and rounds of one scenario merged into one row each.
import type { Row } from "./rows";

/** Nearest-rank percentile of an ascending-sorted array (p in 0..100). */
export function percentile(sorted: ArrayLike<number>, p: number): number | null {
  if (sorted.length === 0) return null;
  if (p <= 0) return sorted[0];
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, rank) - 1];
}

export interface LatencySummary {
  p50_ms: number | null;
  p95_ms: number | null;
  p99_ms: number | null;
}

/** p50/p95/p99 of latencies in milliseconds (any order), rounded to 0.01 ms. */
export function summarize(latenciesMs: ArrayLike<number>): LatencySummary {
  const sorted = Float64Array.from(latenciesMs).sort();
  const r = (v: number | null) => (v === null ? null : round(v, 2));
  return { p50_ms: r(percentile(sorted, 50)), p95_ms: r(percentile(sorted, 95)), p99_ms: r(percentile(sorted, 99)) };
}

export function round(v: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}

/**
 * Round trips per decision from the bridge's client→server message count. A client that closes
 * sends one Terminate message, which is not part of any decision: subtract one per connection
 * that was closed inside the measured interval.
 */
export function roundTripsPerDecision(clientMessages: number, decisions: number, closedConnections = 0): number | null {
  if (decisions <= 0) return null;
  return round(Math.max(0, clientMessages - closedConnections) / decisions, 2);
}

/** What a row was computed from, kept beside it (not in the report) so rounds can be merged. */
export interface RawFigures {
  latenciesMs: number[];
  elapsedMs: number;
  /** µs of CPU by part over the row (bench/cpu.ts), null without /proc. */
  cpuUs?: Record<string, number> | null;
}

/** µs per decision by part, rounded to whole µs; undefined when nothing was measured. */
export function cpuPerDecision(cpuUs: Record<string, number> | null | undefined, decisions: number): Record<string, number> | undefined {
  if (!cpuUs || decisions <= 0) return undefined;
  return Object.fromEntries(Object.entries(cpuUs).map(([k, v]) => [k, Math.round(v / decisions)]));
}

/**
 * One row per (layer, impl, connection, profile) from several rounds of the same scenario: counts
 * and violations add up, throughput is all decisions over all the time, percentiles are taken over
 * every latency, round trips are weighted by decisions. Rounds interleave the rows in time, so a
 * burst of noise from a neighbour on the machine is shared out instead of landing on one row.
 */
export function mergeRounds(rounds: Row[][], raw: (r: Row) => RawFigures | undefined): Row[] {
  const groups = new Map<string, Row[]>();
  for (const rows of rounds) {
    for (const r of rows) {
      const id = [r.scenario, r.layer, r.impl, r.connection, r.concurrency, r.burst ?? "", r.profile ?? "", r.settings?.commit_ms ?? ""].join("|");
      groups.set(id, [...(groups.get(id) ?? []), r]);
    }
  }
  return [...groups.values()].map((rs) => {
    const done = rs.filter((r) => !r.skipped);
    if (done.length === 0 || rs.length === 1) return rs[0];
    const requests = done.reduce((s, r) => s + r.requests, 0);
    const elapsed = done.reduce((s, r) => s + (raw(r)?.elapsedMs ?? 0), 0);
    const latencies = done.flatMap((r) => raw(r)?.latenciesMs ?? []);
    const counted = done.filter((r) => r.violations !== null);
    const withRt = done.filter((r) => r.round_trips_per_decision !== null);
    const rtWeight = withRt.reduce((s, r) => s + r.requests, 0);
    const withHttp = done.filter((r) => r.http_requests_per_decision !== null && r.http_requests_per_decision !== undefined);
    const httpWeight = withHttp.reduce((s, r) => s + r.requests, 0);
    const outcomes: Record<string, number> = {};
    for (const r of done) for (const [k, v] of Object.entries(r.outcomes ?? {})) outcomes[k] = (outcomes[k] ?? 0) + v;
    const notes = [...new Set(done.map((r) => r.note).filter(Boolean))];
    const cpus = done.map((r) => raw(r)?.cpuUs);
    const cpuUs: Record<string, number> = {};
    for (const c of cpus) for (const [k, v] of Object.entries(c ?? {})) cpuUs[k] = (cpuUs[k] ?? 0) + v;
    const cpu = cpus.every(Boolean) ? cpuPerDecision(cpuUs, requests) : undefined;
    return {
      ...done[0],
      requests,
      throughput_rps: elapsed > 0 ? round((requests * 1000) / elapsed, 1) : null,
      ...summarize(latencies),
      violations: counted.length ? counted.reduce((s, r) => s + (r.violations ?? 0), 0) : null,
      round_trips_per_decision: rtWeight > 0 ? round(withRt.reduce((s, r) => s + (r.round_trips_per_decision ?? 0) * r.requests, 0) / rtWeight, 2) : null,
      ...(withHttp.length
        ? {
            http_requests_per_decision:
              httpWeight > 0 ? round(withHttp.reduce((s, r) => s + (r.http_requests_per_decision ?? 0) * r.requests, 0) / httpWeight, 2) : null,
          }
        : {}),
      outcomes,
      note: [`${done.length} rounds`, ...notes].join("; "),
      cpu_us_per_decision: cpu,
    };
  });
}

/** Counts answers by label. */
export function tally(labels: Iterable<string>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const l of labels) out[l] = (out[l] ?? 0) + 1;
  return out;
}
