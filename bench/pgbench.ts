// The ceiling layer: pgbench running the project's own SQL statement straight against Postgres
// over TCP, pooled (-c N) and with a new connection per transaction (-C).
import { execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** Debian 12: pgbench ships in postgresql-<major>, which postgresql-contrib pulls in. */
export const PGBENCH_INSTALL = "apt-get update && apt-get install -y postgresql-contrib";

export interface Pgbench {
  path: string;
  version: string;
}

/** pgbench on PATH, else the newest /usr/lib/postgresql/<major>/bin/pgbench; null if neither. */
export async function findPgbench(): Promise<Pgbench | null> {
  const candidates: string[] = [];
  if (process.env.PGBENCH) candidates.push(process.env.PGBENCH);
  try {
    const majors = (await readdir("/usr/lib/postgresql")).filter((d) => /^\d+$/.test(d)).sort((a, b) => Number(b) - Number(a));
    for (const m of majors) candidates.push(`/usr/lib/postgresql/${m}/bin/pgbench`);
  } catch {
    /* no Debian postgres tree */
  }
  return firstRunnable([...candidates, ...onPath("pgbench")]);
}

/** `name` in each PATH directory. */
export function onPath(name: string): string[] {
  return (process.env.PATH ?? "")
    .split(":")
    .filter(Boolean)
    .map((dir) => join(dir, name));
}

/** The first candidate that exists and answers `--version` (its first line); null if none does. */
export async function firstRunnable(candidates: (string | undefined)[]): Promise<{ path: string; version: string } | null> {
  for (const path of candidates) {
    if (!path || !existsSync(path)) continue;
    try {
      const { stdout } = await run(path, ["--version"], { timeout: 10_000 });
      return { path, version: stdout.split("\n")[0].trim() };
    } catch {
      /* not runnable */
    }
  }
  return null;
}

export interface PgbenchRun {
  /** The custom script: \set lines and the statement, with :variables (sent as parameters with -M extended). */
  script: string;
  clients: number;
  seconds: number;
  /** -C: a new connection for every transaction. */
  connectPerTransaction: boolean;
  /** -D name=value: string values the script uses as :name (pgbench's \set makes numbers only). */
  defines?: Record<string, string>;
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
}

/** One line of pgbench's per-transaction log: the client, its transaction number (from 1), the latency. */
export interface LoggedTransaction {
  client: number;
  tx: number;
  ms: number;
}

export interface PgbenchResult {
  /** Each logged transaction's latency, with its client and transaction number. */
  logged: LoggedTransaction[];
  failed: number;
  tps: number | null;
  transactions: number;
  output: string;
}

export function pgbenchArgs(r: PgbenchRun, scriptFile: string, logPrefix: string): string[] {
  const args = ["-n", "-M", "extended", "-c", String(r.clients), "-j", String(Math.min(2, r.clients)), "-T", String(r.seconds)];
  if (r.connectPerTransaction) args.push("-C");
  for (const [k, v] of Object.entries(r.defines ?? {})) args.push("-D", `${k}=${v}`);
  args.push("-l", `--log-prefix=${logPrefix}`, "-f", scriptFile, "-h", r.host, "-p", String(r.port), "-U", r.user, r.database);
  return args;
}

/**
 * Parses pgbench's per-transaction log lines ("client_id transaction_no time script_no epoch
 * epoch_us …", time in µs) into latencies in ms; non-numeric times (failed transactions) are counted.
 */
export function parsePgbenchLog(text: string): { logged: LoggedTransaction[]; failed: number } {
  const logged: LoggedTransaction[] = [];
  let failed = 0;
  for (const line of text.split("\n")) {
    const f = line.trim().split(/\s+/);
    if (f.length < 6) continue;
    const us = Number(f[2]);
    if (Number.isFinite(us)) logged.push({ client: Number(f[0]), tx: Number(f[1]), ms: us / 1000 });
    else failed++;
  }
  return { logged, failed };
}

/**
 * Decision latencies from transaction latencies, where a decision may span several transactions of
 * one client (one statement each, so that -C connects for each, as the edge's separate HTTP requests
 * do): `continues` holds "client:tx" of each transaction that belongs to the decision before it.
 */
export function decisionLatencies(logged: LoggedTransaction[], continues: Set<string>): number[] {
  const out: number[] = [];
  const last = new Map<number, number>(); // client → index in out of its latest decision
  for (const t of [...logged].sort((a, b) => a.client - b.client || a.tx - b.tx)) {
    const at = last.get(t.client);
    if (at !== undefined && continues.has(`${t.client}:${t.tx}`)) out[at] += t.ms;
    else last.set(t.client, out.push(t.ms) - 1);
  }
  return out;
}

export function parsePgbenchSummary(output: string): { tps: number | null; transactions: number } {
  const tps = /^tps = ([\d.]+)/m.exec(output);
  const n = /number of transactions actually processed: (\d+)/.exec(output);
  return { tps: tps ? Number(tps[1]) : null, transactions: n ? Number(n[1]) : 0 };
}

export async function runPgbench(bin: Pgbench, r: PgbenchRun): Promise<PgbenchResult> {
  const dir = await mkdtemp(join(tmpdir(), "admit-pgbench-"));
  try {
    const scriptFile = join(dir, "script.sql");
    await writeFile(scriptFile, r.script);
    const prefix = join(dir, "log");
    const args = pgbenchArgs(r, scriptFile, prefix);
    const output = await new Promise<string>((resolve, reject) => {
      const child = spawn(bin.path, args, { env: { ...process.env, PGPASSWORD: r.password, PGCONNECT_TIMEOUT: "10" }, stdio: ["ignore", "pipe", "pipe"] });
      let out = "";
      child.stdout.on("data", (d) => (out += d));
      child.stderr.on("data", (d) => (out += d));
      // -T bounds the run; this only guards against a pgbench that never returns.
      const killer = setTimeout(() => child.kill("SIGKILL"), (r.seconds + 60) * 1000);
      child.once("error", (err) => {
        clearTimeout(killer);
        reject(err);
      });
      child.once("exit", (code) => {
        clearTimeout(killer);
        // Exit 2 = some clients aborted (e.g. an SQL error); the transactions logged still count.
        if (code === 0 || code === 2) resolve(out);
        else reject(new Error(`pgbench exited ${code}:\n${out.slice(-2000)}`));
      });
    });
    let logged: LoggedTransaction[] = [];
    let failed = 0;
    for (const f of (await readdir(dir)).filter((f) => f.startsWith("log."))) {
      const parsed = parsePgbenchLog(await readFile(join(dir, f), "utf8"));
      logged = logged.concat(parsed.logged);
      failed += parsed.failed;
    }
    const { tps, transactions } = parsePgbenchSummary(output);
    return { logged, failed, tps, transactions, output };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
