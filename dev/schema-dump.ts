// The schema the migrations produce, readable per capability: schema/current/<area>.sql.
//
// A function's current body otherwise has to be pieced together from the migrations that created
// and re-created it; here it is once, as it stands, with the COMMENT ON that says what it decides.
// The embedded Postgres has no pg_dump, so the dump is built from catalog queries: extensions,
// sequences, tables (columns, constraints, storage options, then their indexes and triggers), views
// and functions of the current schema, in a fixed order (kind, then name, then argument types).
// Objects that belong to an extension (btree_gist's functions and types) are left out: the CREATE
// EXTENSION line stands for them. Anything this file does not know how to render makes it throw
// rather than leave the object out silently.
//
// The migrator's bookkeeping table admit_migrations is left out: no migration creates it
// (tools/migrate.ts does, before the first one), and its rows, not its shape, are what matter.
// Ownership and privileges are left out too: they depend on who ran the migrations (postgres in
// tests, the Neon role in production), not on the migrations.
//
// CLI: `npm run schema:dump` starts a throwaway Postgres, migrates it and writes the files.
//   --stdout      print the dump instead of writing the file
//   --url URL     dump that database as it is (no migration; nothing is written to it), e.g. to
//                 compare production with the committed file: `npm run schema:dump -- --url "$DATABASE_URL" --stdout`
// test/schema/schema.dump.test.ts fails when a committed file differs from a fresh migration's dump.
import "./node-ws";
import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createClient } from "../functions/core/db";
import { ROOT } from "./local";

/** The folder of the dumped schema: one file per area (AREAS). */
export const DUMP_DIR = join(ROOT, "schema", "current");
export const DUMP_COMMAND = "npm run schema:dump";
/** Tables in the schema that are not the migrations' doing. */
export const EXCLUDED_TABLES = ["admit_migrations"];

/** Runs one statement and returns its rows (every value this module selects is text, boolean or null). */
export type Query = (text: string, params?: unknown[]) => Promise<Record<string, any>[]>;

/** The opening lines of an area's file. */
function header(area: string): string {
  return `-- GENERATED FILE: DO NOT EDIT.
--
-- The ${area} part of the schema that applying schema/NNNNNN_*.sql in order produces, built from
-- the catalogs of a freshly migrated database by \`${DUMP_COMMAND}\` (dev/schema-dump.ts), which
-- files each object by its name (AREAS there). It is for reading only: it is never applied, and a
-- change to the schema goes in a new numbered migration, after which \`${DUMP_COMMAND}\` rewrites
-- these files. test/schema/schema.dump.test.ts fails while one is out of date.
--
-- Left out: ${EXCLUDED_TABLES.join(", ")} (the migrator's bookkeeping, created by tools/migrate.ts, not by a
-- migration), the members of extensions, ownership and privileges.
`;
}

// Objects of the current schema that no extension owns.
const NOT_EXTENSION_MEMBER = (catalog: string, oid: string) =>
  `NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = '${catalog}'::regclass AND d.objid = ${oid} AND d.deptype = 'e')`;

/** One object of the dump: its name (what it is filed under) and its SQL. */
interface Block {
  name: string;
  def: string;
}

/**
 * Which file of schema/current/ an object belongs in, by its name: the capability whose decisions it
 * makes or stores, else core (what every capability stands on). The first rule that matches wins.
 */
export const AREAS: Array<[area: string, pattern: RegExp]> = [
  ["reservations", /^(reservations$|admit_(reserve|reservation|cancel_reservation|get_reservation|list_reservations|resource_availability))/],
  ["observability", /^(metric_|admit_(metric_|observe_|sweep_metrics))/],
  ["ratelimits", /^(ratelimit_|admit_(ratelimit_|sweep_ratelimits))/],
  ["permits", /^(permits$|semaphore|invoices$|admit_fencing_token$|admit_(permit|semaphore|lease_|generate_invoice|sweep_permits))/],
  ["inventory", /^(inventory_|admit_(inventory_|nights$|sweep_inventory))/],
  ["idempotency", /^(idempotency_|admit_(idempotency_|sweep_idempotency))/],
  ["webhooks", /^(webhook_|admit_(webhook_|sweep_webhook))/],
  ["keys", /^(admit_keys$|admit_key_|admit_audit|admit_sweep_audit)/],
  ["core", /^(btree_gist$|admit_(fnv64|ms_to_ts|ts_to_ms|rfc3339|page|advisory_xact_lock_within|sweep|sweepers|sweep_batch)$)/],
];

/** The file an object named `name` is dumped into, or an error naming the fix. */
export function areaOf(name: string): string {
  const hit = AREAS.find(([, pattern]) => pattern.test(name));
  if (!hit) throw new Error(`dev/schema-dump.ts does not know which file of schema/current/ ${name} belongs in: add it to AREAS.`);
  return hit[0];
}

/**
 * The schema as files of schema/current/, one per area (AREAS): file name → text. Each file holds its
 * area's extensions, sequences, types, tables (with their indexes, triggers and comments), views and
 * functions (with their comments), in a fixed order.
 */
export async function dumpSchema(query: Query): Promise<Map<string, string>> {
  await refuseUnknownKinds(query);
  const sections: Array<[title: string, blocks: Block[]]> = [];

  const extensions = await query(
    `SELECT e.extname AS name, format('CREATE EXTENSION IF NOT EXISTS %I WITH SCHEMA %I;', e.extname, n.nspname) AS def
       FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
      WHERE e.extname <> 'plpgsql'
      ORDER BY e.extname`,
  );
  sections.push(["Extensions", extensions as Block[]]);

  // Identity columns' sequences are shown as the column's GENERATED … AS IDENTITY.
  const sequences = await query(
    `SELECT c.relname AS name,
            format('CREATE SEQUENCE %I AS %s INCREMENT BY %s MINVALUE %s MAXVALUE %s START WITH %s CACHE %s%s;',
                   c.relname, format_type(s.seqtypid, NULL), s.seqincrement, s.seqmin, s.seqmax, s.seqstart, s.seqcache,
                   CASE WHEN s.seqcycle THEN ' CYCLE' ELSE '' END)
            || coalesce((SELECT format(E'\\nALTER SEQUENCE %I OWNED BY %I.%I;', c.relname, t.relname, a.attname)
                           FROM pg_depend d JOIN pg_class t ON t.oid = d.refobjid
                           JOIN pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid
                          WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'a'), '')
            || coalesce(format(E'\\nCOMMENT ON SEQUENCE %I IS %L;', c.relname, obj_description(c.oid, 'pg_class')), '') AS def
       FROM pg_class c JOIN pg_sequence s ON s.seqrelid = c.oid
      WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'S'
        AND ${NOT_EXTENSION_MEMBER("pg_class", "c.oid")}
        AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'i')
      ORDER BY c.relname`,
  );
  sections.push(["Sequences", sequences as Block[]]);

  const types = await query(
    `SELECT t.typname AS name, CASE t.typtype
              WHEN 'e' THEN format('CREATE TYPE %I AS ENUM (%s);', t.typname,
                (SELECT string_agg(quote_literal(e.enumlabel), ', ' ORDER BY e.enumsortorder) FROM pg_enum e WHERE e.enumtypid = t.oid))
              WHEN 'd' THEN format('CREATE DOMAIN %I AS %s%s%s%s;', t.typname, format_type(t.typbasetype, t.typtypmod),
                CASE WHEN t.typdefault IS NOT NULL THEN ' DEFAULT ' || t.typdefault ELSE '' END,
                CASE WHEN t.typnotnull THEN ' NOT NULL' ELSE '' END,
                coalesce((SELECT string_agg(format(' CONSTRAINT %I %s', k.conname, pg_get_constraintdef(k.oid)), '' ORDER BY k.conname)
                            FROM pg_constraint k WHERE k.contypid = t.oid), ''))
              WHEN 'c' THEN format(E'CREATE TYPE %I AS (\\n%s\\n);', t.typname,
                (SELECT string_agg(format('  %I %s', a.attname, format_type(a.atttypid, a.atttypmod)), E',\\n' ORDER BY a.attnum)
                   FROM pg_attribute a WHERE a.attrelid = t.typrelid AND a.attnum > 0 AND NOT a.attisdropped))
            END AS def
       FROM pg_type t
      WHERE t.typnamespace = current_schema()::regnamespace AND t.typtype IN ('e', 'd', 'c')
        AND (t.typtype <> 'c' OR (SELECT c.relkind FROM pg_class c WHERE c.oid = t.typrelid) = 'c')
        AND ${NOT_EXTENSION_MEMBER("pg_type", "t.oid")}
      ORDER BY t.typname`,
  );
  sections.push(["Types", types as Block[]]);

  const tables = await query(
    `SELECT c.oid::text AS oid, c.relname AS name, c.relpersistence = 'u' AS unlogged,
            array_to_string(c.reloptions, ', ') AS options, obj_description(c.oid, 'pg_class') AS comment
       FROM pg_class c
      WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r'
        AND c.relname <> ALL ($1::text[])
        AND ${NOT_EXTENSION_MEMBER("pg_class", "c.oid")}
      ORDER BY c.relname`,
    [EXCLUDED_TABLES],
  );
  const tableBlocks: Block[] = [];
  for (const t of tables) tableBlocks.push({ name: t.name, def: await dumpTable(query, t) });
  sections.push(["Tables, each with its indexes (those not backing a constraint) and triggers", tableBlocks]);

  const views = await query(
    `SELECT c.relname AS name, format(E'CREATE %sVIEW %I AS\\n%s', CASE c.relkind WHEN 'm' THEN 'MATERIALIZED ' ELSE '' END,
                   c.relname, rtrim(pg_get_viewdef(c.oid, true), E'; \\n')) || ';' AS def
       FROM pg_class c
      WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('v', 'm')
        AND ${NOT_EXTENSION_MEMBER("pg_class", "c.oid")}
      ORDER BY c.relname`,
  );
  sections.push(["Views", views as Block[]]);

  const functions = await query(
    `SELECT p.proname AS name, rtrim(pg_get_functiondef(p.oid), E'\\n') || ';'
            || CASE WHEN obj_description(p.oid, 'pg_proc') IS NULL THEN ''
                    ELSE format(E'\\nCOMMENT ON %s %I(%s) IS %L;', CASE p.prokind WHEN 'p' THEN 'PROCEDURE' ELSE 'FUNCTION' END,
                                p.proname, pg_get_function_identity_arguments(p.oid), obj_description(p.oid, 'pg_proc')) END AS def
       FROM pg_proc p
      WHERE p.pronamespace = current_schema()::regnamespace AND p.prokind IN ('f', 'p')
        AND ${NOT_EXTENSION_MEMBER("pg_proc", "p.oid")}
      ORDER BY p.proname, pg_get_function_identity_arguments(p.oid)`,
  );
  sections.push(["Functions", functions as Block[]]);

  const files = new Map<string, string>();
  for (const [area] of AREAS) {
    const parts = [header(area)];
    for (const [title, blocks] of sections) {
      const mine = blocks.filter((b) => areaOf(b.name) === area).map((b) => b.def);
      if (mine.length) parts.push(`\n-- ${title}\n\n${mine.join("\n\n")}\n`);
    }
    files.set(`${area}.sql`, parts.join(""));
  }
  // Every object was filed somewhere: areaOf() throws for one no rule names.
  for (const [, blocks] of sections) for (const b of blocks) areaOf(b.name);
  return files;
}

async function dumpTable(query: Query, t: Record<string, any>): Promise<string> {
  const columns = await query(
    `SELECT format('%I %s', a.attname, format_type(a.atttypid, a.atttypmod))
            || CASE WHEN a.attcollation <> 0 AND a.attcollation <> ty.typcollation
                    THEN ' COLLATE ' || a.attcollation::regcollation::text ELSE '' END
            || CASE WHEN a.attgenerated = 's' THEN format(' GENERATED ALWAYS AS (%s) STORED', pg_get_expr(ad.adbin, ad.adrelid))
                    WHEN ad.adbin IS NOT NULL THEN ' DEFAULT ' || pg_get_expr(ad.adbin, ad.adrelid)
                    ELSE '' END
            || CASE a.attidentity WHEN 'a' THEN ' GENERATED ALWAYS AS IDENTITY'
                                  WHEN 'd' THEN ' GENERATED BY DEFAULT AS IDENTITY' ELSE '' END
            || CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE '' END AS def,
            a.attname AS name, col_description(a.attrelid, a.attnum) AS comment
       FROM pg_attribute a
       JOIN pg_type ty ON ty.oid = a.atttypid
       LEFT JOIN pg_attrdef ad ON ad.adrelid = a.attrelid AND ad.adnum = a.attnum
      WHERE a.attrelid = $1::oid AND a.attnum > 0 AND NOT a.attisdropped
      ORDER BY a.attnum`,
    [t.oid],
  );
  // NOT NULL is shown on its column (Postgres 18 also lists it here, as contype 'n').
  const constraints = await query(
    `SELECT format('CONSTRAINT %I %s', conname, pg_get_constraintdef(oid)) AS def
       FROM pg_constraint
      WHERE conrelid = $1::oid AND contype <> 'n'
      ORDER BY CASE contype WHEN 'p' THEN 0 WHEN 'u' THEN 1 WHEN 'x' THEN 2 WHEN 'f' THEN 3 ELSE 4 END, conname`,
    [t.oid],
  );
  const lines = [...columns.map((c) => c.def), ...constraints.map((c) => c.def)];
  let out = `CREATE ${t.unlogged ? "UNLOGGED " : ""}TABLE ${ident(t.name)} (\n${lines.map((l) => "  " + l).join(",\n")}\n)`;
  out += t.options ? ` WITH (${t.options});` : ";";
  if (t.comment !== null) out += `\nCOMMENT ON TABLE ${ident(t.name)} IS ${literal(t.comment)};`;
  for (const c of columns) {
    if (c.comment !== null) out += `\nCOMMENT ON COLUMN ${ident(t.name)}.${ident(c.name)} IS ${literal(c.comment)};`;
  }

  const indexes = await query(
    `SELECT pg_get_indexdef(i.indexrelid) || ';' AS def
       FROM pg_index i JOIN pg_class ic ON ic.oid = i.indexrelid
      WHERE i.indrelid = $1::oid
        AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conrelid = i.indrelid AND k.conindid = i.indexrelid AND k.contype IN ('p', 'u', 'x'))
      ORDER BY ic.relname`,
    [t.oid],
  );
  const triggers = await query(`SELECT pg_get_triggerdef(oid) || ';' AS def FROM pg_trigger WHERE tgrelid = $1::oid AND NOT tgisinternal ORDER BY tgname`, [
    t.oid,
  ]);
  for (const r of [...indexes, ...triggers]) out += "\n" + r.def;
  return out;
}

/** Throws for any object of the current schema this dump would otherwise leave out. */
async function refuseUnknownKinds(query: Query): Promise<void> {
  const rows = await query(
    `SELECT format('relation %I (relkind %s)', c.relname, c.relkind) AS what
       FROM pg_class c
      WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind NOT IN ('r', 'i', 'S', 'v', 'm', 'c')
        AND ${NOT_EXTENSION_MEMBER("pg_class", "c.oid")}
     UNION ALL
     SELECT format('table %I (inherits or is partitioned)', c.relname)
       FROM pg_class c
      WHERE c.relnamespace = current_schema()::regnamespace AND (c.relispartition OR EXISTS (SELECT 1 FROM pg_inherits h WHERE h.inhrelid = c.oid))
     UNION ALL
     SELECT format('type %I (typtype %s)', t.typname, t.typtype)
       FROM pg_type t
      WHERE t.typnamespace = current_schema()::regnamespace AND t.typtype NOT IN ('b', 'c', 'd', 'e')
        AND ${NOT_EXTENSION_MEMBER("pg_type", "t.oid")}
     UNION ALL
     SELECT format('routine %I (prokind %s)', p.proname, p.prokind)
       FROM pg_proc p
      WHERE p.pronamespace = current_schema()::regnamespace AND p.prokind NOT IN ('f', 'p')
        AND ${NOT_EXTENSION_MEMBER("pg_proc", "p.oid")}
     UNION ALL
     SELECT format('policy %I on %I', pol.polname, c.relname)
       FROM pg_policy pol JOIN pg_class c ON c.oid = pol.polrelid
      WHERE c.relnamespace = current_schema()::regnamespace
     UNION ALL
     SELECT format('rule %I on %I', r.rulename, c.relname)
       FROM pg_rewrite r JOIN pg_class c ON c.oid = r.ev_class
      WHERE c.relnamespace = current_schema()::regnamespace AND r.rulename <> '_RETURN'
     ORDER BY 1`,
  );
  if (rows.length) {
    throw new Error(`dev/schema-dump.ts cannot render ${rows.map((r) => r.what).join(", ")}: teach it to, so the dump leaves nothing out.`);
  }
}

function ident(name: string): string {
  return /^[a-z_][a-z0-9_]*$/.test(name) ? name : `"${name.replaceAll('"', '""')}"`;
}

function literal(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** The dump of the database at `databaseUrl` over the Neon driver (through `wsProxy` for a local one). */
export async function dumpDatabase(databaseUrl: string, wsProxy?: string): Promise<Map<string, string>> {
  const client = createClient({ DATABASE_URL: databaseUrl, NEON_WS_PROXY: wsProxy });
  await client.connect();
  try {
    return await dumpSchema(async (text, params) => (await client.query(text, params)).rows);
  } finally {
    await client.end().catch(() => {});
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const toStdout = args.includes("--stdout");
  const urlAt = args.indexOf("--url");
  const url = urlAt >= 0 ? args[urlAt + 1] : undefined;
  if (urlAt >= 0 && !url) throw new Error("--url needs a database URL");
  const unknown = args.filter((a, i) => a !== "--stdout" && a !== "--url" && !(urlAt >= 0 && i === urlAt + 1));
  if (unknown.length) throw new Error(`unknown argument(s) ${unknown.join(" ")}; use --stdout and/or --url URL`);

  const { startBridge } = await import("./bridge");
  const { isLoopbackUrl, migrate } = await import("../tools/migrate");
  let dump: Map<string, string>;
  if (url && !isLoopbackUrl(url)) {
    dump = await dumpDatabase(url, process.env.NEON_WS_PROXY);
  } else {
    // The Neon driver speaks WebSocket only: a local Postgres is reached through a throwaway bridge.
    const bridge = await startBridge();
    try {
      if (url) {
        dump = await dumpDatabase(url, bridge.wsProxy);
      } else {
        const { startPostgres } = await import("./postgres");
        const pg = await startPostgres({ dataDir: await mkdtemp(join(tmpdir(), "admit-schema-dump-")), persistent: false, database: "admit_schema_dump" });
        try {
          await migrate({ databaseUrl: pg.url, wsProxy: bridge.wsProxy });
          dump = await dumpDatabase(pg.url, bridge.wsProxy);
        } finally {
          await pg.stop();
        }
      }
    } finally {
      await bridge.close();
    }
  }
  if (toStdout) {
    for (const text of dump.values()) process.stdout.write(text);
  } else {
    await mkdir(DUMP_DIR, { recursive: true });
    for (const stale of (await readdir(DUMP_DIR)).filter((f) => f.endsWith(".sql") && !dump.has(f))) await rm(join(DUMP_DIR, stale));
    for (const [file, text] of dump) {
      await writeFile(join(DUMP_DIR, file), text);
      console.log(`wrote schema/current/${file} (${text.split("\n").length - 1} lines)`);
    }
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((err) => {
    console.error(String(err?.message ?? err));
    process.exit(1);
  });
}
