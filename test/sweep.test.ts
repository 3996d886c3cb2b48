// The cron housekeeping: admit_sweep() runs every admit_sweep_<name>() a migration defines.
import { beforeAll, describe, expect, it } from "vitest";
import { sweep } from "../functions/scheduled";
import { bindings, freshDatabase, sql } from "./support";

let db: string;
beforeAll(async () => {
  db = await freshDatabase("sweep");
});

describe("sweep", () => {
  it("finds sweepers by name and reports rows removed by each", async () => {
    await sql(db, "CREATE TABLE sweep_probe (id integer PRIMARY KEY, expires_at timestamptz NOT NULL)");
    await sql(db, "INSERT INTO sweep_probe SELECT g, now() + CASE WHEN g <= 3 THEN interval '-1 minute' ELSE interval '1 hour' END FROM generate_series(1, 5) g");
    await sql(db, `CREATE FUNCTION admit_sweep_zz_probe() RETURNS integer LANGUAGE sql AS $$
      WITH d AS (DELETE FROM sweep_probe WHERE expires_at <= now() RETURNING 1) SELECT count(*)::integer FROM d $$`);
    const report = await sweep(bindings(db));
    expect(report.zz_probe).toBe(3);
    expect(await sql(db, "SELECT id FROM sweep_probe ORDER BY id")).toEqual([{ id: 4 }, { id: 5 }]);
    expect((await sweep(bindings(db))).zz_probe).toBe(0);
  });

  it("a database that is not there → the sweep fails with a 503 problem, not a hang", async () => {
    await expect(sweep(bindings("postgres://admit:x@127.0.0.1:1/nothing"))).rejects.toMatchObject({ problem: { status: 503 } });
  });
});
