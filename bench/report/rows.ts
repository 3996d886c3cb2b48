// A result row of the bench, the names of the rows' impls that the targets read, and how a target
// finds the row it means.

export type Layer = "ceiling" | "library" | "edge";

/**
 * How a row's decisions reach Postgres: the library and ceiling layers hold a connection per client
 * (`pooled`) or open one per decision (`per-request`); the edge layer names the Worker's transport,
 * `http` (one `fetch` per statement to the SQL endpoint, `neon()`) or `websocket` (a driver `Client`
 * per request), or `none` for a route that touches no database.
 */
export type Connection = "pooled" | "per-request" | "http" | "websocket" | "none";

/**
 * The conditions a row ran under: `local` (today's profile: one isolate, no distance, commits that
 * never wait) or `neon` (bench/neon.ts: commits waiting `commit_ms` with their locks held, the load
 * over `isolates` Workers, `rtt_ms` between Worker and database).
 */
export interface Settings {
  profile: "local" | "neon";
  commit_ms: number;
  isolates: number;
  rtt_ms: number;
}

/** One line of the report: what every row has, plus a few fields that explain the figures. */
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
  /** The profile, commit latency, isolates and distance the row ran under. */
  settings?: Settings;
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

/** The impl of the rows that ask Admit the way a gateway's forward-auth does: GET /v1/authz (docs/gateways.md). */
export const AUTHZ = "admit /v1/authz";
/** impl of the rows where the Neon driver sends Admit's statement with no Admit code around it. */
export const DRIVER = "@neondatabase/serverless";
/** Admit's Worker with METRICS=off (the rate-limit rows' twin): what counting and flushing cost, read from the same run. */
export const METRICS_OFF = "admit (METRICS=off)";
/** Admit's Worker with COALESCE=off (the rate-limit and burst rows' twin): each check its own statement, read from the same run. */
export const COALESCE_OFF = "admit (COALESCE=off)";
/** burst-1000's floor: 1000 GET / at once through Admit's Worker (no database), the part of a burst's p99 that is workerd's alone. */
export const BURST_FLOOR = "no-op GET / (the floor)";
/** The library row whose handle has a coalesceKey: concurrent checks of the row share one statement (functions/core/coalesce/). */
export const COALESCED = "admit (coalesced)";
/** The edge concurrency of the "never slower alone" pair (admit and COALESCE=off, one client): no coalescing happens there. */
export const ALONE = 1;

/** A target of an AUTHZ row: named as its check-route twin's, with the route ("…c=16: GET /v1/authz, edge http ≥ …"). */
export function viaAuthz(name: string): string {
  return name.replace(": ", ": GET /v1/authz, ");
}

/** The name of a target of edge row `r`: `name`, with the route where `r` is an AUTHZ row. */
export function targetName(r: Pick<Row, "impl">, name: string): string {
  return r.impl === AUTHZ ? viaAuthz(name) : name;
}

/** What a target asks of a row: these fields equal. */
export type Match = Partial<Pick<Row, "scenario" | "layer" | "impl" | "connection" | "concurrency" | "profile">>;

/** The row matching `m`, with figures; without a `profile` in `m`, the direct (no pooler/transport profile) row. */
export function findRow(rows: Row[], m: Match): Row | undefined {
  return rows.find((r) => !r.skipped && (r.profile ?? undefined) === m.profile && Object.entries(m).every(([k, v]) => r[k as keyof Row] === v));
}

/** A row or match in words, as target details name it. */
export function label(m: Match): string {
  return [m.layer, m.impl, m.connection, m.concurrency ? `c=${m.concurrency}` : "", m.profile ? `via ${m.profile}` : ""].filter(Boolean).join(" ");
}

/** What a row answered that is no answer: a request that got none (`error:…`), or a 5xx. */
export function failuresOf(r: Row): Array<[string, number]> {
  return Object.entries(r.outcomes ?? {}).filter(([k, n]) => n > 0 && (k.startsWith("error") || /^5\d\d$/.test(k)));
}

/** The edge concurrencies a scenario's rows ran at, ascending. */
export function concurrencies(rows: Row[], m: Match): number[] {
  return [...new Set(rows.filter((r) => !r.skipped && Object.entries(m).every(([k, v]) => r[k as keyof Row] === v)).map((r) => r.concurrency))].sort(
    (a, b) => a - b,
  );
}
