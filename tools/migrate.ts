// The local stack's and the tests' migrator: schema/NNNNNN_name.sql applied in order, once each, by
// the same code as `admit migrate` (packages/cli/src/migrate.ts: each file in its own transaction
// under a transaction-scoped advisory lock, recorded in admit_migrations), over the Neon driver's
// WebSocket session through the bridge (npm start, the tests, the bench). Users run `admit migrate`
// (`npm run migrate` here), which connects with node-postgres.
import "../dev/node-ws";
import { join } from "node:path";
import { ROOT } from "../dev/local";
import { createClient } from "../functions/core/db";
import { applyMigrations, loadMigrations as loadFrom, type Migration } from "../packages/cli/src/migrate";

export const SCHEMA_DIR = join(ROOT, "schema");

export type { Migration } from "../packages/cli/src/migrate";

/** The numbered files of `dir` (default: the repository's schema/), in order. */
export function loadMigrations(dir = SCHEMA_DIR): Promise<Migration[]> {
  return loadFrom(dir);
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

/** How long the migrator waits for the database to accept its connection. */
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
  try {
    return { applied: await applyMigrations(client, migrations, (name) => log(`applying ${name}`)) };
  } finally {
    await client.end().catch(() => {});
  }
}

export function isLoopbackUrl(databaseUrl: string): boolean {
  const host = new URL(databaseUrl).hostname.replace(/^\[|\]$/g, "");
  return host === "localhost" || host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}
