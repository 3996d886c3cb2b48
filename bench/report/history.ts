// Reports on disk and across runs: the report a run writes, where, and the targets of several runs
// side by side (npm run bench:compare).
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Target } from "./judge";
import { type Row, type Settings, viaAuthz } from "./rows";

export interface Report {
  started_at: string;
  finished_at: string;
  command: string;
  quick: boolean;
  /**
   * The commit the run measured (`git rev-parse --short HEAD` at its start), with "+changes" when
   * files under functions/, schema/ or bench/ differed from it; null outside a git checkout; absent
   * from a report that does not record it.
   */
  commit?: string | null;
  machine: { cpus: number; node: string; platform: string };
  /** The profile it ran under (bench/neon.ts); absent from reports made before profiles. */
  settings?: Settings;
  pgbench: string | null;
  pgbouncer: string | null;
  scenarios: Row[];
  targets: Target[];
  notes: string[];
}

/** Where `npm run bench` writes its reports and `npm run bench:compare` reads them (git-ignored). */
export const RESULTS_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "results");

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
  // A report may give an AUTHZ row's target its check-route twin's name, right after the twin's: a
  // name's second target in one run is then the AUTHZ row's, and is read under its own name.
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
