// The targets a run is held to: a table of target families, each judging a run's rows, and the
// evaluator that goes down the table in order. The same run always gives the same targets in the
// same order, so runs can be compared target by target (history.ts).
import { coalescingTargets } from "./coalescing";
import { ceilingConnection } from "./cost";
import { burstTarget, diagnostic, FLUSH_MS, flushAllowance, NOOP, noopFor, ratioWithCost, type Target } from "./judge";
import {
  ALONE,
  AUTHZ,
  COALESCE_OFF,
  COALESCED,
  concurrencies,
  DRIVER,
  failuresOf,
  findRow,
  label,
  type Match,
  METRICS_OFF,
  type Row,
  targetName,
} from "./rows";

const HOT = "ratelimit-hot";

/** One family of targets: what it holds a run to, and the targets it judges on the run's rows. */
interface TargetFamily {
  holds: string;
  judge: (rows: Row[]) => Target[];
}

/** Every family, in the order the report lists their targets. */
export const TARGETS: TargetFamily[] = [
  { holds: "no violation in any Admit scenario, counted in the database", judge: zeroViolations },
  { holds: "every row's requests answered, none with a 5xx (the bursts are held to their exact answers)", judge: everyRowAnswered },
  {
    holds:
      "on the hot key at each edge concurrency: Admit ≥ 0.9× the bare HTTP Worker, GET /v1/authz ≥ 0.9× the check route, the bare HTTP Worker ≥ 3× the bare WebSocket one",
    judge: hotKeyAtTheEdge,
  },
  { holds: "counting adds nothing to the hot path: each rate-limit edge row ≥ 0.9× its METRICS=off twin", judge: metricsOnVsOff },
  { holds: "coalescing pays (coalescing.ts)", judge: coalescingTargets },
  {
    holds: "each one-statement Admit edge row ≥ 0.35× the no-op beside it, with at most one HTTP SQL request per statement of a decision",
    judge: (rows) => admitEdgeRows(rows).flatMap((r) => [againstNoop(rows, r), httpRequests(r)].filter((t) => t !== undefined)),
  },
  {
    holds: "pattern overrides keep the check one index look-up: the hot key's pooled library row with 1 000 pattern overrides ≥ 0.9× the same row without",
    judge: patternOverrides,
  },
  { holds: "diagnostics: the library row against pgbench and the peer", judge: libraryDiagnostics },
  { holds: "diagnostics: each scenario's edge rows against pgbench, at its lowest edge concurrency", judge: edgeAgainstCeiling },
  {
    holds: "each burst: exact answers, no 5xx, the database agreeing",
    judge: (rows) => rows.filter((x) => x.errors_5xx !== undefined && !x.skipped).map(burstTarget),
  },
];

/** The targets on one run's rows, then any extra figures a scenario reported. */
export function evaluateTargets(rows: Row[], figures: Target[] = []): Target[] {
  return [...TARGETS.flatMap((family) => family.judge(rows)), ...figures];
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

/** The impls whose violations count as Admit's: Admit's own rows, and pgbench and the driver alone, which run Admit's own statement. */
export const ADMIT_IMPLS = ["admit", METRICS_OFF, COALESCE_OFF, COALESCED, AUTHZ, "pgbench", DRIVER];

function zeroViolations(rows: Row[]): Target[] {
  const admitRows = rows.filter((r) => ADMIT_IMPLS.includes(r.impl) && !r.skipped);
  const counted = admitRows.filter((r) => r.violations !== null);
  const violations = counted.reduce((s, r) => s + (r.violations ?? 0), 0);
  const where = admitRows
    .filter((r) => r.violations)
    .map((r) => `${r.scenario} ${label(r)}`)
    .join(", ");
  return [
    {
      name: "zero violations in every Admit scenario",
      value: counted.length ? violations : null,
      max: 0,
      met: counted.length ? violations === 0 : null,
      detail: `${counted.length} Admit rows counted` + (violations ? `; violations in ${where}` : ""),
    },
  ];
}

function everyRowAnswered(rows: Row[]): Target[] {
  const answering = rows.filter((r) => !r.skipped && r.errors_5xx === undefined);
  const failing = answering.map((r) => ({ r, failed: failuresOf(r) })).filter((x) => x.failed.length > 0);
  const failures = failing.reduce((s, x) => s + x.failed.reduce((t, [, n]) => t + n, 0), 0);
  return [
    {
      name: "every row answered: no request without an answer, no 5xx",
      value: failures,
      max: 0,
      met: failures === 0,
      detail: failing.length
        ? failing.map(({ r, failed }) => `${r.scenario} ${label(r)} c=${r.concurrency}: ${failed.map(([k, n]) => `${k}×${n}`).join(", ")}`).join("; ")
        : `${answering.length} rows`,
    },
  ];
}

function hotKeyAtTheEdge(rows: Row[]): Target[] {
  const out: Target[] = [];
  for (const c of concurrencies(rows, { scenario: HOT, layer: "edge" })) {
    const at = (impl: string, connection: "http" | "websocket"): Match => ({ scenario: HOT, layer: "edge", impl, connection, concurrency: c });
    const [admit, bareHttp, bareWs, authz] = [at("admit", "http"), at(DRIVER, "http"), at(DRIVER, "websocket"), at(AUTHZ, "http")];
    // The one-client pair (ALONE) has no bare Worker row to compare with: no target there.
    if (findRow(rows, bareHttp) || (findRow(rows, admit) && c !== ALONE))
      out.push(ratioWithCost(rows, `${HOT} c=${c}: edge admit ≥ 0.9× the bare HTTP Worker`, admit, bareHttp, 0.9));
    if (findRow(rows, authz)) out.push(ratioWithCost(rows, `${HOT} c=${c}: GET /v1/authz ≥ 0.9× POST /v1/ratelimits/check`, authz, admit, 0.9));
    if (findRow(rows, bareHttp) || findRow(rows, bareWs))
      out.push(ratioWithCost(rows, `${HOT} c=${c}: bare HTTP Worker ≥ 3× the bare WebSocket Worker`, bareHttp, bareWs, 3));
  }
  return out;
}

function metricsOnVsOff(rows: Row[]): Target[] {
  const out: Target[] = [];
  for (const scenario of [HOT, "ratelimit-10k-keys"]) {
    for (const c of concurrencies(rows, { scenario, layer: "edge" })) {
      const on: Match = { scenario, layer: "edge", impl: "admit", connection: "http", concurrency: c };
      const off: Match = { scenario, layer: "edge", impl: METRICS_OFF, connection: "http", concurrency: c };
      if (findRow(rows, off)) out.push(ratioWithCost(rows, `${scenario} c=${c}: edge admit with metrics ≥ 0.9× METRICS=off`, on, off, 0.9));
    }
  }
  return out;
}

/** Admit's measured edge rows that answer one request at a time (not bursts, not through a pooler). */
function admitEdgeRows(rows: Row[]): Row[] {
  return rows.filter((r) => r.layer === "edge" && (r.impl === "admit" || r.impl === AUTHZ) && !r.skipped && !r.profile && r.errors_5xx === undefined);
}

/** Edge row `r` against the no-op row of its concurrency; a diagnostic where a decision is more than one statement over HTTP. */
function againstNoop(rows: Row[], r: Row): Target | undefined {
  const noop = noopFor(rows, r);
  if (!noop) return undefined;
  const m: Match = { scenario: r.scenario, layer: "edge", impl: r.impl, connection: r.connection, concurrency: r.concurrency };
  const statements = r.statements_per_decision ?? 1;
  const against = ratioWithCost(rows, targetName(r, `${r.scenario} c=${r.concurrency}: edge ${r.connection} ≥ 0.35× the edge no-op`), m, noop, 0.35);
  const t = noop.scenario === NOOP.scenario ? against : { ...against, detail: `${against.detail}; the no-op measured right before ${r.scenario}'s edge rows` };
  // A decision of several statements (permits: acquire, then release) is several requests: not a one-statement row.
  return statements === 1 && r.connection === "http" ? t : diagnostic({ ...t, detail: `${t.detail}; ${statements} HTTP requests to the Worker per decision` });
}

/** An HTTP edge row's SQL requests per decision: at most one per statement, plus the isolate's metric flushes. */
function httpRequests(r: Row): Target | undefined {
  if (r.connection !== "http") return undefined;
  const statements = r.statements_per_decision ?? 1;
  const v = r.http_requests_per_decision ?? null;
  const flushes = flushAllowance(r);
  return {
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
  };
}

/** The hot key's library row against what it is read beside: the name's tail, the other row, and the line it is drawn at. */
const LIBRARY_DIAGNOSTICS: [string, Match, number][] = [
  ["pgbench pooled", { scenario: HOT, layer: "ceiling", impl: "pgbench", connection: "pooled" }, 0.8],
  ["rate-limiter-flexible", { scenario: HOT, layer: "library", impl: "rate-limiter-flexible", connection: "pooled" }, 1.0],
  [
    "rate-limiter-flexible, same transport",
    { scenario: HOT, layer: "library", impl: "rate-limiter-flexible", connection: "pooled", profile: "neon-bridge" },
    1.0,
  ],
];

function libraryDiagnostics(rows: Row[]): Target[] {
  const admit: Match = { scenario: HOT, layer: "library", impl: "admit", connection: "pooled" };
  return LIBRARY_DIAGNOSTICS.map(([other, b, min]) => diagnostic(ratioWithCost(rows, `${HOT}: library pooled ÷ ${other}`, admit, b, min)));
}

/** The hot key's pooled library row on a policy with 1 000 pattern overrides against the same row without, where both ran. */
function patternOverrides(rows: Row[]): Target[] {
  const plain: Match = { scenario: HOT, layer: "library", impl: "admit", connection: "pooled" };
  const patterns: Match = { ...plain, impl: "admit-1000-patterns" };
  if (!findRow(rows, plain) || !findRow(rows, patterns)) return [];
  return [ratioWithCost(rows, `${HOT}: library pooled with 1 000 pattern overrides ≥ 0.9× without`, patterns, plain, 0.9)];
}

/** Each scenario's Admit edge rows at its lowest edge concurrency (the one-client pair left out where it ran others) against pgbench. */
function edgeAgainstCeiling(rows: Row[]): Target[] {
  const edgeRows = admitEdgeRows(rows);
  const lowest = (scenario: string) => {
    const cs = edgeRows.filter((y) => y.scenario === scenario).map((y) => y.concurrency);
    return Math.min(...(cs.some((c) => c !== ALONE) ? cs.filter((c) => c !== ALONE) : cs));
  };
  return edgeRows
    .filter((x) => x.concurrency === lowest(x.scenario))
    .map((r) => {
      const ceil = ceilingConnection(r.connection);
      return diagnostic(
        ratioWithCost(
          rows,
          targetName(r, `${r.scenario}: edge ${r.connection} c=${r.concurrency} ÷ pgbench ${ceil === "pooled" ? "pooled" : "-C"}`),
          { scenario: r.scenario, layer: "edge", impl: r.impl, connection: r.connection, concurrency: r.concurrency },
          { scenario: r.scenario, layer: "ceiling", impl: "pgbench", connection: ceil },
          0.8,
        ),
      );
    });
}
