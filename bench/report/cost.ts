// What a row's CPU figures say a ratio would be: at its own parts' cost with Postgres's cost under
// pgbench (atCeilingCost), or by its own stack's CPU alone (atOwnCpu).
import { type Connection, findRow, type Layer, label, type Match, type Row } from "./rows";
import { round } from "./stats";

/** The parts a decision of each layer goes through on its way to Postgres (wrangler idles through a library row). */
const OWN_PARTS: Record<Exclude<Layer, "ceiling">, string[]> = {
  library: ["client", "bridge", "pgbouncer"],
  edge: ["client", "worker", "bridge", "pgbouncer"],
};

/** Σ of a row's CPU parts, µs per decision: cores × elapsed ÷ decisions. */
export function machineUs(cpu: Record<string, number>): number {
  return Object.values(cpu).reduce((s, v) => s + v, 0);
}

/**
 * The ceiling row that runs a row's statements the way it reaches Postgres: HTTP statements run on
 * the bridge's pool (pgbench pooled), a WebSocket Client per request is a connection per request (-C).
 */
export function ceilingConnection(c: Connection): Connection {
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
