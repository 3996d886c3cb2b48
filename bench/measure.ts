// What a scenario module gets (BenchContext) and the three ways it measures a row: the ceiling
// (pgbench), the library (Node + Neon driver through the bridge) and the edge (HTTP to wrangler dev).
import type { BridgeStats } from "../dev/bridge";
import type { BenchBridge } from "./bridge-process";
import type { CpuMeter, CpuUs } from "./cpu";
import { type Connections, httpCall, type LoadResult, perRequestConnections, pooledConnections, type Query, runLoad } from "./load";
import { decisionLatencies, PGBENCH_INSTALL, type Pgbench, runPgbench } from "./pgbench";
import {
  type Connection,
  cpuPerDecision,
  type Layer,
  type RawFigures,
  type Row,
  round,
  roundTripsPerDecision,
  type Settings,
  summarize,
  type Target,
  tally,
} from "./report";

/** Each measured row's latencies and elapsed time, for merging rounds (see mergeRounds). */
export const rawFigures = new WeakMap<Row, RawFigures>();

export interface BenchContext {
  quick: boolean;
  concurrency: number;
  /** The edge layer's rows run once at each of these concurrencies (issue 17: 16 and 64). */
  edgeConcurrency: number[];
  /** Per row: at most this many decisions, for at most this long. */
  requests: number;
  seconds: number;
  db: { url: string; wsProxy: string; host: string; port: number; user: string; password: string; database: string };
  /** Admit's Worker; `urls`, where there are several isolates (neon profile), each one's socket, sent to round robin. */
  worker: { url: string; token: string; urls?: string[] } | null;
  /** The driver-alone Worker (bench/peers/driver-worker), which takes no token; null with --no-edge. */
  driverWorker: { url: string; urls?: string[] } | null;
  /** Admit's Worker with METRICS=off (docs/observability.md): the rate-limit rows' "metrics off" twin; null with --no-edge and in a pooler profile. */
  metricsOffWorker?: { url: string; token: string } | null;
  /** Admit's Worker with COALESCE=off (each check its own statement): the rate-limit and burst rows' "coalescing off" twin; null with --no-edge and in a pooler profile. */
  coalesceOffWorker?: { url: string; token: string } | null;
  bridge: BenchBridge;
  pgbench: Pgbench | null;
  /** Setup and invariant queries over plain TCP (not through the bridge, so not counted). */
  sql<R = any>(text: string, params?: unknown[]): Promise<R[]>;
  log(line: string): void;
  /** Extra figures for the closing targets (e.g. the deny-cache burst). */
  figure(t: Target): void;
  /** Set while re-running per-request rows through a pooler ("pgbouncer"); null for the direct run. */
  profile: string | null;
  /** The profile the run is in (bench/neon.ts); absent: today's. */
  settings?: Settings;
  /** The neon profile's pass (e.g. "c3" at commit 3 ms): each pass uses keys of its own; undefined in today's profile. */
  pass?: string;
  /** This pass over the scenario's rows (0-based) of `rounds`; each round uses keys of its own. */
  round: number;
  rounds: number;
  /** Measures the machine's CPU by part of the stack around each timed row (absent: not measured). */
  cpu?: CpuMeter;
}

/** Starts the CPU measurement of a row; the returned function ends it. */
function cpuStart(ctx: BenchContext): () => CpuUs | null {
  return ctx.cpu ? ctx.cpu() : () => null;
}

/** Work done once per scenario (bursts, sell-outs) goes in the last round. */
export function lastRound(ctx: BenchContext): boolean {
  return ctx.round === ctx.rounds - 1;
}

/** A figure's place in the run, for its name: the commit latency in the neon profile (each pass makes its own figures), else nothing. */
export function passLabel(ctx: BenchContext): string {
  return ctx.pass && ctx.settings ? ` (commit ${ctx.settings.commit_ms} ms)` : "";
}

/** A name unique to this row of this run (profile included), for keys and resources. */
export function rowKey(ctx: BenchContext, ...parts: string[]): string {
  return [ctx.profile, ctx.pass, ...parts, ctx.rounds > 1 ? `r${ctx.round}` : ""].filter(Boolean).join("-");
}

export interface Scenario {
  name: string;
  /** Why the scenario cannot run on this build (its capability is not on this branch yet), or null. */
  unavailable(ctx: BenchContext): Promise<string | null>;
  /** The rows; null for a row the current profile does not run. */
  run(ctx: BenchContext): Promise<(Row | null)[]>;
}

/** True when every named SQL function exists in the bench database. */
export async function hasFunctions(ctx: BenchContext, ...names: string[]): Promise<boolean> {
  const rows = await ctx.sql<{ n: number }>("SELECT count(DISTINCT proname)::int AS n FROM pg_proc WHERE proname = ANY($1)", [names]);
  return rows[0]?.n === names.length;
}

interface Common {
  scenario: string;
  impl: string;
  /** Counts violations in the database after the run (null = not applicable). */
  violations?: () => Promise<number | null>;
  note?: string;
  concurrency?: number;
  requests?: number;
  seconds?: number;
  /** Statements (edge: HTTP requests to the Worker) per decision, where more than one. */
  statementsPerDecision?: number;
}

/** The pooler profile re-runs only Admit's own per-request rows: that is what a pooler changes. */
function outOfProfile(ctx: BenchContext, impl: string, connection: Connection): boolean {
  return ctx.profile !== null && (connection === "pooled" || (impl !== "admit" && impl !== "pgbench"));
}

function baseRow(ctx: BenchContext, c: Common, layer: Layer, connection: Connection): Row {
  return {
    ...(ctx.profile ? { profile: ctx.profile } : {}),
    scenario: c.scenario,
    layer,
    impl: c.impl,
    connection,
    concurrency: c.concurrency ?? ctx.concurrency,
    requests: 0,
    throughput_rps: null,
    p50_ms: null,
    p95_ms: null,
    p99_ms: null,
    violations: null,
    round_trips_per_decision: null,
    ...(c.statementsPerDecision && c.statementsPerDecision !== 1 ? { statements_per_decision: c.statementsPerDecision } : {}),
    ...(c.note ? { note: c.note } : {}),
  };
}

function progress(ctx: BenchContext, what: string, total: number) {
  return (done: number) => ctx.log(`    … ${what}: ${done}/${total}`);
}

function finish(row: Row, load: LoadResult, violations: number | null, rt: number | null, cpuUs: CpuUs | null): Row {
  row.requests = load.latencies.length;
  row.throughput_rps = load.elapsedMs > 0 ? round((load.latencies.length * 1000) / load.elapsedMs, 1) : null;
  Object.assign(row, summarize(load.latencies));
  row.violations = violations;
  row.round_trips_per_decision = rt;
  row.outcomes = tally(load.outcomes);
  row.cpu_us_per_decision = cpuPerDecision(cpuUs, row.requests);
  rawFigures.set(row, { latenciesMs: load.latencies, elapsedMs: load.elapsedMs, cpuUs });
  return row;
}

function rowName(r: Row): string {
  return `${r.layer}/${r.impl}/${r.connection}${r.profile ? ` via ${r.profile}` : ""}`;
}

function describeRow(r: Row): string {
  if (r.skipped) return `skipped (${r.skipped})`;
  const out = Object.entries(r.outcomes ?? {})
    .map(([k, v]) => `${k}×${v}`)
    .join(" ");
  return `${r.requests} in ${r.throughput_rps} req/s, p50 ${r.p50_ms} ms, p99 ${r.p99_ms} ms, violations ${r.violations ?? "–"}, round trips ${r.round_trips_per_decision ?? "–"}${r.http_requests_per_decision !== undefined ? `, http ${r.http_requests_per_decision ?? "–"}` : ""} [${out}]`;
}

function announce(ctx: BenchContext, row: Row): void {
  ctx.log(`  ${rowName(row)} c=${row.concurrency}: ${describeRow(row)}`);
}

/**
 * Untimed decisions first, so the row measures a warm path: at least 4 per client (at most 2 s), so
 * each pooled backend has planned the statement, then more until a quarter of the row's time has
 * passed (at most 1 s, 64 per client in all), so the JIT of the bench and of the bridge has
 * optimised the path and whatever the previous row left (pgbench's exit, its log being read) is
 * over. With a few per client only, the first pooled row after the ceiling rows ran slower than the
 * same statement's row right after it in most rounds, whichever of the two came first. They are
 * real decisions (indexes after the row's own), so they count in the database's violation checks
 * like any other.
 */
async function warmUp(concurrency: number, rowSeconds: number, op: (i: number, worker: number) => Promise<string>): Promise<void> {
  const first = await runLoad({ concurrency, requests: concurrency * 4, timeLimitMs: 2_000 }, op);
  const more = Math.min(1_000, (rowSeconds * 1_000) / 4) - first.elapsedMs;
  if (more > 0) await runLoad({ concurrency, requests: concurrency * 60, timeLimitMs: more }, (i, w) => op(concurrency * 4 + i, w));
}

/** Waits (bounded) until the bridge has no more open connections than `open`, so Terminates are in. */
async function settle(bridge: BenchBridge, open: number): Promise<BridgeStats> {
  const until = Date.now() + 5_000;
  let s = await bridge.stats();
  while (s.open > open && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 50));
    s = await bridge.stats();
  }
  return s;
}

/** Library layer: `op` makes one decision with the TypeScript path on a Neon-driver connection. */
export async function library(
  ctx: BenchContext,
  c: Common & {
    connection: Connection;
    op: (q: Query, i: number) => Promise<string>;
    /** Per-request row: a new connection for each statement, not each decision (see `ceiling`'s `continuations`). */
    connectionPerStatement?: boolean;
    /** Called as the timed decisions start, after the warm-up (e.g. to read a counter's starting point). */
    onTimed?: () => void;
  },
): Promise<Row | null> {
  if (outOfProfile(ctx, c.impl, c.connection)) return null;
  const row = baseRow(ctx, c, "library", c.connection);
  ctx.log(`  ${rowName(row)} c=${row.concurrency} …`);
  const requests = c.requests ?? ctx.requests;
  let conns: Connections | undefined;
  try {
    conns = c.connection === "pooled" ? await pooledConnections(ctx.db, row.concurrency) : perRequestConnections(ctx.db, c.connectionPerStatement);
    const cx = conns;
    const openBefore = (await ctx.bridge.stats()).open - (c.connection === "pooled" ? row.concurrency : 0);
    await warmUp(row.concurrency, c.seconds ?? ctx.seconds, (i, w) => cx.use(w, (q) => c.op(q, requests + i)));
    await cx.drain();
    if (c.connection === "per-request") await settle(ctx.bridge, openBefore);
    await ctx.bridge.resetStats();
    c.onTimed?.();
    const cpu = cpuStart(ctx);
    const load = await runLoad(
      { concurrency: row.concurrency, requests, timeLimitMs: (c.seconds ?? ctx.seconds) * 1000, onProgress: progress(ctx, "decisions", requests) },
      (i, w) => cx.use(w, (q) => c.op(q, i)),
    );
    const cpuUs = cpu();
    await conns.drain();
    // Pooled: read before the pool closes (no Terminate in the interval). Per request: after every
    // client closed, minus one Terminate per connection.
    const stats = c.connection === "pooled" ? await ctx.bridge.stats() : await settle(ctx.bridge, openBefore);
    const rt = roundTripsPerDecision(stats.clientMessages, load.latencies.length, c.connection === "pooled" ? 0 : stats.connections);
    finish(row, load, c.violations ? await c.violations() : null, rt, cpuUs);
  } finally {
    await conns?.close();
  }
  announce(ctx, row);
  return row;
}

/**
 * A peer that brings its own client and connections (e.g. a `pg` Pool over TCP): timed like the
 * library layer, but its traffic does not cross the bridge, so it has no round-trip figure.
 */
export async function peer(ctx: BenchContext, c: Common & { connection: Connection; op: (i: number) => Promise<string> }): Promise<Row | null> {
  if (outOfProfile(ctx, c.impl, c.connection)) return null;
  const row = baseRow(ctx, c, "library", c.connection);
  ctx.log(`  ${rowName(row)} c=${row.concurrency} …`);
  const requests = c.requests ?? ctx.requests;
  await warmUp(row.concurrency, c.seconds ?? ctx.seconds, (i) => c.op(requests + i));
  const cpu = cpuStart(ctx);
  const load = await runLoad(
    { concurrency: row.concurrency, requests, timeLimitMs: (c.seconds ?? ctx.seconds) * 1000, onProgress: progress(ctx, "decisions", requests) },
    (i) => c.op(i),
  );
  finish(row, load, c.violations ? await c.violations() : null, null, cpu());
  announce(ctx, row);
  return row;
}

/**
 * Edge layer: `op` sends one HTTP request to the Worker; `worker` is another Worker to send them to
 * (default: Admit's). `connection` names the Worker's transport to Postgres (Admit's one-statement
 * decisions: `http`); the bridge counts its HTTP SQL requests and WebSocket messages over the row.
 * Scenarios call it once per edge concurrency (`atEdgeConcurrencies`), each with keys of its own.
 */
export async function edge(
  ctx: BenchContext,
  c: Common & {
    connection: Connection;
    worker?: { url: string; token?: string; urls?: string[] } | null;
    op: (
      call: (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<{ status: number; json: any }>,
      i: number,
    ) => Promise<string>;
  },
): Promise<Row | null> {
  if (outOfProfile(ctx, c.impl, c.connection)) return null;
  const row = baseRow(ctx, c, "edge", c.connection);
  const worker = c.worker === undefined ? ctx.worker : c.worker;
  if (!worker) return { ...row, skipped: "--no-edge" };
  ctx.log(`  ${rowName(row)} c=${row.concurrency} …`);
  const { token = "" } = worker;
  // Request i goes to isolate i mod n: the load spread round robin, as over many isolates.
  const callAt = (i: number) => {
    const url = isolateUrl(worker, i);
    return (method: string, path: string, body?: unknown, headers?: Record<string, string>) => httpCall(url, token, method, path, body, headers);
  };
  const requests = c.requests ?? ctx.requests;
  const openBefore = (await ctx.bridge.stats()).open;
  await warmUp(row.concurrency, c.seconds ?? ctx.seconds, (i) => c.op(callAt(requests + i), requests + i));
  await settle(ctx.bridge, openBefore);
  await ctx.bridge.resetStats();
  const cpu = cpuStart(ctx);
  const load = await runLoad(
    { concurrency: row.concurrency, requests, timeLimitMs: (c.seconds ?? ctx.seconds) * 1000, onProgress: progress(ctx, "requests", requests) },
    (i) => c.op(callAt(i), i),
  );
  const cpuUs = cpu();
  const stats = await settle(ctx.bridge, openBefore);
  finish(row, load, c.violations ? await c.violations() : null, roundTripsPerDecision(stats.clientMessages, load.latencies.length, stats.connections), cpuUs);
  row.http_requests_per_decision = load.latencies.length > 0 ? round(stats.httpRequests / load.latencies.length, 2) : null;
  announce(ctx, row);
  return row;
}

/** Where request i goes: isolate i mod n of a Worker run as several (the neon profile), else its one URL. */
export function isolateUrl(worker: { url: string; urls?: string[] }, i: number): string {
  return worker.urls?.length ? worker.urls[i % worker.urls.length] : worker.url;
}

/** Runs `row(concurrency)` for each edge concurrency (ctx.edgeConcurrency: 16 and 64 by default), in turn. */
export async function atEdgeConcurrencies(ctx: BenchContext, row: (concurrency: number) => Promise<Row | null>): Promise<(Row | null)[]> {
  const out: (Row | null)[] = [];
  for (const c of ctx.edgeConcurrency) out.push(await row(c));
  return out;
}

/** Ceiling layer: pgbench runs `script` (the project's own statement) pooled or with -C. */
export async function ceiling(
  ctx: BenchContext,
  c: Common & {
    connection: Connection;
    script: string;
    defines?: Record<string, string>;
    /**
     * For a decision the edge makes in several HTTP requests, the script runs one statement per
     * transaction (so -C connects for each, as each request does); this reads back, after the run,
     * which transactions ("client:tx") continued the decision before them. Rows then count decisions.
     */
    continuations?: () => Promise<Set<string>>;
  },
): Promise<Row | null> {
  if (outOfProfile(ctx, c.impl, c.connection)) return null;
  const row = baseRow(ctx, { ...c, impl: c.impl || "pgbench" }, "ceiling", c.connection);
  if (!ctx.pgbench) {
    const skipped = { ...row, skipped: "pgbench not installed" };
    announce(ctx, skipped);
    return skipped;
  }
  ctx.log(`  ${rowName(row)} c=${row.concurrency} …`);
  const cpu = cpuStart(ctx);
  const r = await runPgbench(ctx.pgbench, {
    script: c.script,
    clients: row.concurrency,
    seconds: Math.max(1, Math.round(c.seconds ?? ctx.seconds)),
    connectPerTransaction: c.connection === "per-request",
    defines: c.defines,
    host: ctx.db.host,
    port: ctx.db.port,
    user: ctx.db.user,
    password: ctx.db.password,
    database: ctx.db.database,
  });
  const cpuUs = cpu();
  const latencies = decisionLatencies(r.logged, c.continuations ? await c.continuations() : new Set());
  row.requests = latencies.length;
  // pgbench's tps counts transactions; a decision of several transactions scales it down.
  row.throughput_rps = r.tps === null ? null : round(r.tps * (r.logged.length ? latencies.length / r.logged.length : 1), 1);
  Object.assign(row, summarize(latencies));
  row.outcomes = { ok: latencies.length, ...(r.failed ? { failed: r.failed } : {}) };
  row.cpu_us_per_decision = cpuPerDecision(cpuUs, latencies.length);
  rawFigures.set(row, { latenciesMs: latencies, elapsedMs: r.tps ? (r.transactions * 1000) / r.tps : 0, cpuUs });
  if (/aborted/.test(r.output))
    row.note = (row.note ? row.note + "; " : "") + "some pgbench clients aborted: " + (/ERROR:.*$/m.exec(r.output)?.[0] ?? "see output");
  row.violations = c.violations ? await c.violations() : null;
  announce(ctx, row);
  return row;
}

export const pgbenchMissing = `pgbench not found: install it with \`${PGBENCH_INSTALL}\` (or set PGBENCH=/path/to/pgbench); ceiling rows are marked skipped.`;

export type { Query };
