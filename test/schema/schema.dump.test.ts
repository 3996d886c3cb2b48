// schema/current/<area>.sql (the schema the migrations produce, one file per capability) is generated
// by `npm run schema:dump`; this fails when a committed file is not what a fresh migration gives, and
// while a table or an admit_* function has no COMMENT ON saying what it holds or decides.
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { DUMP_COMMAND, DUMP_DIR, dumpSchema } from "../../dev/schema-dump";
import { loadMigrations } from "../../tools/migrate";
import { connect, firstDifference, freshDatabase, sql } from "../support";

/** The body (between the dollar quotes) of the last CREATE of `name` in the migrations, and that migration's name. */
async function latestBody(name: string): Promise<{ file: string; body: string }> {
  let found: { file: string; body: string } | undefined;
  const create = new RegExp(`CREATE\\s+(?:OR\\s+REPLACE\\s+)?FUNCTION\\s+${name}\\s*\\(`, "gi");
  for (const m of await loadMigrations()) {
    for (const hit of m.sql.matchAll(create)) {
      const quote = /\bAS\s+(\$[A-Za-z_]*\$)/g;
      quote.lastIndex = hit.index!;
      const open = quote.exec(m.sql);
      if (!open) throw new Error(`${m.name}: no dollar-quoted body after CREATE FUNCTION ${name}`);
      const start = open.index + open[0].length;
      const end = m.sql.indexOf(open[1], start);
      found = { file: m.name, body: m.sql.slice(start, end) };
    }
  }
  if (!found) throw new Error(`no migration creates ${name}`);
  return found;
}

describe("schema/current/", () => {
  let url: string;
  let freshFiles: Map<string, string>;
  let committedFiles: Map<string, string>;
  /** Each whole dump, its files one after the other. */
  let fresh: string;
  let committed: string;
  beforeAll(async () => {
    const names = (await readdir(DUMP_DIR).catch(() => [] as string[])).filter((f) => f.endsWith(".sql")).sort();
    committedFiles = new Map(await Promise.all(names.map(async (f) => [f, await readFile(join(DUMP_DIR, f), "utf8")] as [string, string])));
    url = await freshDatabase("schema_dump");
    const client = await connect(url);
    try {
      freshFiles = await dumpSchema(async (text, params) => (await client.query(text, params)).rows);
    } finally {
      await client.end();
    }
    fresh = [...freshFiles.values()].join("");
    committed = [...committedFiles.values()].join("");
  });

  it("is what a fresh migration produces, file by file", async () => {
    expect([...committedFiles.keys()].sort(), `the files of schema/current/: run \`${DUMP_COMMAND}\``).toEqual([...freshFiles.keys()].sort());
    for (const [file, text] of freshFiles) {
      const diff = firstDifference(committedFiles.get(file) ?? "", text, { committed: `committed schema/current/${file}`, fresh: "fresh migration" });
      if (diff !== null) expect.fail(`schema/current/${file} is out of date: run \`${DUMP_COMMAND}\` and commit the result.\n${diff}`);
    }
  });

  it("says what every table holds and what every admit_* function decides (COMMENT ON)", async () => {
    const rows = await sql<{ what: string }>(
      url,
      `SELECT format('table %I', c.relname) AS what FROM pg_class c
        WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' AND c.relname <> 'admit_migrations'
          AND obj_description(c.oid, 'pg_class') IS NULL
       UNION ALL
       SELECT format('function %I(%s)', p.proname, pg_get_function_identity_arguments(p.oid)) FROM pg_proc p
        WHERE p.pronamespace = current_schema()::regnamespace AND p.proname LIKE 'admit\\_%'
          AND obj_description(p.oid, 'pg_proc') IS NULL
       ORDER BY 1`,
    );
    expect(
      rows.map((r) => r.what),
      "add a COMMENT ON for each in a new migration",
    ).toEqual([]);
  });

  it("holds admit_ratelimit_check's body as the latest migration defining it has it", async () => {
    const { file, body } = await latestBody("admit_ratelimit_check");
    expect(file).toMatch(/^\d{6}_/);
    expect(body.trim().length).toBeGreaterThan(100);
    // pg_get_functiondef prints the source verbatim, between $function$ quotes.
    for (const [which, dump] of [
      ["fresh", fresh],
      ["committed", committed],
    ]) {
      expect(dump.includes(`$function$${body}$function$`), `the ${which} dump lacks admit_ratelimit_check's body from ${file}`).toBe(true);
    }
  });

  it("lists every admit_* function of the database", async () => {
    const rows = await sql<{ name: string; args: string }>(
      url,
      `SELECT p.proname AS name, pg_get_function_arguments(p.oid) AS args
         FROM pg_proc p WHERE p.pronamespace = current_schema()::regnamespace AND p.proname LIKE 'admit\\_%'
        ORDER BY 1, 2`,
    );
    expect(rows.length).toBeGreaterThan(20);
    for (const [which, dump] of [
      ["fresh", fresh],
      ["committed", committed],
    ]) {
      const missing = rows.filter((r) => !dump.includes(`FUNCTION public.${r.name}(${r.args})\n`));
      expect(
        missing.map((r) => `${r.name}(${r.args})`),
        `missing from the ${which} dump`,
      ).toEqual([]);
    }
  });
});
