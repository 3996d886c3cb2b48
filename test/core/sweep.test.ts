// The cron housekeeping: admit_sweep() runs every admit_sweep_<name>() a migration defines.
import { beforeAll, describe, expect, it } from "vitest";
import { sweep } from "../../functions/core/sweep";
import { bindings, connect, freshDatabase, sql } from "../support";

let db: string;
beforeAll(async () => {
  db = await freshDatabase("sweep");
});

describe("sweep", () => {
  it("finds sweepers by name and reports rows removed by each", async () => {
    await sql(db, "CREATE TABLE sweep_probe (id integer PRIMARY KEY, expires_at timestamptz NOT NULL)");
    await sql(
      db,
      "INSERT INTO sweep_probe SELECT g, now() + CASE WHEN g <= 3 THEN interval '-1 minute' ELSE interval '1 hour' END FROM generate_series(1, 5) g",
    );
    await sql(
      db,
      `CREATE FUNCTION admit_sweep_zz_probe() RETURNS integer LANGUAGE sql AS $$
      WITH d AS (DELETE FROM sweep_probe WHERE expires_at <= now() RETURNING 1) SELECT count(*)::integer FROM d $$`,
    );
    const report = await sweep(bindings(db));
    expect(report.zz_probe).toBe(3);
    expect(await sql(db, "SELECT id FROM sweep_probe ORDER BY id")).toEqual([{ id: 4 }, { id: 5 }]);
    expect((await sweep(bindings(db))).zz_probe).toBe(0);
  });

  it("a sweeper that fails is skipped for this run, and every other one still sweeps", async () => {
    const own = await freshDatabase("sweep_broken");
    await sql(own, "CREATE TABLE after_probe (id integer PRIMARY KEY)");
    await sql(own, "INSERT INTO after_probe SELECT generate_series(1, 3)");
    // First in name order, it fails on every batch; the probe comes after every real sweeper.
    await sql(
      own,
      "CREATE FUNCTION admit_sweep_aa_broken() RETURNS integer LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'disk trouble' USING ERRCODE = 'XX000'; END $$",
    );
    await sql(
      own,
      "CREATE FUNCTION admit_sweep_zz_after() RETURNS integer LANGUAGE sql AS $$ WITH d AS (DELETE FROM after_probe RETURNING 1) SELECT count(*)::integer FROM d $$",
    );
    const report = await sweep(bindings(own));
    expect(report.zz_after).toBe(3);
    expect(report.aa_broken).toBe(0);
    expect(await sql(own, "SELECT id FROM after_probe")).toEqual([]);
  });

  it("each batch is its own transaction, and a sweeper runs batch after batch until it has nothing left", async () => {
    await sql(db, "CREATE TABLE batch_probe (id integer PRIMARY KEY)");
    await sql(db, "CREATE TABLE batch_probe_tx (tx bigint)");
    await sql(db, "INSERT INTO batch_probe SELECT generate_series(1, 5)");
    // One row per batch, and the transaction that ran it.
    await sql(
      db,
      `CREATE FUNCTION admit_sweep_zz_batch_probe() RETURNS integer LANGUAGE sql AS $$
      INSERT INTO batch_probe_tx VALUES (txid_current());
      WITH d AS (DELETE FROM batch_probe WHERE id = (SELECT min(id) FROM batch_probe) RETURNING 1) SELECT count(*)::integer FROM d $$`,
    );
    const report = await sweep(bindings(db));
    expect(report.zz_batch_probe).toBe(5);
    expect(await sql(db, "SELECT count(*)::int AS left FROM batch_probe")).toEqual([{ left: 0 }]);
    const [{ batches, txs }] = await sql<{ batches: number; txs: number }>(
      db,
      "SELECT count(*)::int AS batches, count(DISTINCT tx)::int AS txs FROM batch_probe_tx",
    );
    expect(batches).toBe(6); // five rows, then the batch that found nothing
    expect(txs).toBe(batches);
    await sql(db, "DROP FUNCTION admit_sweep_zz_batch_probe()");
  });

  it("a table written at a few hundred rows a second stays bounded: each cron run clears a minute's backlog", { timeout: 600_000 }, async () => {
    // A minute of a logged policy's checks at 300 a second, expired: what one cron run finds.
    await sql(db, "SELECT admit_ratelimit_put_policy('sweep-load', 'fixed_window', 10, 1000, true, 0)");
    for (let run = 1; run <= 4; run++) {
      await sql(
        db,
        `INSERT INTO ratelimit_log (at, policy, key, allowed, cost, expires_at)
                     SELECT now() - interval '1 minute', 'sweep-load', 'k' || g % 50, true, 1, now() - interval '1 second' FROM generate_series(1, 18000) g`,
      );
      // What this judges is rows cleared per run, not speed: a wide budget (the most DB_BUDGET_MS
      // allows), so a neighbour's load cannot end the run early. (A plan kept from the empty table
      // makes each batch quadratic: the test below.)
      const report = await sweep(bindings(db), { budgetMs: 55_000 });
      expect(report.ratelimits).toBeGreaterThanOrEqual(18000);
      expect(await sql(db, "SELECT count(*)::int AS n FROM ratelimit_log WHERE policy = 'sweep-load'"), `after run ${run}`).toEqual([{ n: 0 }]);
    }
  });

  it("a sweeper plans its batch for the table as it is now, not as it was when the session first ran it", async () => {
    // plpgsql keeps a static statement's plan for the session. Planned on empty, analyzed tables, a
    // batch joined back to its table would be a nested loop over a sequential scan, kept, and quadratic
    // on the next backlog. The plans are read with auto_explain; what matters is the one made after
    // the backlog arrived.
    const fresh = await freshDatabase("sweep_plans");
    const c = await connect(fresh);
    try {
      await c.query("ANALYZE ratelimit_log, ratelimit_counters, permits, inventory_tokens, inventory_bookings, inventory_nights");
      await c.query("LOAD 'auto_explain'");
      await c.query(
        "SET auto_explain.log_min_duration = 0; SET auto_explain.log_nested_statements = on; SET auto_explain.log_level = notice; SET client_min_messages = notice",
      );
      const plans: string[] = [];
      c.on("notice", (n: { message?: string }) => plans.push(n.message ?? ""));
      await c.query("SELECT admit_sweep()"); // every sweeper runs once on the empty tables, in this session
      await c.query(`INSERT INTO ratelimit_log (at, policy, key, allowed, cost, expires_at)
                     SELECT now() - interval '1 minute', 'p', 'k', true, 1, now() - interval '1 second' FROM generate_series(1, 2000) g`);
      plans.length = 0;
      const [{ n }] = (await c.query("SELECT admit_sweep_batch('ratelimits') AS n")).rows;
      expect(n).toBe(2000);
      const logDelete = plans.filter((p) => /Query Text:[\s\S]*DELETE FROM ratelimit_log\b/.test(p));
      expect(logDelete).toHaveLength(1);
      // Not a nested loop that scans the whole table once per victim (the plan kept from the empty table): the
      // victims' ids as one array, matched through the primary key or a hashed lookup (000103).
      expect(logDelete[0]).not.toMatch(/Nested Loop/);
      expect(logDelete[0]).toMatch(/Delete on ratelimit_log\b/);
      expect(logDelete[0]).toMatch(/id = ANY/);
    } finally {
      await c.end();
    }
  });

  it("past inventory is kept 30 days after its night, then its tokens, nights and bookings are swept", async () => {
    const inv = await freshDatabase("sweep_inventory");
    for (const [item, from, to] of [
      ["old", "current_date - 40", "current_date - 37"],
      ["recent", "current_date - 10", "current_date - 7"],
      ["future", "current_date + 1", "current_date + 4"],
    ]) {
      await sql(inv, `SELECT admit_inventory_set_stock($1, ${from}, ${to}, 3, 1000)`, [item]);
      const [{ r }] = await sql<{ r: any }>(inv, `SELECT admit_inventory_book($1, ${from}, ${to}, 2, 'h', NULL, 1000) AS r`, [item]);
      expect(r.created).toBe(true);
      const [{ c }] = await sql<{ c: any }>(inv, `SELECT admit_inventory_book($1, ${from}, ${to}, 1, 'h', NULL, 1000) AS c`, [item]);
      await sql(inv, "SELECT admit_inventory_cancel($1, $2::uuid, 1000)", [item, c.booking.booking_id]);
    }
    await sweep(bindings(inv));
    const left = async (table: string) => (await sql<{ item: string }>(inv, `SELECT DISTINCT item FROM ${table} ORDER BY item`)).map((r) => r.item);
    expect(await left("inventory_tokens")).toEqual(["future", "recent"]);
    expect(await left("inventory_nights")).toEqual(["future", "recent"]);
    expect(await left("inventory_bookings")).toEqual(["future", "recent"]);
    expect(await sql(inv, "SELECT count(*)::int AS n FROM inventory_tokens WHERE item = 'recent'")).toEqual([{ n: 9 }]);
  });

  it("a database that is not there → the sweep fails with a 503 problem, not a hang", async () => {
    await expect(sweep(bindings("postgres://admit:x@127.0.0.1:1/nothing"))).rejects.toMatchObject({ problem: { status: 503 } });
  });
});
