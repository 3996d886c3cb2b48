// The bench's pure pieces: latency percentiles, one result row per (scenario, layer, impl,
// connection), the markdown table, and the ratios the issue sets as targets. No I/O here except
// writeReport(), so test/bench.test.ts can exercise all of it.
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export type Layer = "ceiling" | "library" | "edge";
/**
 * How a row's decisions reach Postgres: the library and ceiling layers hold a connection per client
 * (`pooled`) or open one per decision (`per-request`); the edge layer names the Worker's transport,
 * `http` (one `fetch` per statement to the SQL endpoint, `neon()`) or `websocket` (a driver `Client`
 * per request), or `none` for a route that touches no database.
 */
/** The impl of the rows that ask Admit the way a gateway's forward-auth does: GET /v1/authz (docs/gateways.md). */
export const AUTHZ = "admit /v1/authz";

/** A target of an AUTHZ row: named as its check-route twin's, with the route ("…c=16: GET /v1/authz, edge http ≥ …"). */
export function viaAuthz(name: string): string {
  return name.replace(": ", ": GET /v1/authz, ");
}

/** The name of a target of edge row `r`: `name`, with the route where `r` is an AUTHZ row. */
function targetName(r: Pick<Row, "impl">, name: string): string {
  return r.impl === AUTHZ ? viaAuthz(name) : name;
}

export type Connection = "pooled" | "per-request" | "http" | "websocket" | "none";

/** One line of the report: the fields the issue names, plus a few that explain the figures. */
export interface Row {
  scenario: string;
  layer: Layer;
  /** `admit`, `pgbench`, or the peer's name (package name, or the seed design it reproduces). */
  impl: string;
  connection: Connection;
  concurrency: number;
  /** Decisions completed (answered, whatever the answer). */
  requests: number;
  throughput_rps: number | null;
  p50_ms: number | null;
  p95_ms: number | null;
  p99_ms: number | null;
  /** Counted from the database after the run; null when nothing could be counted. */
  violations: number | null;
  /** Client→server WebSocket messages per decision at the bridge; null where traffic bypasses it. */
  round_trips_per_decision: number | null;
  /** Edge rows: HTTP SQL requests (`POST /sql`) per decision at the bridge (`httpRequests` delta ÷ decisions). */
  http_requests_per_decision?: number | null;
  /** Burst rows: which burst of the scenario (e.g. "reservation"): rows of different bursts never merge. */
  burst?: string;
  /** Burst rows: answers with a 5xx status (or no answer at all); the target is 0. */
  errors_5xx?: number;
  /** Burst rows: the exact answers the burst must give, by status (compared with `outcomes`). */
  expected?: Record<string, number>;
  /** Statements (HTTP requests to the Worker) per decision, where more than one (permits: acquire, then release). */
  statements_per_decision?: number;
  /** Burst rows: what the database held afterwards, checked against the answers (null: it agreed). */
  db_mismatch?: string | null;
  /** Answers by kind (e.g. {"201": 90, "409": 910}), for reading the figures. */
  outcomes?: Record<string, number>;
  /** Set when the row ran through a pooler (e.g. "pgbouncer" in transaction mode). */
  profile?: string;
  /** Why the row has no figures (e.g. pgbench not installed). */
  skipped?: string;
  note?: string;
  /**
   * Machine time per decision, µs, by part of the stack (bench/cpu.ts): `postgres`, `bridge`,
   * `worker` (workerd), `client`, `pgbench`, `pgbouncer`, `wrangler` (the dev tooling around the
   * Workers, no part of any decision's path), then `other` and `idle`; they add up to cores ×
   * elapsed ÷ decisions. Absent without /proc.
   */
  cpu_us_per_decision?: Record<string, number>;
}

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
      const id = [r.scenario, r.layer, r.impl, r.connection, r.concurrency, r.burst ?? "", r.profile ?? ""].join("|");
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

const COLUMNS: [keyof Row, string][] = [
  ["scenario", "scenario"],
  ["layer", "layer"],
  ["impl", "impl"],
  ["connection", "connection"],
  ["concurrency", "conc"],
  ["requests", "requests"],
  ["throughput_rps", "req/s"],
  ["p50_ms", "p50 ms"],
  ["p95_ms", "p95 ms"],
  ["p99_ms", "p99 ms"],
  ["violations", "violations"],
  ["round_trips_per_decision", "round trips"],
  ["http_requests_per_decision", "http req"],
  ["errors_5xx", "5xx"],
];

function cell(row: Row, key: keyof Row): string {
  const v = row[key];
  if (
    row.skipped &&
    ["throughput_rps", "p50_ms", "p95_ms", "p99_ms", "violations", "round_trips_per_decision", "http_requests_per_decision", "errors_5xx", "requests"].includes(
      key,
    )
  ) {
    return key === "requests" ? `skipped: ${row.skipped}` : "";
  }
  if (key === "connection" && row.profile) return `${row.connection} via ${row.profile}`;
  if (key === "scenario" && row.burst) return `${row.scenario}: ${row.burst}`;
  if (v === null || v === undefined) return "–";
  if (key === "throughput_rps" && typeof v === "number") return String(Math.round(v));
  return String(v).replaceAll("|", "\\|");
}

/** The rows as a GitHub markdown table, in the order given. */
export function markdownTable(rows: Row[]): string {
  const head = `| ${COLUMNS.map(([, h]) => h).join(" | ")} |`;
  const rule = `| ${COLUMNS.map(([k]) => (typeof rows.find((r) => r[k] !== null && r[k] !== undefined)?.[k] === "number" ? "---:" : "---")).join(" | ")} |`;
  const body = rows.map((r) => `| ${COLUMNS.map(([k]) => cell(r, k)).join(" | ")} |`);
  return [head, rule, ...body].join("\n");
}

/** impl of the rows where the Neon driver sends Admit's statement with no Admit code around it. */
export const DRIVER = "@neondatabase/serverless";
/** The flush interval of the bench's Worker (wrangler.toml METRICS_FLUSH_MS): an edge row's HTTP SQL requests may include one flush per interval. */
const FLUSH_MS = 2_000;
/** Admit's Worker with METRICS=off (the rate-limit rows' twin): what counting and flushing cost, read from the same run. */
export const METRICS_OFF = "admit (METRICS=off)";
/** Admit's Worker with COALESCE=off (the rate-limit and burst rows' twin): each check its own statement, read from the same run. */
export const COALESCE_OFF = "admit (COALESCE=off)";
/** burst-1000's floor: 1000 GET / at once through Admit's Worker (no database), the part of a burst's p99 that is workerd's alone. */
export const BURST_FLOOR = "no-op GET / (the floor)";
/** The library row whose handle has a coalesceKey: concurrent checks of the row share one statement (functions/core/coalesce.ts). */
export const COALESCED = "admit (coalesced)";
/** The edge concurrency of the "never slower alone" pair (admit and COALESCE=off, one client): no coalescing happens there. */
export const ALONE = 1;

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

type Match = Partial<Pick<Row, "scenario" | "layer" | "impl" | "connection" | "concurrency" | "profile">>;

/** The row matching `m`, with figures; without a `profile` in `m`, the direct (no pooler/transport profile) row. */
export function findRow(rows: Row[], m: Match): Row | undefined {
  return rows.find((r) => !r.skipped && (r.profile ?? undefined) === m.profile && Object.entries(m).every(([k, v]) => r[k as keyof Row] === v));
}

function label(m: Match): string {
  return [m.layer, m.impl, m.connection, m.concurrency ? `c=${m.concurrency}` : "", m.profile ? `via ${m.profile}` : ""].filter(Boolean).join(" ");
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

/** What a row answered that is no answer: a request that got none (`error:…`), or a 5xx. */
export function failuresOf(r: Row): Array<[string, number]> {
  return Object.entries(r.outcomes ?? {}).filter(([k, n]) => n > 0 && (k.startsWith("error") || /^5\d\d$/.test(k)));
}

const PARTS = ["postgres", "bridge", "worker", "client", "pgbench", "pgbouncer", "wrangler", "other", "idle"];

/** The parts a decision of each layer goes through on its way to Postgres (wrangler idles through a library row). */
const OWN_PARTS: Record<Exclude<Layer, "ceiling">, string[]> = {
  library: ["client", "bridge", "pgbouncer"],
  edge: ["client", "worker", "bridge", "pgbouncer"],
};

/** Σ of a row's CPU parts, µs per decision: cores × elapsed ÷ decisions. */
function machineUs(cpu: Record<string, number>): number {
  return Object.values(cpu).reduce((s, v) => s + v, 0);
}

/** Each measured row's machine time per decision (µs) by part: what a decision costs and who pays it. */
export function cpuTable(rows: Row[]): string {
  const measured = rows.filter((r) => r.cpu_us_per_decision && !r.skipped);
  if (!measured.length) return "";
  const parts = PARTS.filter((k) => measured.some((r) => r.cpu_us_per_decision![k]));
  const head = `| scenario | layer | impl | connection | conc | ${parts.join(" | ")} | machine |`;
  const rule = `| --- | --- | --- | --- | ---: | ${parts.map(() => "---:").join(" | ")} | ---: |`;
  const body = measured.map((r) => {
    const cpu = r.cpu_us_per_decision!;
    return `| ${cell(r, "scenario")} | ${r.layer} | ${r.impl} | ${cell(r, "connection")} | ${r.concurrency} | ${parts.map((k) => cpu[k] ?? 0).join(" | ")} | ${machineUs(cpu)} |`;
  });
  return [head, rule, ...body].join("\n");
}

/**
 * The ceiling row that runs a row's statements the way it reaches Postgres: HTTP statements run on
 * the bridge's pool (pgbench pooled), a WebSocket Client per request is a connection per request (-C).
 */
function ceilingConnection(c: Connection): Connection {
  return c === "http" ? "pooled" : c === "websocket" ? "per-request" : c;
}

/**
 * What throughput(a) ÷ throughput(b) would be on this machine at the CPU `a`'s own parts used, were
 * `a`'s decisions to cost Postgres what the same statement costs it under pgbench (the ceiling row
 * with `a`'s connection kind) and were no core ever idle: each decision would take that Postgres
 * time plus what `a`'s own parts (OWN_PARTS: the client and the bridge, the Worker at the edge,
 * the pooler in its profile) used per decision in its row, where `b` took its whole machine time
 * per decision. Every part shares the machine's cores, so
 * while `a`'s own parts cost what they do, only a cheaper Postgres side takes `a` past this.
 */
export function atCeilingCost(rows: Row[], a: Match, b: Match): { value: number; detail: string } | null {
  const ra = findRow(rows, a);
  const rb = findRow(rows, b);
  if (!ra || !rb || ra.layer === "ceiling") return null;
  const rc = findRow(rows, { scenario: ra.scenario, layer: "ceiling", impl: "pgbench", connection: ceilingConnection(ra.connection), profile: ra.profile });
  const ca = ra.cpu_us_per_decision;
  const cb = rb.cpu_us_per_decision;
  const pg = rc?.cpu_us_per_decision?.postgres;
  if (!ca || !cb || !pg) return null;
  const own = OWN_PARTS[ra.layer].reduce((sum, k) => sum + (ca[k] ?? 0), 0);
  const value = round(machineUs(cb) / (pg + own), 2);
  return {
    value,
    detail: `${value} here at its own parts' cost and Postgres's cost under pgbench, no core idle: ${own} µs per decision of ${label(a)}'s own parts + Postgres ${pg} µs, against ${machineUs(cb)} µs of machine per decision for ${label(b)}`,
  };
}

/** The CPU parts no decision's path runs in: the neighbours, the idle cores, and wrangler's dev tooling around the Workers (bench/cpu.ts). */
const NOT_THE_STACK = new Set(["other", "idle", "wrangler"]);

/** µs per decision of a row's own stack: every CPU part but NOT_THE_STACK. */
function stackUs(cpu: Record<string, number>): number {
  return Object.entries(cpu).reduce((sum, [k, v]) => sum + (NOT_THE_STACK.has(k) ? 0 : v), 0);
}

/** throughput(a) ÷ throughput(b) as the CPU of each row's own stack would have it (see Target.at_own_cpu). */
export function atOwnCpu(rows: Row[], a: Match, b: Match): { value: number; detail: string } | null {
  const ca = findRow(rows, a)?.cpu_us_per_decision;
  const cb = findRow(rows, b)?.cpu_us_per_decision;
  if (!ca || !cb || stackUs(ca) <= 0) return null;
  const value = round(stackUs(cb) / stackUs(ca), 2);
  const parts = (c: Record<string, number>) =>
    Object.entries(c)
      .filter(([k, v]) => !NOT_THE_STACK.has(k) && v > 0)
      .map(([k, v]) => `${k} ${v}`)
      .join(" + ");
  return { value, detail: `${value} by its own stack's CPU alone (${label(b)} ${stackUs(cb)} µs per decision ÷ ${label(a)} ${stackUs(ca)} µs: ${parts(ca)})` };
}

/**
 * A ratio target, with what it would be at its own parts' cost (when the CPU figures give it) and
 * what the driver alone makes of the same ratio (when the run has that row).
 */
function ratioWithCost(rows: Row[], name: string, a: Match, b: Match, min: number): Target {
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

/** The edge no-op row (`GET /`, no database): what the runtime and the load generator allow by themselves. */
export const NOOP: Match = { scenario: "edge-noop", layer: "edge", impl: "noop", connection: "none" };

/**
 * The no-op an edge row is read against: the one measured right before its scenario's edge rows at
 * its concurrency (bench/scenarios/noop.ts, noopBeside) where the run has it, else the edge-noop
 * scenario's, measured when the run began (reports before 0c4c6f0, and scenarios without one).
 */
export function noopFor(rows: Row[], r: Pick<Row, "scenario" | "concurrency">): Match | undefined {
  const beside: Match = { ...NOOP, scenario: r.scenario, concurrency: r.concurrency };
  if (findRow(rows, beside)) return beside;
  const first: Match = { ...NOOP, concurrency: r.concurrency };
  return findRow(rows, first) ? first : undefined;
}

/**
 * The isolate's metric flushes (docs/observability.md): one statement per METRICS_FLUSH_MS (2 s) at
 * most, after the responses, whatever the rate — not per decision. What an edge row's HTTP SQL
 * requests per decision may have on top of its decisions' own, rounded up.
 */
function flushAllowance(r: Row): number {
  return r.throughput_rps && r.requests ? Math.ceil(((r.requests / r.throughput_rps / (FLUSH_MS / 1000) + 1) / r.requests) * 100) / 100 : 0;
}

/** A ratio kept as a diagnostic: computed and explained, but not a target (no min, never met/unmet). */
function diagnostic(t: Target): Target {
  const { min: _min, ...rest } = t;
  return { ...rest, name: `${t.name} (diagnostic)`, met: null };
}

/** The edge concurrencies a scenario's rows ran at, ascending. */
function concurrencies(rows: Row[], m: Match): number[] {
  return [...new Set(rows.filter((r) => !r.skipped && Object.entries(m).every(([k, v]) => r[k as keyof Row] === v)).map((r) => r.concurrency))].sort(
    (a, b) => a - b,
  );
}

/**
 * Issue 17's targets, evaluated on one run's rows (plus any extra figures a scenario reported):
 * zero violations; at the edge, per concurrency, Admit's hot-key check ≥ 0.9× the bare HTTP Worker,
 * the bare HTTP Worker ≥ 3× the bare WebSocket one, every one-statement Admit edge row ≥ 0.35× the
 * no-op row and at most one HTTP request per statement of a decision; the bursts' exact answers.
 * Issue 32's metrics on vs off, and issue 33's coalescing targets (coalescingTargets()).
 * The ended bench issue's ratios (library vs pgbench and the peer, edge vs pgbench) stay as diagnostics.
 */
export function evaluateTargets(rows: Row[], figures: Target[] = []): Target[] {
  const out: Target[] = [];
  // pgbench and driver-alone rows run Admit's own statement, so they count as Admit here.
  const admitRows = rows.filter((r) => ADMIT_IMPLS.includes(r.impl) && !r.skipped);
  const counted = admitRows.filter((r) => r.violations !== null);
  const violations = counted.reduce((s, r) => s + (r.violations ?? 0), 0);
  out.push({
    name: "zero violations in every Admit scenario",
    value: counted.length ? violations : null,
    max: 0,
    met: counted.length ? violations === 0 : null,
    detail:
      `${counted.length} Admit rows counted` +
      (violations
        ? `; violations in ${admitRows
            .filter((r) => r.violations)
            .map((r) => `${r.scenario} ${label(r)}`)
            .join(", ")}`
        : ""),
  });
  // Every measured row's answers were answers (the bursts are held to their exact answers below).
  const answering = rows.filter((r) => !r.skipped && r.errors_5xx === undefined);
  const failing = answering.map((r) => ({ r, failed: failuresOf(r) })).filter((x) => x.failed.length > 0);
  const failures = failing.reduce((s, x) => s + x.failed.reduce((t, [, n]) => t + n, 0), 0);
  out.push({
    name: "every row answered: no request without an answer, no 5xx",
    value: failures,
    max: 0,
    met: failures === 0,
    detail: failing.length
      ? failing.map(({ r, failed }) => `${r.scenario} ${label(r)} c=${r.concurrency}: ${failed.map(([k, n]) => `${k}×${n}`).join(", ")}`).join("; ")
      : `${answering.length} rows`,
  });
  const hot = "ratelimit-hot";
  for (const c of concurrencies(rows, { scenario: hot, layer: "edge" })) {
    const admit: Match = { scenario: hot, layer: "edge", impl: "admit", connection: "http", concurrency: c };
    const bareHttp: Match = { scenario: hot, layer: "edge", impl: DRIVER, connection: "http", concurrency: c };
    const bareWs: Match = { scenario: hot, layer: "edge", impl: DRIVER, connection: "websocket", concurrency: c };
    // The one-client pair (ALONE) has no bare Worker row to compare with: no target there.
    if (findRow(rows, bareHttp) || (findRow(rows, admit) && c !== ALONE))
      out.push(ratioWithCost(rows, `${hot} c=${c}: edge admit ≥ 0.9× the bare HTTP Worker`, admit, bareHttp, 0.9));
    const authz: Match = { scenario: hot, layer: "edge", impl: AUTHZ, connection: "http", concurrency: c };
    if (findRow(rows, authz)) out.push(ratioWithCost(rows, `${hot} c=${c}: GET /v1/authz ≥ 0.9× POST /v1/ratelimits/check`, authz, admit, 0.9));
    if (findRow(rows, bareHttp) || findRow(rows, bareWs))
      out.push(ratioWithCost(rows, `${hot} c=${c}: bare HTTP Worker ≥ 3× the bare WebSocket Worker`, bareHttp, bareWs, 3));
  }
  // Metrics on vs off (issue 32: nothing added to the hot path), for each rate-limit row that ran both.
  for (const scenario of ["ratelimit-hot", "ratelimit-10k-keys"]) {
    for (const c of concurrencies(rows, { scenario, layer: "edge" })) {
      const on: Match = { scenario, layer: "edge", impl: "admit", connection: "http", concurrency: c };
      const off: Match = { scenario, layer: "edge", impl: METRICS_OFF, connection: "http", concurrency: c };
      if (findRow(rows, off)) out.push(ratioWithCost(rows, `${scenario} c=${c}: edge admit with metrics ≥ 0.9× METRICS=off`, on, off, 0.9));
    }
  }
  out.push(...coalescingTargets(rows));
  // Admit's edge rows, each against the no-op row of the same concurrency, and their HTTP requests.
  const edgeRows = rows.filter((r) => r.layer === "edge" && (r.impl === "admit" || r.impl === AUTHZ) && !r.skipped && !r.profile && r.errors_5xx === undefined);
  for (const r of edgeRows) {
    const m: Match = { scenario: r.scenario, layer: "edge", impl: r.impl, connection: r.connection, concurrency: r.concurrency };
    const statements = r.statements_per_decision ?? 1;
    const noop = noopFor(rows, r);
    if (noop) {
      const against = ratioWithCost(rows, targetName(r, `${r.scenario} c=${r.concurrency}: edge ${r.connection} ≥ 0.35× the edge no-op`), m, noop, 0.35);
      const t =
        noop.scenario === NOOP.scenario ? against : { ...against, detail: `${against.detail}; the no-op measured right before ${r.scenario}'s edge rows` };
      // A decision of several statements (permits: acquire, then release) is several requests: not a one-statement row.
      out.push(
        statements === 1 && r.connection === "http" ? t : diagnostic({ ...t, detail: `${t.detail}; ${statements} HTTP requests to the Worker per decision` }),
      );
    }
    if (r.connection === "http") {
      const v = r.http_requests_per_decision ?? null;
      // The isolate's metric flushes: allowed on top.
      const flushes = flushAllowance(r);
      out.push({
        name: targetName(r, `${r.scenario} c=${r.concurrency}: HTTP SQL requests per decision ≤ ${statements}`),
        value: v,
        max: statements,
        met: v === null ? null : v <= statements + flushes,
        detail:
          v === null
            ? "not counted"
            : `${v} per decision at the bridge (POST /sql), ${statements} statement(s) per decision at most` +
              (flushes ? ` (+ ${flushes} for the metric flushes, one per ${FLUSH_MS / 1000} s)` : "") +
              (v < statements ? (statements > 1 ? "; fewer: a refused acquire sends no release" : "; fewer: answers from the deny cache (no statement)") : ""),
      });
    }
  }
  // The ended bench issue's ratios: diagnostics now.
  out.push(
    diagnostic(
      ratioWithCost(
        rows,
        `${hot}: library pooled ÷ pgbench pooled`,
        { scenario: hot, layer: "library", impl: "admit", connection: "pooled" },
        { scenario: hot, layer: "ceiling", impl: "pgbench", connection: "pooled" },
        0.8,
      ),
    ),
  );
  out.push(
    diagnostic(
      ratioWithCost(
        rows,
        `${hot}: library pooled ÷ rate-limiter-flexible`,
        { scenario: hot, layer: "library", impl: "admit", connection: "pooled" },
        { scenario: hot, layer: "library", impl: "rate-limiter-flexible", connection: "pooled" },
        1.0,
      ),
    ),
  );
  out.push(
    diagnostic(
      ratioWithCost(
        rows,
        `${hot}: library pooled ÷ rate-limiter-flexible, same transport`,
        { scenario: hot, layer: "library", impl: "admit", connection: "pooled" },
        { scenario: hot, layer: "library", impl: "rate-limiter-flexible", connection: "pooled", profile: "neon-bridge" },
        1.0,
      ),
    ),
  );
  // At the scenario's lowest edge concurrency, leaving out the one-client pair (ALONE) where the scenario ran others.
  const lowest = (scenario: string) => {
    const cs = edgeRows.filter((y) => y.scenario === scenario).map((y) => y.concurrency);
    return Math.min(...(cs.some((c) => c !== ALONE) ? cs.filter((c) => c !== ALONE) : cs));
  };
  for (const r of edgeRows.filter((x) => x.concurrency === lowest(x.scenario))) {
    const ceil = ceilingConnection(r.connection);
    out.push(
      diagnostic(
        ratioWithCost(
          rows,
          targetName(r, `${r.scenario}: edge ${r.connection} c=${r.concurrency} ÷ pgbench ${ceil === "pooled" ? "pooled" : "-C"}`),
          { scenario: r.scenario, layer: "edge", impl: r.impl, connection: r.connection, concurrency: r.concurrency },
          { scenario: r.scenario, layer: "ceiling", impl: "pgbench", connection: ceil },
          0.8,
        ),
      ),
    );
  }
  // The bursts: exact answers, no 5xx, and the database agreeing with the answers.
  for (const r of rows.filter((x) => x.errors_5xx !== undefined && !x.skipped)) out.push(burstTarget(r));
  return [...out, ...figures];
}

/** The impls whose violations count as Admit's: Admit's own rows, and pgbench and the driver alone, which run Admit's own statement. */
const ADMIT_IMPLS = ["admit", METRICS_OFF, COALESCE_OFF, COALESCED, AUTHZ, "pgbench", DRIVER];

/**
 * Issue 33's targets for coalescing (functions/core/coalesce.ts), each only where the run has both
 * rows: on the hot key, Admit's edge rows well past the bare HTTP Worker (1.5× at c=64, 1.2× at
 * c=16; the 10 000-key spread 1.3× the bare Worker's hot-key row at c=64, the only one it has) and
 * at most 0.25 HTTP SQL requests per decision at c=64; each burst-1000 burst's p99 at most half the
 * COALESCE=off Worker's; one client alone no slower than with COALESCE=off (p50 ≤ 1.1× + 0.3 ms); and
 * the coalesced library row at least pgbench's pooled throughput on the hot key.
 */
export function coalescingTargets(rows: Row[]): Target[] {
  const out: Target[] = [];
  const hot = "ratelimit-hot";
  const spread = "ratelimit-10k-keys";
  const edgeAt = (scenario: string, impl: string, concurrency: number): Match => ({ scenario, layer: "edge", impl, connection: "http", concurrency });
  const both = (a: Match, b: Match) => findRow(rows, a) !== undefined && findRow(rows, b) !== undefined;
  const vsBare: [string, number, number, string][] = [
    [hot, 64, 1.5, ""],
    [hot, 16, 1.2, ""],
    [spread, 64, 1.3, ` on ${hot} c=64 (the bare Worker has a hot-key row only)`],
  ];
  for (const [scenario, c, min, onHot] of vsBare) {
    const admit = edgeAt(scenario, "admit", c);
    const bare = edgeAt(hot, DRIVER, c);
    if (both(admit, bare)) out.push(ratioWithCost(rows, `${scenario} c=${c}: edge admit ≥ ${min}× the bare HTTP Worker${onHot}`, admit, bare, min));
  }
  const busy = findRow(rows, edgeAt(hot, "admit", 64));
  if (busy) {
    const v = busy.http_requests_per_decision ?? null;
    const flushes = flushAllowance(busy);
    out.push({
      name: `${hot} c=64: edge admit, HTTP SQL requests per decision ≤ 0.25 (coalesced)`,
      value: v,
      max: 0.25,
      met: v === null ? null : v <= 0.25 + flushes,
      detail:
        v === null
          ? "not counted"
          : `${v} per decision at the bridge (POST /sql): about ${v > 0 ? round(1 / v, 1) : "–"} decisions per statement` +
            (flushes ? ` (+ ${flushes} allowed for the metric flushes, one per ${FLUSH_MS / 1000} s)` : "") +
            (findRow(rows, edgeAt(hot, COALESCE_OFF, 64))
              ? `; COALESCE=off: ${findRow(rows, edgeAt(hot, COALESCE_OFF, 64))!.http_requests_per_decision ?? "–"}`
              : ""),
    });
  }
  // One client: nothing to coalesce with, so no slower than each check its own statement.
  const alone = findRow(rows, edgeAt(hot, "admit", ALONE));
  const aloneOff = findRow(rows, edgeAt(hot, COALESCE_OFF, ALONE));
  if (alone && aloneOff && alone.p50_ms !== null && aloneOff.p50_ms !== null) {
    const bound = round(1.1 * aloneOff.p50_ms + 0.3, 2);
    out.push({
      name: `${hot} c=${ALONE}: edge admit p50 ≤ 1.1× COALESCE=off p50 + 0.3 ms (never slower alone)`,
      value: alone.p50_ms,
      max: bound,
      met: alone.p50_ms <= bound,
      detail: `admit p50 ${alone.p50_ms} ms (${alone.requests} requests, ${Math.round(alone.throughput_rps ?? 0)} req/s) against COALESCE=off p50 ${aloneOff.p50_ms} ms (${aloneOff.requests} requests, ${Math.round(aloneOff.throughput_rps ?? 0)} req/s): bound 1.1 × ${aloneOff.p50_ms} + 0.3 = ${bound} ms; ratio ${round(alone.p50_ms / aloneOff.p50_ms, 2)}`,
    });
  }
  // Each burst, with coalescing and without (the same burst through the COALESCE=off Worker).
  const floor = rows.find((x) => x.burst === BURST_FLOOR && !x.skipped && x.p99_ms !== null);
  for (const r of rows.filter((x) => x.burst !== undefined && x.burst !== BURST_FLOOR && x.impl === "admit" && !x.skipped)) {
    const off = rows.find((x) => x.scenario === r.scenario && x.burst === r.burst && x.impl === COALESCE_OFF && !x.skipped);
    if (!off || r.p99_ms === null || !off.p99_ms) continue;
    const value = round(r.p99_ms / off.p99_ms, 2);
    // What caps it: the floor's p99 is paid with coalescing or without.
    const above = floor?.p99_ms
      ? `; the floor (${BURST_FLOOR}, same run): p99 ${floor.p99_ms} ms — above it admit ${round(r.p99_ms - floor.p99_ms, 1)} ms, COALESCE=off ${round(off.p99_ms - floor.p99_ms, 1)} ms; 0.5× off leaves ${round(0.5 * off.p99_ms - floor.p99_ms, 1)} ms above the floor`
      : "";
    out.push({
      name: `${r.scenario} ${r.burst}: p99 ≤ 0.5× COALESCE=off`,
      value,
      max: 0.5,
      met: value <= 0.5,
      detail: `admit p99 ${r.p99_ms} ms ÷ COALESCE=off p99 ${off.p99_ms} ms (p50 ${r.p50_ms} vs ${off.p50_ms} ms; HTTP SQL requests per decision ${r.http_requests_per_decision ?? "–"} vs ${off.http_requests_per_decision ?? "–"})${above}`,
    });
  }
  const coalesced: Match = { scenario: hot, layer: "library", impl: COALESCED, connection: "pooled" };
  const pgbench: Match = { scenario: hot, layer: "ceiling", impl: "pgbench", connection: "pooled" };
  if (both(coalesced, pgbench)) out.push(ratioWithCost(rows, `${hot}: library ${COALESCED} pooled ≥ 1.0× pgbench pooled`, coalesced, pgbench, 1.0));
  return out;
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

/**
 * Adds to each ratio target the same ratio in each round on its own. The machine is shared, so a
 * ratio that moves between rounds says how far to trust the merged one.
 */
export function withRoundSpread(targets: Target[], byRound: Row[][]): Target[] {
  if (byRound.length < 2) return targets;
  const each = byRound.map((rows) => new Map(evaluateTargets(rows).map((t) => [t.name, t.value])));
  return targets.map((t) => {
    if (t.min === undefined || t.value === null) return t;
    const rounds = each.map((m) => m.get(t.name) ?? null);
    return { ...t, rounds, detail: `${t.detail}; by round ${rounds.map((v) => v ?? "–").join(", ")}` };
  });
}

export function targetsMarkdown(targets: Target[]): string {
  return targets
    .map((t) => {
      const mark = t.met === null ? (t.min === undefined && t.max === undefined ? "not a target" : "–") : t.met ? "met" : "NOT met";
      const want = t.min !== undefined ? `≥ ${t.min}` : t.max !== undefined ? `≤ ${t.max}` : "";
      return `- ${t.name}: **${t.value ?? "n/a"}** (${want ? `target ${want}, ` : ""}${mark}) — ${t.detail}`;
    })
    .join("\n");
}

export interface Report {
  started_at: string;
  finished_at: string;
  command: string;
  quick: boolean;
  /**
   * The commit the run measured (`git rev-parse --short HEAD` at its start), with "+changes" when
   * files under functions/, schema/ or bench/ differed from it; null outside a git checkout. Runs
   * written before cad58f1 have none.
   */
  commit?: string | null;
  machine: { cpus: number; node: string; platform: string };
  pgbench: string | null;
  pgbouncer: string | null;
  scenarios: Row[];
  targets: Target[];
  notes: string[];
}

/** Where `npm run bench` writes its reports and `npm run bench:compare` reads them (git-ignored). */
export const RESULTS_DIR = join(dirname(fileURLToPath(import.meta.url)), "results");

/** Writes bench/results/<timestamp>.json and bench/results/latest.json; returns the first path. */
export async function writeReport(dir: string, report: Report): Promise<string> {
  await mkdir(dir, { recursive: true });
  const stamp = report.started_at.replace(/[:.]/g, "-");
  const file = join(dir, `${stamp}.json`);
  const text = JSON.stringify(report, null, 2) + "\n";
  await writeFile(file, text);
  await writeFile(join(dir, "latest.json"), text);
  return file;
}

/** One run as `npm run bench:compare` reads it: a label (when it started, its commit) and its targets. */
export interface RunTargets {
  label: string;
  targets: Target[];
}

/** A run's label: its start (UTC, to the minute) and, when the report has one, its commit. */
export function runLabel(report: Pick<Report, "started_at" | "commit">): string {
  const at = report.started_at.slice(5, 16).replace("T", " ");
  return report.commit ? `${at} ${report.commit}` : at;
}

/** A target across runs: its value in each (null where that run did not judge it), and how many met it. */
export interface TargetHistory {
  name: string;
  values: (number | null)[];
  mets: (boolean | null)[];
  met: number;
  judged: number;
}

/**
 * Every target judged in any of `runs`, the least met first (by the share of the runs that judged
 * it; among equals, the order the bench judges them in): on a shared machine a ratio near its line
 * is met in one run and not the next, and only the runs side by side tell that from a target no run
 * meets (docs/performance.md, "Where the targets stand").
 */
export function targetHistory(runs: RunTargets[]): TargetHistory[] {
  // Reports written before the AUTHZ rows' targets had names of their own gave them their check-route
  // twins' names, right after those: a name's second target in one run is the AUTHZ row's.
  const named = runs.map((run) => {
    const seen = new Set<string>();
    return run.targets.map((t) => {
      const name = seen.has(t.name) && !t.name.includes("/v1/authz") ? viaAuthz(t.name) : t.name;
      seen.add(t.name);
      return { ...t, name };
    });
  });
  const names: string[] = [];
  for (const targets of named) for (const t of targets) if (t.met !== null && !names.includes(t.name)) names.push(t.name);
  const lines = names.map((name) => {
    const each = named.map((targets) => targets.find((t) => t.name === name));
    const mets = each.map((t) => t?.met ?? null);
    return {
      name,
      values: each.map((t) => t?.value ?? null),
      mets,
      met: mets.filter((m) => m === true).length,
      judged: mets.filter((m) => m !== null).length,
    };
  });
  return lines.sort((a, b) => a.met / a.judged - b.met / b.judged);
}

/** targetHistory() as a markdown table: a column per run, a value bold where met, "–" where not judged. */
export function compareMarkdown(runs: RunTargets[]): string {
  const cell = (v: number | null, met: boolean | null) => (v === null || met === null ? "–" : met ? `**${v}**` : String(v));
  return [
    `| target | ${runs.map((r) => r.label).join(" | ")} | met in |`,
    `| --- | ${runs.map(() => "---").join(" | ")} | --- |`,
    ...targetHistory(runs).map(
      (t) => `| ${t.name.replace(/\|/g, "\\|")} | ${t.values.map((v, i) => cell(v, t.mets[i])).join(" | ")} | ${t.met} of ${t.judged} |`,
    ),
  ].join("\n");
}
