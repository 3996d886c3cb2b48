// The coalescing targets (functions/core/coalesce/), each judged only where the run has the rows
// it compares.

import { FLUSH_MS, flushAllowance, ratioWithCost, type Target } from "./judge";
import { ALONE, BURST_FLOOR, COALESCE_OFF, COALESCED, DRIVER, findRow, type Match, type Row } from "./rows";
import { round } from "./stats";

const HOT = "ratelimit-hot";
const SPREAD = "ratelimit-10k-keys";

const edgeAt = (scenario: string, impl: string, concurrency: number): Match => ({ scenario, layer: "edge", impl, connection: "http", concurrency });

/** Admit's edge row against the bare HTTP Worker's hot-key row: scenario, concurrency, min, and a note where the scenarios differ. */
const VS_BARE: [string, number, number, string][] = [
  [HOT, 64, 1.5, ""],
  [HOT, 16, 1.2, ""],
  [SPREAD, 64, 1.3, ` on ${HOT} c=64 (the bare Worker has a hot-key row only)`],
];

/**
 * On the hot key, Admit's edge rows well past the bare HTTP Worker (1.5× at c=64, 1.2× at c=16; the
 * 10 000-key spread 1.3× the bare Worker's hot-key row at c=64, the only one it has) and at most
 * 0.25 HTTP SQL requests per decision at c=64; each burst-1000 burst's p99 at most half the
 * COALESCE=off Worker's; one client alone no slower than with COALESCE=off (p50 ≤ 1.1× + 0.3 ms); and
 * the coalesced library row at least pgbench's pooled throughput on the hot key.
 */
export function coalescingTargets(rows: Row[]): Target[] {
  return [...againstBare(rows), ...requestsPerDecision(rows), ...aloneNoSlower(rows), ...burstsAgainstOff(rows), ...coalescedLibrary(rows)];
}

function both(rows: Row[], a: Match, b: Match): boolean {
  return findRow(rows, a) !== undefined && findRow(rows, b) !== undefined;
}

function againstBare(rows: Row[]): Target[] {
  const out: Target[] = [];
  for (const [scenario, c, min, onHot] of VS_BARE) {
    const admit = edgeAt(scenario, "admit", c);
    const bare = edgeAt(HOT, DRIVER, c);
    if (both(rows, admit, bare)) out.push(ratioWithCost(rows, `${scenario} c=${c}: edge admit ≥ ${min}× the bare HTTP Worker${onHot}`, admit, bare, min));
  }
  return out;
}

/** Coalesced, the hot key at c=64 sends at most one statement per four decisions. */
function requestsPerDecision(rows: Row[]): Target[] {
  const busy = findRow(rows, edgeAt(HOT, "admit", 64));
  if (!busy) return [];
  const v = busy.http_requests_per_decision ?? null;
  const flushes = flushAllowance(busy);
  const off = findRow(rows, edgeAt(HOT, COALESCE_OFF, 64));
  return [
    {
      name: `${HOT} c=64: edge admit, HTTP SQL requests per decision ≤ 0.25 (coalesced)`,
      value: v,
      max: 0.25,
      met: v === null ? null : v <= 0.25 + flushes,
      detail:
        v === null
          ? "not counted"
          : `${v} per decision at the bridge (POST /sql): about ${v > 0 ? round(1 / v, 1) : "–"} decisions per statement` +
            (flushes ? ` (+ ${flushes} allowed for the metric flushes, one per ${FLUSH_MS / 1000} s)` : "") +
            (off ? `; COALESCE=off: ${off.http_requests_per_decision ?? "–"}` : ""),
    },
  ];
}

/** One client: nothing to coalesce with, so no slower than each check its own statement. */
function aloneNoSlower(rows: Row[]): Target[] {
  const alone = findRow(rows, edgeAt(HOT, "admit", ALONE));
  const aloneOff = findRow(rows, edgeAt(HOT, COALESCE_OFF, ALONE));
  if (!alone || !aloneOff || alone.p50_ms === null || aloneOff.p50_ms === null) return [];
  const bound = round(1.1 * aloneOff.p50_ms + 0.3, 2);
  return [
    {
      name: `${HOT} c=${ALONE}: edge admit p50 ≤ 1.1× COALESCE=off p50 + 0.3 ms (never slower alone)`,
      value: alone.p50_ms,
      max: bound,
      met: alone.p50_ms <= bound,
      detail: `admit p50 ${alone.p50_ms} ms (${alone.requests} requests, ${Math.round(alone.throughput_rps ?? 0)} req/s) against COALESCE=off p50 ${aloneOff.p50_ms} ms (${aloneOff.requests} requests, ${Math.round(aloneOff.throughput_rps ?? 0)} req/s): bound 1.1 × ${aloneOff.p50_ms} + 0.3 = ${bound} ms; ratio ${round(alone.p50_ms / aloneOff.p50_ms, 2)}`,
    },
  ];
}

/** Each burst, with coalescing and without (the same burst through the COALESCE=off Worker). */
function burstsAgainstOff(rows: Row[]): Target[] {
  const out: Target[] = [];
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
  return out;
}

function coalescedLibrary(rows: Row[]): Target[] {
  const coalesced: Match = { scenario: HOT, layer: "library", impl: COALESCED, connection: "pooled" };
  const pgbench: Match = { scenario: HOT, layer: "ceiling", impl: "pgbench", connection: "pooled" };
  return both(rows, coalesced, pgbench) ? [ratioWithCost(rows, `${HOT}: library ${COALESCED} pooled ≥ 1.0× pgbench pooled`, coalesced, pgbench, 1.0)] : [];
}
