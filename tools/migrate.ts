// Applies schema/NNNNNN_name.sql in order, once each, recorded in admit_migrations.
// Each file runs in its own transaction under a transaction-scoped advisory lock, so two migrators
// (two deploys, two test workers) never interleave; the loser waits, then sees the file applied.
//
// CLI: `npm run migrate` applies to DATABASE_URL (Neon in production). For a loopback DATABASE_URL
// it starts a throwaway WebSocket bridge itself, since the Neon driver speaks WebSocket only.
import "../dev/node-ws";
import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ROOT } from "../dev/local";
import { createClient } from "../functions/core/db";
import { fnv64 } from "../functions/core/lock-keys";

export const SCHEMA_DIR = join(ROOT, "schema");
const FILE = /^(\d{6})_([a-z0-9_]+)\.sql$/;
const LOCK_KEY = fnv64("admit/migrations");

export interface Migration {
  id: number;
  name: string;
  sql: string;
  checksum: string;
}

export async function loadMigrations(dir = SCHEMA_DIR): Promise<Migration[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith(".sql")).sort();
  const out: Migration[] = [];
  for (const file of files) {
    const m = FILE.exec(file);
    if (!m) throw new Error(`schema/${file}: migration files are named NNNNNN_snake_name.sql (six digits); rename it.`);
    const sql = await readFile(join(dir, file), "utf8");
    const id = Number(m[1]);
    if (out.some((x) => x.id === id)) throw new Error(`schema/${file}: number ${m[1]} is used twice; give it the next free number.`);
    out.push({ id, name: file, sql, checksum: createHash("sha256").update(sql).digest("hex") });
  }
  return out;
}

export interface MigrateOptions {
  databaseUrl: string;
  /** The bridge for local Postgres ("127.0.0.1:PORT/v1"); unset for Neon. */
  wsProxy?: string;
  dir?: string;
  log?: (line: string) => void;
  /** How long to wait for the connection (default 30 s). */
  connectTimeoutMs?: number;
}

/** How long `npm run migrate` waits for the database to accept its connection. */
const CONNECT_TIMEOUT_MS = 30_000;

/** Connects, or fails naming the host after `ms` (an unreachable host would otherwise wait for the OS's TCP timeout, minutes, silently). */
async function connectWithin(client: ReturnType<typeof createClient>, databaseUrl: string, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const host = (() => {
    try {
      return new URL(databaseUrl).host;
    } catch {
      return "the host in DATABASE_URL";
    }
  })();
  try {
    await Promise.race([
      client.connect(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new Error(`migrate: no connection to ${host} within ${ms / 1000} s; check DATABASE_URL (and NEON_WS_PROXY, if set) and that the database is up`),
            ),
          ms,
        );
      }),
    ]);
  } catch (err) {
    void client.end().catch(() => {});
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

export async function migrate(opts: MigrateOptions): Promise<{ applied: string[] }> {
  const log = opts.log ?? (() => {});
  const migrations = await loadMigrations(opts.dir);
  const client = createClient({ DATABASE_URL: opts.databaseUrl, NEON_WS_PROXY: opts.wsProxy });
  await connectWithin(client, opts.databaseUrl, opts.connectTimeoutMs ?? CONNECT_TIMEOUT_MS);
  const applied: string[] = [];
  try {
    for (const m of migrations) {
      await client.query("BEGIN");
      try {
        // Schema changes may take a while; this transaction alone lifts the request-sized limits.
        await client.query("SELECT set_config('statement_timeout', '0', true), set_config('lock_timeout', '60s', true)");
        await client.query("SELECT pg_advisory_xact_lock($1::bigint)", [LOCK_KEY]);
        await client.query(`CREATE TABLE IF NOT EXISTS admit_migrations (
          id integer PRIMARY KEY,
          name text NOT NULL,
          checksum text NOT NULL,
          applied_at timestamptz NOT NULL DEFAULT now())`);
        const { rows } = await client.query<{ checksum: string }>("SELECT checksum FROM admit_migrations WHERE id = $1", [m.id]);
        if (rows.length > 0) {
          if (rows[0].checksum !== m.checksum) {
            throw new Error(
              `schema/${m.name} was changed after it was applied. Applied migrations are append-only: revert the edit and put the change in a new numbered file.`,
            );
          }
          await client.query("COMMIT");
          continue;
        }
        log(`applying ${m.name}`);
        await client.query(m.sql);
        await client.query("INSERT INTO admit_migrations (id, name, checksum) VALUES ($1, $2, $3)", [m.id, m.name, m.checksum]);
        await client.query("COMMIT");
        applied.push(m.name);
      } catch (err) {
        await client.query("ROLLBACK").catch(() => {});
        const e = err as Error;
        e.message = `migration ${m.name} failed: ${e.message}`;
        throw e;
      }
    }
  } finally {
    await client.end().catch(() => {});
  }
  return { applied };
}

export function isLoopbackUrl(databaseUrl: string): boolean {
  const host = new URL(databaseUrl).hostname.replace(/^\[|\]$/g, "");
  return host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

async function main(): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) {
    console.error("DATABASE_URL is not set. Set it to your Neon connection string (or a local postgres://…) and run again.");
    process.exit(2);
  }
  let wsProxy = process.env.NEON_WS_PROXY;
  let closeBridge: (() => Promise<void>) | undefined;
  if (!wsProxy && isLoopbackUrl(databaseUrl)) {
    const { startBridge } = await import("../dev/bridge");
    const bridge = await startBridge();
    wsProxy = bridge.wsProxy;
    closeBridge = () => bridge.close();
  }
  try {
    const { applied } = await migrate({ databaseUrl, wsProxy, log: (l) => console.log(l) });
    console.log(applied.length ? `applied ${applied.length} migration(s)` : "database is up to date");
  } finally {
    await closeBridge?.();
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((err) => {
    console.error(String(err?.message ?? err));
    process.exit(1);
  });
}
