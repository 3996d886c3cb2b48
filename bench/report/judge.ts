// A target and the ways one is judged on a run's rows: a ratio of two rows' throughputs (with what
// the CPU figures and the driver alone make of it), a diagnostic, a burst's exact answers, and the
// allowance an edge row's HTTP SQL requests get for the metric flushes.
import { atCeilingCost, atOwnCpu } from "./cost";
import { DRIVER, failuresOf, findRow, label, type Match, type Row } from "./rows";
import { round } from "./stats";

export interface Target {
  name: string;
  /**
   * For a ratio of an Admit row: the same ratio for the driver alone (impl DRIVER: the same statement,
   * layer and transport, none of Admit's code), measured in the same run where such a row exists.
   */
  driver_alone?: number;
  /** For a ratio: what it would be on this machine at the CPU its own parts used and Postgres's cost under pgbench (see atCeilingCost()). */
  at_ceiling_cost?: number;
  /**
   * For a ratio: what it would be were each row's decisions limited only by the CPU its own stack used
   * per decision (every part but `other` and `idle`: neighbours and idle cores left out), i.e.
   * stack µs of b ÷ stack µs of a. Where the measured ratio sits near it, CPU caps the ratio.
   */
  at_own_cpu?: number;
  /** The measured value: a ratio, or a count for absolute targets. */
  value: number | null;
  /** Met when value ≥ min (ratios) or value ≤ max (counts). */
  min?: number;
  max?: number;
  met: boolean | null;
  detail: string;
  /** A ratio taken in each round on its own (null where a row is missing): how much of it is noise. */
  rounds?: (number | null)[];
}

/** throughput(a) ÷ throughput(b), as a target that is met at ≥ min. */
export function ratioTarget(rows: Row[], name: string, a: Match, b: Match, min: number): Target {
  const ra = findRow(rows, a);
  const rb = findRow(rows, b);
  if (!ra || !rb || !ra.throughput_rps || !rb.throughput_rps) {
    return { name, value: null, min, met: null, detail: `not measured (${!ra ? label(a) : label(b)} missing)` };
  }
  const value = round(ra.throughput_rps / rb.throughput_rps, 2);
  const detail = `${label(a)} ${Math.round(ra.throughput_rps)} req/s ÷ ${label(b)} ${Math.round(rb.throughput_rps)} req/s`;
  // A rate of failures is no rate: a Worker gone answers ECONNREFUSED faster than any decision.
  const failed = [ra, rb].flatMap((r) => failuresOf(r).map(([k, n]) => `${label(r)} answered ${k}×${n}`));
  if (failed.length) return { name, value, min, met: false, detail: `NOT judged: ${failed.join(", ")}; ${detail}` };
  return { name, value, min, met: value >= min, detail };
}

/**
 * A ratio target, with what it would be at its own parts' cost (when the CPU figures give it) and
 * what the driver alone makes of the same ratio (when the run has that row).
 */
export function ratioWithCost(rows: Row[], name: string, a: Match, b: Match, min: number): Target {
  let t = ratioTarget(rows, name, a, b, min);
  const own = t.value === null ? null : atOwnCpu(rows, a, b);
  if (own) t = { ...t, at_own_cpu: own.value, detail: `${t.detail}; ${own.detail}` };
  // Two edge rows share their layer's runtime and transport: Postgres's pgbench cost says nothing more there.
  const at = t.value === null || (a.layer === "edge" && b.layer === "edge") ? null : atCeilingCost(rows, a, b);
  if (at) t = { ...t, at_ceiling_cost: at.value, detail: `${t.detail}; ${at.detail}` };
  const rd = t.value === null || a.impl === DRIVER || b.impl === DRIVER ? undefined : findRow(rows, { ...a, impl: DRIVER });
  if (rd?.throughput_rps) {
    const [ra, rb] = [findRow(rows, a)!, findRow(rows, b)!];
    const alone = round(rd.throughput_rps / rb.throughput_rps!, 2);
    const share = round(ra.throughput_rps! / rd.throughput_rps, 2);
    t = {
      ...t,
      driver_alone: alone,
      detail: `${t.detail}; the driver alone (the same statement, no Admit code): ${alone}× (${Math.round(rd.throughput_rps)} req/s; Admit ${share}× of it)`,
    };
  }
  return t;
}

/** A ratio kept as a diagnostic: computed and explained, but not a target (no min, never met/unmet). */
export function diagnostic(t: Target): Target {
  const { min: _min, ...rest } = t;
  return { ...rest, name: `${t.name} (diagnostic)`, met: null };
}

/** A burst row's target: value = its 5xx count (≤ 0), met only when the answers are exactly the expected ones and the database agrees. */
export function burstTarget(r: Row): Target {
  const got = r.outcomes ?? {};
  const want = r.expected ?? {};
  const keys = [...new Set([...Object.keys(want), ...Object.keys(got)])].sort();
  const wrong = keys.filter((k) => (got[k] ?? 0) !== (want[k] ?? 0));
  const fmt = (o: Record<string, number>) =>
    Object.entries(o)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => `${v}×${k}`)
      .join(", ");
  const exact = wrong.length === 0;
  const dbOk = r.db_mismatch === null || r.db_mismatch === undefined;
  return {
    name: `${r.scenario} ${r.burst ?? r.impl}${r.burst && r.impl !== "admit" ? `, ${r.impl}` : ""}: 0 × 5xx, exactly ${fmt(want)}, the database agrees`,
    value: r.errors_5xx ?? null,
    max: 0,
    met: r.errors_5xx === 0 && exact && dbOk,
    detail: `answers ${fmt(got)}${exact ? " (exact)" : ` — expected ${fmt(want)}`}; p99 ${r.p99_ms} ms; database: ${dbOk ? "agrees" : r.db_mismatch}`,
  };
}

/** The edge no-op row (`GET /`, no database): what the runtime and the load generator allow by themselves. */
export const NOOP: Match = { scenario: "edge-noop", layer: "edge", impl: "noop", connection: "none" };

/**
 * The no-op an edge row is read against: the one measured right before its scenario's edge rows at
 * its concurrency (bench/scenarios/noop.ts, noopBeside) where the run has it, else the edge-noop
 * scenario's, measured when the run began (a run or scenario without a no-op beside its edge rows).
 */
export function noopFor(rows: Row[], r: Pick<Row, "scenario" | "concurrency">): Match | undefined {
  const beside: Match = { ...NOOP, scenario: r.scenario, concurrency: r.concurrency };
  if (findRow(rows, beside)) return beside;
  const first: Match = { ...NOOP, concurrency: r.concurrency };
  return findRow(rows, first) ? first : undefined;
}

/** The flush interval of the bench's Worker (wrangler.toml METRICS_FLUSH_MS): an edge row's HTTP SQL requests may include one flush per interval. */
export const FLUSH_MS = 2_000;

/**
 * The isolate's metric flushes (docs/observability.md): one statement per METRICS_FLUSH_MS (2 s) at
 * most, after the responses, whatever the rate — not per decision. What an edge row's HTTP SQL
 * requests per decision may have on top of its decisions' own, rounded up.
 */
export function flushAllowance(r: Row): number {
  return r.throughput_rps && r.requests ? Math.ceil(((r.requests / r.throughput_rps / (FLUSH_MS / 1000) + 1) / r.requests) * 100) / 100 : 0;
}
