// `admit migrate`: Admit's numbered schema files (schema/NNNNNN_name.sql, shipped in this package)
// applied to DATABASE_URL in order, once each, recorded in admit_migrations with a checksum. Each
// file runs in its own transaction under a transaction-scoped advisory lock, so two migrators (two
// deploys) never interleave: the loser waits, then sees the file applied. An applied file that was
// edited is refused. Over node-postgres (TCP): use Neon's direct (not -pooler) connection string,
// as Neon advises for schema changes.
import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";

const FILE = /^(\d{6})_([a-z0-9_]+)\.sql$/;

/** FNV-1a 64 over UTF-8, as a signed bigint string: the lock key Admit's own migrator uses for "admit/migrations". */
export function fnv64(text: string): string {
  let h = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(text)) h = BigInt.asUintN(64, (h ^ BigInt(byte)) * 0x100000001b3n);
  return BigInt.asIntN(64, h).toString();
}
export const MIGRATIONS_LOCK_KEY = fnv64("admit/migrations");

export interface Migration {
  id: number;
  name: string;
  sql: string;
  checksum: string;
}

/** The numbered files of `dir`, in order; a misnamed or doubly numbered file is an error naming it. */
export async function loadMigrations(dir: string): Promise<Migration[]> {
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

/** What the migrator needs of a connection: node-postgres' Client, or the Neon driver's. */
export interface Queryable {
  query<R = any>(text: string, params?: unknown[]): Promise<{ rows: R[] }>;
}

/**
 * Applies each migration not yet applied, in order, each in its own transaction under the lock.
 * `log(file, i, n)` is called before each file that is applied (progress).
 */
export async function applyMigrations(
  client: Queryable,
  migrations: Migration[],
  log: (name: string, index: number, total: number) => void = () => {},
): Promise<string[]> {
  const applied: string[] = [];
  for (const [i, m] of migrations.entries()) {
    await client.query("BEGIN");
    try {
      // Schema changes may take a while; this transaction alone lifts the request-sized limits.
      await client.query("SELECT set_config('statement_timeout', '0', true), set_config('lock_timeout', '60s', true)");
      await client.query("SELECT pg_advisory_xact_lock($1::bigint)", [MIGRATIONS_LOCK_KEY]);
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
      log(m.name, i + 1, migrations.length);
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
  return applied;
}
