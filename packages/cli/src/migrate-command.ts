// `admit migrate`: DATABASE_URL (or --database-url) migrated with the schema files this CLI ships,
// over node-postgres, with a line per file applied.
import pg from "pg";
import { asset } from "./assets.js";
import { CliError, EXIT, type Output } from "./cli.js";
import { applyMigrations, loadMigrations } from "./migrate.js";

const CONNECT_TIMEOUT_MS = 30_000;

export async function migrateCommand(values: Record<string, any>, env: Record<string, string | undefined>, out: Output): Promise<number> {
  const databaseUrl: string | undefined = values["database-url"] ?? env.DATABASE_URL;
  if (!databaseUrl) throw new CliError("no database: pass --database-url postgres://… or set DATABASE_URL (on Neon, the direct connection string)", EXIT.usage);
  let host: string;
  try {
    const u = new URL(databaseUrl);
    if (u.protocol !== "postgres:" && u.protocol !== "postgresql:") throw new Error();
    host = u.host;
  } catch {
    throw new CliError("DATABASE_URL is not a postgres:// URL: give a connection string such as postgres://user:password@host/db", EXIT.usage);
  }
  let migrations: Awaited<ReturnType<typeof loadMigrations>>;
  try {
    migrations = await loadMigrations(values.dir ?? asset("schema"));
  } catch (err) {
    throw new CliError(
      `${values.dir ?? "schema"}: ${(err as NodeJS.ErrnoException).code === "ENOENT" ? "no such directory" : (err as Error).message}`,
      EXIT.data,
    );
  }
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  try {
    await client.connect();
  } catch (err) {
    const e = err as Error & { code?: string };
    const code = e.code === "28P01" || e.code === "28000" || e.code === "3D000" ? EXIT.noperm : EXIT.unavailable;
    throw new CliError(`cannot connect to ${host} (${e.code ? `${e.code}: ` : ""}${e.message}): check DATABASE_URL and that the database is up`, code);
  }
  try {
    const applied = await applyMigrations(client, migrations, (name, i, n) => {
      if (!out.json) out.line(`[${i}/${n}] applying ${name}`);
    });
    if (out.json) out.line(JSON.stringify({ applied, total: migrations.length }, null, 2));
    else out.line(applied.length ? `applied ${applied.length} migration(s); the database is up to date` : "the database is up to date");
    return EXIT.ok;
  } catch (err) {
    throw new CliError((err as Error).message.split("\n")[0], EXIT.failed);
  } finally {
    await client.end().catch(() => {});
  }
}
