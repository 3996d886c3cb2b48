// The production-shaped profile (`npm run bench -- --profile=neon`): what separates this machine
// from Neon behind Cloudflare, put back one by one, so a figure reads as it would in production.
// - Commit latency: on Neon a commit returns once its WAL is acknowledged by a quorum of safekeepers,
//   and the transaction's row locks are held until then. Here the cluster keeps
//   `synchronous_commit = on` and every table has a deferred constraint trigger that sleeps
//   `commit_ms` once per transaction at COMMIT (locks still held), unless that transaction commits
//   asynchronously (`synchronous_commit` off or local), which on Neon skips the safekeepers' wait.
//   A transaction that only locks rows (SELECT … FOR SHARE) writes WAL and would wait on Neon, but
//   fires no trigger here: the emulation is blind to it.
// - Isolates: the load is spread round robin over `isolates` Workers of each kind, each its own
//   `wrangler dev` (its own workerd, coalescer and caches).
// - Distance: the bridge adds `rtt_ms` to every HTTP SQL request and WebSocket round trip.
// Each scenario runs at commit 0 and at `commit_ms` in the same run, the two taking turns within each
// round (bench/run.ts), so every figure is read as a ratio to its own row at commit 0 (neonTargets).
import { ADMIT_IMPLS, burstTarget, findRow, type Row, type Settings, type Target } from "./report";

export type { Settings };

/** Today's profile: one isolate, no distance, commits that never wait (the cluster's synchronous_commit is off). */
export const LOCAL: Settings = { profile: "local", commit_ms: 0, isolates: 1, rtt_ms: 0 };

/** The neon profile's defaults: commit 3 ms, 8 isolates, 10 ms between Worker and database. */
export const NEON_DEFAULTS: Settings = { profile: "neon", commit_ms: 3, isolates: 8, rtt_ms: 10 };

/** The cluster settings of the neon profile: commits are synchronous, as on Neon (fsync stays off: the wait is emulated). */
export const NEON_CLUSTER = { synchronous_commit: "on" } as const;

type Sql = (text: string, params?: unknown[]) => Promise<unknown[]>;

/**
 * The commit-latency emulation: a one-row table holding the latency, the trigger function, and a
 * deferred constraint trigger on every table of the schema. Run after the migrations.
 */
export async function installCommitLatency(sql: Sql): Promise<number> {
  await sql(`
    CREATE TABLE IF NOT EXISTS bench_commit_latency (ms integer NOT NULL);
    INSERT INTO bench_commit_latency (ms) SELECT 0 WHERE NOT EXISTS (SELECT FROM bench_commit_latency);
    CREATE OR REPLACE FUNCTION bench_commit_wait() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      v_ms integer;
    BEGIN
      -- Once per transaction: the first deferred event marks it; the rest return at once.
      IF current_setting('bench.commit_waited', true) = 'on' THEN RETURN NULL; END IF;
      PERFORM set_config('bench.commit_waited', 'on', true);
      -- An asynchronous commit does not wait for the WAL to be flushed (on Neon: acknowledged).
      IF current_setting('synchronous_commit') IN ('off', 'local') THEN RETURN NULL; END IF;
      SELECT ms INTO v_ms FROM bench_commit_latency;
      IF v_ms > 0 THEN PERFORM pg_sleep(v_ms / 1000.0); END IF;
      RETURN NULL;
    END
    $$;`);
  const tables = (await sql(`
    SELECT c.oid::regclass::text AS t FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'public' AND c.relkind = 'r' AND c.relname <> 'bench_commit_latency'
       AND NOT EXISTS (SELECT FROM pg_trigger g WHERE g.tgrelid = c.oid AND g.tgname = 'bench_commit_wait')`)) as { t: string }[];
  for (const { t } of tables) {
    await sql(
      `CREATE CONSTRAINT TRIGGER bench_commit_wait AFTER INSERT OR UPDATE OR DELETE ON ${t} DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION bench_commit_wait()`,
    );
  }
  return tables.length;
}

/** Sets the emulated commit latency for every transaction from now on. */
export async function setCommitMs(sql: Sql, ms: number): Promise<void> {
  await sql("UPDATE bench_commit_latency SET ms = $1", [ms]);
}

/** Parses `--profile`, `--commit-ms`, `--isolates`, `--rtt-ms` (the last three only with --profile=neon). */
export function parseProfile(value: (name: string) => string | undefined): Settings {
  const profile = value("profile") ?? "local";
  if (profile !== "local" && profile !== "neon") throw new Error(`--profile=${profile}: expected local or neon`);
  const num = (name: string, fallback: number, min: number, max: number) => {
    const raw = value(name);
    if (raw === undefined) return fallback;
    if (profile !== "neon") throw new Error(`--${name} needs --profile=neon`);
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) throw new Error(`--${name}=${raw}: expected a whole number from ${min} to ${max}`);
    return n;
  };
  if (profile === "local") {
    for (const n of ["commit-ms", "isolates", "rtt-ms"]) num(n, 0, 0, 0);
    return LOCAL;
  }
  return {
    profile,
    commit_ms: num("commit-ms", NEON_DEFAULTS.commit_ms, 0, 1000),
    isolates: num("isolates", NEON_DEFAULTS.isolates, 1, 32),
    rtt_ms: num("rtt-ms", NEON_DEFAULTS.rtt_ms, 0, 1000),
  };
}

/** The commit latencies a run measures each scenario at: today's profile once; the neon profile at 0, then at its own. */
export function commitPasses(s: Settings): number[] {
  return s.profile === "neon" && s.commit_ms > 0 ? [0, s.commit_ms] : [s.commit_ms];
}

/**
 * The commit latencies in the order one round of one scenario runs them: they take turns, which
 * first alternating by round and, with `flip` (every other scenario), by scenario. A drift of the
 * machine over a scenario's minutes then falls on both latencies alike.
 */
export function passOrder(passes: number[], round: number, flip: boolean): number[] {
  return (round % 2 === 0) !== flip ? passes : [...passes].reverse();
}

/** A row's commit latency (0 where it has no settings). */
export function commitOf(r: Row): number {
  return r.settings?.commit_ms ?? 0;
}

const HOT_OVER = "ratelimit-hot-over";
const BURSTS_WITH_P99 = [
  "ratelimit fixed_window limit 50",
  "ratelimit token_bucket limit 50",
  "ratelimit fixed_window limit 50 durable",
  "reservation one interval",
  "semaphore 4 permits",
  "inventory sell-out 100 rooms",
];

/**
 * The neon profile's targets: each row at the run's commit latency against the same row at commit 0
 * (throughput, or a burst's p99), and every burst exact at both.
 */
export function neonTargets(rows: Row[], s: Settings): Target[] {
  const at = (ms: number) => rows.filter((r) => commitOf(r) === ms);
  const slow = at(s.commit_ms);
  const fast = at(0);
  const where = `${s.isolates} isolates, RTT ${s.rtt_ms} ms`;
  const out: Target[] = [];
  // Admit's rows only: the naive designs beside them (the seeds' first attempts) are there to show violations.
  const violated = rows.filter((r) => ADMIT_IMPLS.includes(r.impl) && !r.skipped && (r.violations ?? 0) > 0);
  out.push({
    name: `no violation in any Admit row, at commit 0 and at ${s.commit_ms} ms (${where})`,
    value: violated.reduce((n, r) => n + (r.violations ?? 0), 0),
    max: 0,
    met: violated.length === 0,
    detail: violated.length ? violated.map((r) => `${r.scenario} ${r.impl} c=${r.concurrency} commit ${commitOf(r)}: ${r.violations}`).join("; ") : "none",
  });
  const throughput = (scenario: string, concurrency: number, min: number) => {
    const m = { scenario, layer: "edge" as const, impl: "admit", connection: "http" as const, concurrency };
    const a = findRow(slow, m);
    const b = findRow(fast, m);
    const name = `${scenario} c=${concurrency} over ${where}: commit ${s.commit_ms} ms ≥ ${min}× commit 0`;
    if (!a?.throughput_rps || !b?.throughput_rps) return out.push({ name, value: null, min, met: null, detail: "not measured" });
    const value = Math.round((a.throughput_rps / b.throughput_rps) * 100) / 100;
    out.push({ name, value, min, met: value >= min, detail: `${a.throughput_rps} against ${b.throughput_rps} decisions/s` });
  };
  for (const c of [...new Set(slow.filter((r) => r.layer === "edge" && r.errors_5xx === undefined).map((r) => r.concurrency))].filter((c) => c >= 16)) {
    throughput("ratelimit-hot", c, 0.7);
    throughput(HOT_OVER, c, 0.9);
    throughput("ratelimit-10k-keys", c, 0.8);
  }
  for (const r of slow.filter((x) => x.errors_5xx !== undefined && !x.skipped && x.impl === "admit")) {
    const exact = burstTarget(r);
    out.push({ ...exact, name: `${exact.name} (commit ${s.commit_ms} ms, ${where})` });
    const base = fast.find((x) => x.burst === r.burst && x.impl === r.impl && x.errors_5xx !== undefined);
    if (!r.burst || !BURSTS_WITH_P99.includes(r.burst)) continue;
    const rl = r.burst.startsWith("ratelimit") && !r.burst.endsWith("durable");
    const name = `burst-1000 ${r.burst}: p99 at commit ${s.commit_ms} ms ≤ ${rl ? "1.5× " : ""}commit 0's (${where})`;
    if (!base?.p99_ms || !r.p99_ms) {
      out.push({ name, value: null, met: null, detail: "not measured" });
      continue;
    }
    const value = Math.round((r.p99_ms / base.p99_ms) * 100) / 100;
    out.push({
      name,
      value,
      ...(rl ? { max: 1.5, met: value <= 1.5 } : { met: null }),
      detail: `p99 ${r.p99_ms} ms against ${base.p99_ms} ms${rl ? "" : " (beside, not judged)"}`,
    });
  }
  for (const r of fast.filter((x) => x.errors_5xx !== undefined && !x.skipped && x.impl === "admit")) {
    const exact = burstTarget(r);
    out.push({ ...exact, name: `${exact.name} (commit 0, ${where})` });
  }
  const durable = slow.find((r) => r.burst === "ratelimit fixed_window limit 50 durable");
  const plain = slow.find((r) => r.burst === "ratelimit fixed_window limit 50" && r.impl === "admit");
  if (durable?.p99_ms && plain?.p99_ms) {
    out.push({
      name: `burst-1000 durable: true against the default, p99 at commit ${s.commit_ms} ms (${where})`,
      value: Math.round((durable.p99_ms / plain.p99_ms) * 100) / 100,
      met: null,
      detail: `durable p99 ${durable.p99_ms} ms, default ${plain.p99_ms} ms (what durability costs; not judged)`,
    });
  }
  return out;
}
