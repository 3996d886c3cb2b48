// `npm run bench:compare [-- --last=N] [results.json …]`
//
// The targets of several full `npm run bench` runs side by side, the least met first (targetHistory()
// in bench/report/history.ts): with no files, the last N full runs in bench/results/ (default 6; `--quick`
// and `--only` runs and latest.json left out), oldest first. A markdown table on stdout, for docs/performance.md.
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { compareMarkdown, RESULTS_DIR, type Report, runLabel, targetHistory } from "./report";

const USAGE = "usage: npm run bench:compare [-- --last=N] [results.json …]";

async function readReport(file: string): Promise<Report> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (err) {
    throw new Error(`cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? err}): name a bench/results/*.json that exists`);
  }
  const report = JSON.parse(text) as Report;
  if (!Array.isArray(report.targets) || typeof report.started_at !== "string") {
    throw new Error(`${file} is not a report of npm run bench (no started_at or targets)`);
  }
  return report;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  let last = 6;
  const files: string[] = [];
  for (const a of args) {
    const m = /^--last=(\d+)$/.exec(a);
    if (m && Number(m[1]) >= 1) last = Number(m[1]);
    else if (a.startsWith("-")) throw new Error(`unknown option ${a}\n${USAGE}`);
    else files.push(a);
  }
  let reports: Report[];
  if (files.length > 0) {
    reports = await Promise.all(files.map(readReport));
  } else {
    const names = (await readdir(RESULTS_DIR).catch(() => [] as string[])).filter((n) => n.endsWith(".json") && n !== "latest.json").sort();
    const all = await Promise.all(names.map((n) => readReport(join(RESULTS_DIR, n))));
    reports = all.filter((r) => !r.quick && !/ --only[= ]/.test(r.command)).slice(-last);
    if (reports.length === 0) throw new Error(`no full run in ${RESULTS_DIR}: run \`npm run bench\` first (a --quick or --only run is not compared)`);
  }
  const runs = reports.map((r) => ({ label: runLabel(r), targets: r.targets }));
  const history = targetHistory(runs);
  const every = history.filter((t) => t.met === t.judged).length;
  const none = history.filter((t) => t.met === 0).length;
  console.log(`${reports.length} run(s): ${reports.map((r) => `${runLabel(r)} (${r.command})`).join(", ")}`);
  console.log(`${history.length} targets: met in every run that judged them ${every}, in some ${history.length - every - none}, in none ${none}\n`);
  console.log(compareMarkdown(runs));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  // Piped into `head`: whoever read the table has what it wanted (EPIPE is no error here).
  process.stdout.on("error", (err: NodeJS.ErrnoException) => process.exit(err.code === "EPIPE" ? 0 : 1));
  main().catch((err) => {
    console.error(`[bench:compare] ${(err as Error).message ?? err}`);
    process.exit(1);
  });
}
