// The bench's pure pieces, by concern: rows and their impl names (rows.ts), figures (stats.ts), what
// the CPU figures make of a ratio (cost.ts), how a target is judged (judge.ts), the targets a run is
// held to (targets.ts, coalescing.ts), the markdown (markdown.ts), and reports on disk and across
// runs (history.ts). No I/O but writeReport(), so test/bench/ can exercise all of it.
export { coalescingTargets } from "./coalescing";
export { atCeilingCost, atOwnCpu } from "./cost";
export { compareMarkdown, RESULTS_DIR, type Report, type RunTargets, runLabel, type TargetHistory, targetHistory, writeReport } from "./history";
export { burstTarget, NOOP, noopFor, ratioTarget, type Target } from "./judge";
export { cpuTable, markdownTable, targetsMarkdown } from "./markdown";
export {
  ALONE,
  AUTHZ,
  BURST_FLOOR,
  COALESCE_OFF,
  COALESCED,
  type Connection,
  DRIVER,
  failuresOf,
  findRow,
  type Layer,
  METRICS_OFF,
  type Row,
  type Settings,
  viaAuthz,
} from "./rows";
export { cpuPerDecision, type LatencySummary, mergeRounds, percentile, type RawFigures, round, roundTripsPerDecision, summarize, tally } from "./stats";
export { ADMIT_IMPLS, evaluateTargets, withRoundSpread } from "./targets";
