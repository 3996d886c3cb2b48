// The report's markdown: the rows as a table, their machine time by part, and the targets as a list.
import { machineUs } from "./cost";
import type { Target } from "./judge";
import type { Row } from "./rows";

const COLUMNS: [keyof Row, string][] = [
  ["scenario", "scenario"],
  ["layer", "layer"],
  ["impl", "impl"],
  ["connection", "connection"],
  ["concurrency", "conc"],
  ["settings", "commit ms"],
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
  if (key === "settings") return row.settings ? String(row.settings.commit_ms) : "–";
  if (key === "connection" && row.profile) return `${row.connection} via ${row.profile}`;
  if (key === "scenario" && row.burst) return `${row.scenario}: ${row.burst}`;
  if (v === null || v === undefined) return "–";
  if (key === "throughput_rps" && typeof v === "number") return String(Math.round(v));
  return String(v).replaceAll("|", "\\|");
}

/** The rows as a GitHub markdown table, in the order given. */
export function markdownTable(rows: Row[]): string {
  // The commit latency column only where it varies: the neon profile's rows.
  const columns = rows.some((r) => r.settings?.profile === "neon") ? COLUMNS : COLUMNS.filter(([k]) => k !== "settings");
  const head = `| ${columns.map(([, h]) => h).join(" | ")} |`;
  const rule = `| ${columns.map(([k]) => (typeof rows.find((r) => r[k] !== null && r[k] !== undefined)?.[k] === "number" ? "---:" : "---")).join(" | ")} |`;
  const body = rows.map((r) => `| ${columns.map(([k]) => cell(r, k)).join(" | ")} |`);
  return [head, rule, ...body].join("\n");
}

const PARTS = ["postgres", "bridge", "worker", "client", "pgbench", "pgbouncer", "wrangler", "other", "idle"];

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

/** The targets as a markdown list: each with its value, its line, whether it was met, and why. */
export function targetsMarkdown(targets: Target[]): string {
  return targets
    .map((t) => {
      const mark = t.met === null ? (t.min === undefined && t.max === undefined ? "not a target" : "–") : t.met ? "met" : "NOT met";
      const want = t.min !== undefined ? `≥ ${t.min}` : t.max !== undefined ? `≤ ${t.max}` : "";
      return `- ${t.name}: **${t.value ?? "n/a"}** (${want ? `target ${want}, ` : ""}${mark}) — ${t.detail}`;
    })
    .join("\n");
}
