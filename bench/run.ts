// `npm run bench [-- --quick] [--only=a,b] [--no-edge] [--concurrency=N] [--edge-concurrency=16,64] [--seconds=S] [--requests=N]`
//
// Starts its own stack (embedded Postgres, bridge, migrations, wrangler dev) on loopback, runs every
// scenario at three layers (pgbench ceiling, library, edge) plus the peers, counts violations in the
// database afterwards, prints a markdown table and the targets, and writes
// bench/results/<timestamp>.json and bench/results/latest.json.
import { spawnSync } from "node:child_process";
import { cpus } from "node:os";
import { fileURLToPath } from "node:url";
import { ROOT } from "../dev/local";
import { ownSocket } from "../dev/wrangler";
import { cpuMeter } from "./cpu";
import { type BenchContext, pgbenchMissing, rawFigures, type Scenario } from "./measure";
import { commitPasses, neonTargets, parseProfile, passOrder, type Settings, setCommitMs } from "./neon";
import { findPgbench } from "./pgbench";
import { findPgbouncer, PGBOUNCER_INSTALL } from "./pgbouncer";
import {
  cpuTable,
  evaluateTargets,
  markdownTable,
  mergeRounds,
  RESULTS_DIR,
  type Report,
  type Row,
  type Target,
  targetsMarkdown,
  withRoundSpread,
  writeReport,
} from "./report";
import { bindingVsHttp } from "./scenarios/binding";
import { burst1000 } from "./scenarios/burst";
import { inventoryHotNight } from "./scenarios/inventory";
import { edgeNoop } from "./scenarios/noop";
import { lockContention, semaphoreChurn, semaphoreHolders } from "./scenarios/permits";
import { ratelimit10kKeys, ratelimitHot, ratelimitHotOver } from "./scenarios/ratelimit";
import { reservationBurst } from "./scenarios/reservation-burst";
import { webhookDuplicates } from "./scenarios/webhooks";
import { type Stack, startStack } from "./stack";

/** In the order they run; each says itself whether its capability exists on this build. */
export const SCENARIOS: Scenario[] = [
  edgeNoop,
  ratelimitHot,
  ratelimit10kKeys,
  ratelimitHotOver,
  reservationBurst,
  inventoryHotNight,
  semaphoreChurn,
  semaphoreHolders,
  lockContention,
  webhookDuplicates,
  burst1000,
  bindingVsHttp,
];

export interface Options {
  quick: boolean;
  only: string[] | null;
  edge: boolean;
  pgbouncer: boolean;
  concurrency: number;
  /** The edge layer's concurrencies: each edge row runs once at each. */
  edgeConcurrency: number[];
  seconds: number;
  requests: number;
  rounds: number;
  /** The profile and its settings (bench/neon.ts): local, or neon with commit latency, isolates, distance. */
  settings: Settings;
}

export function parseArgs(argv: string[]): Options {
  const flag = (name: string) => argv.includes(`--${name}`);
  const value = (name: string) => argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const num = (name: string, fallback: number, min: number, max: number) => {
    const raw = value(name);
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isFinite(n) || n < min || n > max) throw new Error(`--${name}=${raw}: expected a number from ${min} to ${max}`);
    return n;
  };
  const known =
    /^--(quick|no-edge|no-pgbouncer|only=.*|concurrency=.*|edge-concurrency=.*|seconds=.*|requests=.*|rounds=.*|profile=.*|commit-ms=.*|isolates=.*|rtt-ms=.*|help)$/;
  const unknown = argv.filter((a) => !known.test(a));
  if (unknown.length) throw new Error(`unknown argument(s): ${unknown.join(" ")}`);
  const quick = flag("quick");
  const settings = parseProfile(value);
  return {
    settings,
    quick,
    only: value("only")?.split(",").filter(Boolean) ?? null,
    edge: !flag("no-edge"),
    // The neon profile's rows compare commit latencies, not poolers.
    pgbouncer: !flag("no-pgbouncer") && settings.profile === "local",
    concurrency: num("concurrency", 16, 1, 256),
    edgeConcurrency: edgeConcurrencies(value("edge-concurrency")),
    // Every row is bounded by a count and a time; quick keeps the whole run under 3 minutes.
    seconds: num("seconds", quick ? 2 : 10, 1, 120),
    requests: num("requests", quick ? 20_000 : 100_000, 1, 1_000_000),
    // The rows of a scenario run this many times in turn, each for its share of the time, and are merged.
    rounds: num("rounds", quick ? 1 : 3, 1, 10),
  };
}

/** `--edge-concurrency=16,64`: distinct whole numbers from 1 to 256, in the order given (default 16 and 64). */
export function edgeConcurrencies(raw: string | undefined): number[] {
  if (raw === undefined) return [16, 64];
  const list = raw.split(",").map(Number);
  if (!list.length || list.some((n) => !Number.isInteger(n) || n < 1 || n > 256) || new Set(list).size !== list.length) {
    throw new Error(`--edge-concurrency=${raw}: expected distinct whole numbers from 1 to 256, comma-separated`);
  }
  return list;
}

const HELP = `npm run bench [-- options]
  --quick            short rows (2 s each): the whole run in under 3 minutes
  --only=a,b         only these scenarios (${SCENARIOS.map((s) => s.name).join(", ")})
  --no-edge          skip wrangler dev and the edge rows
  --no-pgbouncer     skip the PgBouncer profile even when pgbouncer is installed
  --concurrency=N    simultaneous clients in the ceiling and library layers (default 16)
  --edge-concurrency=16,64
                     the edge rows run once at each of these (default 16 and 64)
  --seconds=S        time limit per row (default 10, quick 2)
  --requests=N       request limit per row (default 100000, quick 20000)
  --rounds=N         run each scenario's rows N times in turn, each with 1/N of the time and
                     requests, and merge them, so noise from neighbours spreads over all rows
                     (default 3, quick 1)
  --profile=neon     production-shaped: commits wait (synchronous_commit on, --commit-ms at COMMIT,
                     locks held), the load spread over --isolates Workers, --rtt-ms added by the
                     bridge; each scenario runs at commit 0 and at --commit-ms (no PgBouncer profile)
  --commit-ms=3      neon profile: the emulated commit latency of a synchronous commit
  --isolates=8       neon profile: Admit Workers (and driver-alone Workers), each its own workerd
  --rtt-ms=10        neon profile: the distance between Worker and database`;

function log(line: string): void {
  const t = new Date().toISOString().slice(11, 19);
  console.log(`[bench ${t}] ${line}`);
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.includes("--help")) {
    console.log(HELP);
    return;
  }
  const opts = parseArgs(argv);
  const startedAt = new Date();
  const commit = sourceCommit();
  const command = `npm run bench${argv.length ? " -- " + argv.join(" ") : ""}`;
  const notes: string[] = [];
  const scenarios = SCENARIOS.filter((s) => !opts.only || opts.only.includes(s.name));
  if (opts.only) for (const n of opts.only) if (!SCENARIOS.some((s) => s.name === n)) throw new Error(`--only: unknown scenario "${n}"`);

  const pgbench = await findPgbench();
  if (pgbench) log(`ceiling: ${pgbench.version} (${pgbench.path})`);
  else {
    log(pgbenchMissing);
    notes.push(pgbenchMissing);
  }

  const pgbouncer = opts.pgbouncer ? await findPgbouncer() : null;
  if (pgbouncer) log(`pooled profile: ${pgbouncer.version} in transaction mode — Admit's per-request rows run again through it`);
  else {
    const why = opts.pgbouncer ? `pgbouncer not installed (\`${PGBOUNCER_INSTALL}\` adds it)` : "--no-pgbouncer";
    log(`no PgBouncer profile: ${why}`);
    notes.push(`PgBouncer profile not run: ${why}`);
  }

  log(`starting the stack${opts.edge ? "" : " (no edge)"}…`);
  let stack: Stack | undefined;
  const stop = async () => {
    const s = stack;
    stack = undefined;
    await s?.stop();
  };
  process.once("SIGINT", () => void stop().then(() => process.exit(130)));
  process.once("SIGTERM", () => void stop().then(() => process.exit(143)));

  const rows: Row[] = [];
  /** Each round's rows before merging, for the ratios by round. */
  const byRound: Row[][] = Array.from({ length: opts.rounds }, () => []);
  const figures: Target[] = [];
  try {
    stack = await startStack({ edge: opts.edge, pgbouncer, poolSize: opts.concurrency + 4, log, settings: opts.settings });
    if (opts.settings.profile === "neon")
      notes.push(
        `neon profile: ${JSON.stringify(opts.settings)}; each scenario at commit ${commitPasses(opts.settings).join(" ms and ")} ms, taking turns within each round, which first alternating by round and scenario`,
      );
    notes.push(stack.bridge.config);
    const s = stack;
    if (s.worker && !s.worker.directUrl)
      notes.push(
        "edge rows went through wrangler's dev proxy: the Worker's own workerd socket was not found (it is looked up in /proc), so each edge request paid a second workerd hop",
      );
    if (s.driverWorker && !s.driverWorker.directUrl)
      notes.push(
        "the driver-alone edge row went through wrangler's dev proxy: that Worker's own workerd socket was not found, so it paid a second workerd hop",
      );
    const ctx: BenchContext = {
      quick: opts.quick,
      concurrency: opts.concurrency,
      edgeConcurrency: opts.edgeConcurrency,
      requests: opts.requests,
      seconds: opts.seconds,
      db: { url: s.pg.url, wsProxy: s.bridge.wsProxy, host: s.pg.host, port: s.pg.port, user: s.pg.user, password: s.pg.password, database: s.pg.database },
      worker: s.worker ? { url: ownSocket(s.worker), token: s.token, urls: s.isolates.admit.map(ownSocket) } : null,
      driverWorker: s.driverWorker ? { url: ownSocket(s.driverWorker), urls: s.isolates.driver.map(ownSocket) } : null,
      metricsOffWorker: s.metricsOffWorker ? { url: ownSocket(s.metricsOffWorker), token: s.token } : null,
      coalesceOffWorker: s.coalesceOffWorker ? { url: ownSocket(s.coalesceOffWorker), token: s.token } : null,
      bridge: s.bridge,
      pgbench,
      sql: async (text, params) => (await s.admin.query(text, params as unknown[])).rows,
      log,
      figure: (t) => void figures.push(t),
      profile: null,
      settings: opts.settings,
      round: 0,
      rounds: opts.rounds,
      cpu: cpuMeter(s.pids),
    };
    /**
     * All rounds of a scenario in `base`'s profile, merged into one row per layer/impl/connection and
     * commit latency; with two latencies (the neon profile) they take turns within each round (passOrder).
     */
    const inRounds = async (scenario: Scenario, base: BenchContext, passes: number[], flip = false): Promise<Row[]> => {
      const neon = opts.settings.profile === "neon" && !base.profile;
      const byPass = new Map<number, Row[][]>(passes.map((ms) => [ms, []]));
      for (let round = 0; round < opts.rounds; round++) {
        if (opts.rounds > 1) log(`  round ${round + 1}/${opts.rounds}`);
        for (const ms of passOrder(passes, round, flip)) {
          const settings = { ...opts.settings, commit_ms: ms };
          if (neon) {
            await setCommitMs(base.sql, ms);
            log(`  commit ${ms} ms`);
          }
          const c: BenchContext = {
            ...base,
            ...(neon ? { pass: `c${ms}`, settings } : {}),
            round,
            seconds: base.seconds / opts.rounds,
            requests: Math.ceil(base.requests / opts.rounds),
          };
          const got = (await scenario.run(c)).filter((r) => r !== null);
          if (!base.profile) for (const r of got) r.settings = settings;
          byPass.get(ms)!.push(got);
          byRound[round].push(...got);
        }
      }
      return passes.flatMap((ms) => mergeRounds(byPass.get(ms)!, (r) => rawFigures.get(r)));
    };
    const ran: Scenario[] = [];
    log(
      `${scenarios.length} scenario(s), concurrency ${opts.concurrency} (edge ${opts.edgeConcurrency.join(" and ")}), each row ≤ ${opts.requests} decisions and ≤ ${opts.seconds} s` +
        (opts.rounds > 1 ? `, in ${opts.rounds} rounds` : ""),
    );
    for (const [i, scenario] of scenarios.entries()) {
      const why = await scenario.unavailable(ctx);
      if (why) {
        log(`[${i + 1}/${scenarios.length}] ${scenario.name}: not run — ${why}`);
        notes.push(`${scenario.name}: not run — ${why}`);
        continue;
      }
      log(`[${i + 1}/${scenarios.length}] ${scenario.name}`);
      const t0 = Date.now();
      try {
        rows.push(...(await inRounds(scenario, ctx, commitPasses(opts.settings), i % 2 === 1)));
        ran.push(scenario);
      } catch (err) {
        const msg = `${scenario.name} failed: ${(err as Error).stack ?? err}`;
        log(msg);
        notes.push(msg.split("\n")[0]);
        process.exitCode = 1;
      }
      log(`    ${scenario.name} done in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    }
    if (s.pooler) {
      // Neon's pooled endpoint is PgBouncer in transaction mode: the per-request rows again, through it.
      const pooled: BenchContext = {
        ...ctx,
        profile: "pgbouncer",
        db: { ...ctx.db, url: s.pooler.bouncer.url, host: s.pooler.bouncer.host, port: s.pooler.bouncer.port },
        worker: s.pooler.worker ? { url: ownSocket(s.pooler.worker), token: s.token } : null,
        metricsOffWorker: null,
        coalesceOffWorker: null,
      };
      const profiled = opts.quick ? ran.slice(0, 2) : ran;
      for (const [i, scenario] of profiled.entries()) {
        log(`[pgbouncer ${i + 1}/${profiled.length}] ${scenario.name}, per-request rows through PgBouncer`);
        try {
          rows.push(...(await inRounds(scenario, pooled, [opts.settings.commit_ms])));
        } catch (err) {
          const msg = `${scenario.name} through pgbouncer failed: ${(err as Error).stack ?? err}`;
          log(msg);
          notes.push(msg.split("\n")[0]);
          process.exitCode = 1;
        }
      }
      if (opts.quick && ran.length > profiled.length) notes.push(`--quick: the PgBouncer profile ran for ${profiled.map((s) => s.name).join(", ")} only`);
    }
  } finally {
    log("stopping the stack…");
    await stop();
  }

  const targets =
    opts.settings.profile === "neon" ? [...neonTargets(rows, opts.settings), ...figures] : withRoundSpread(evaluateTargets(rows, figures), byRound);
  const report: Report = {
    started_at: startedAt.toISOString(),
    finished_at: new Date().toISOString(),
    command,
    quick: opts.quick,
    settings: opts.settings,
    commit,
    machine: { cpus: cpus().length, node: process.version, platform: `${process.platform}-${process.arch}` },
    pgbench: pgbench?.version ?? null,
    pgbouncer: pgbouncer?.version ?? null,
    scenarios: rows,
    targets,
    notes,
  };
  const file = await writeReport(RESULTS_DIR, report);
  console.log(
    `\n${command}  (${report.machine.cpus} cores, ${report.machine.node}, ${((Date.parse(report.finished_at) - startedAt.getTime()) / 1000).toFixed(0)} s)\n`,
  );
  console.log(markdownTable(rows));
  const cpu = cpuTable(rows);
  if (cpu)
    console.log(
      `\nMachine time per decision, µs, by part of the stack (CPU from /proc over each row; the parts add up to cores × elapsed ÷ decisions):\n\n${cpu}`,
    );
  console.log(`\nTargets:\n${targetsMarkdown(targets)}`);
  if (notes.length) console.log(`\nNotes:\n${notes.map((n) => `- ${n}`).join("\n")}`);
  console.log(`\nWritten ${file} and bench/results/latest.json`);
}

/** The commit being measured, with "+changes" when what runs or measures differs from it; null outside a git checkout. */
function sourceCommit(): string | null {
  const git = (...args: string[]) => spawnSync("git", args, { cwd: ROOT, encoding: "utf8" });
  const head = git("rev-parse", "--short", "HEAD");
  if (head.status !== 0) return null;
  const changed = git("status", "--porcelain", "--", "functions", "schema", "bench").stdout.trim() !== "";
  return `${head.stdout.trim()}${changed ? "+changes" : ""}`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((err) => {
    console.error(`[bench] ${(err as Error).stack ?? err}`);
    process.exit(1);
  });
}
