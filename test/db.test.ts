// The request database handle's explicit transactions, against real Postgres through the bridge.
import { beforeAll, describe, expect, it } from "vitest";
import { RequestDb } from "../functions/db";
import { ProblemError } from "../functions/errors";
import { bindings, freshDatabase, sql } from "./support";

let db: string;
beforeAll(async () => {
  db = await freshDatabase("db");
  await sql(db, "CREATE TABLE tx_probe (v integer PRIMARY KEY)");
});

describe("RequestDb.transaction", () => {
  it("commits everything fn wrote, in one transaction", async () => {
    const h = new RequestDb(bindings(db));
    const pids = await h.transaction(async (tx) => {
      await tx.query("INSERT INTO tx_probe VALUES (1)", [], { write: true });
      await tx.query("INSERT INTO tx_probe VALUES (2)", [], { write: true });
      return tx.query<{ x: string }>("SELECT txid_current_if_assigned()::text AS x");
    });
    await h.close();
    expect(pids[0].x).not.toBeNull();
    expect(await sql(db, "SELECT v FROM tx_probe ORDER BY v")).toEqual([{ v: 1 }, { v: 2 }]);
  });

  it("rolls back all of it when fn throws, including after a SQL error", async () => {
    const h = new RequestDb(bindings(db));
    await expect(
      h.transaction(async (tx) => {
        await tx.query("INSERT INTO tx_probe VALUES (3)", [], { write: true });
        await tx.query("INSERT INTO tx_probe VALUES (1)", [], { write: true }); // duplicate → 23505
      }),
    ).rejects.toMatchObject({ problem: { status: 409 } });
    expect(h.inTransaction).toBe(false);
    // The connection is usable again after the rollback.
    expect(await h.query("SELECT 1 AS one")).toEqual([{ one: 1 }]);
    await h.close();
    expect(await sql(db, "SELECT v FROM tx_probe WHERE v = 3")).toEqual([]);
  });

  it("joins an outer transaction instead of committing it, and flags a failed statement", async () => {
    const h = new RequestDb(bindings(db));
    await h.begin();
    await h.transaction((tx) => tx.query("INSERT INTO tx_probe VALUES (4)", [], { write: true }));
    expect(h.inTransaction).toBe(true);
    expect(await sql(db, "SELECT v FROM tx_probe WHERE v = 4")).toEqual([]); // not committed yet
    await expect(h.query("SELECT 1/0")).rejects.toBeInstanceOf(ProblemError);
    expect(h.transactionFailed).toBe(true);
    await h.rollback();
    await h.close();
    expect(await sql(db, "SELECT v FROM tx_probe WHERE v = 4")).toEqual([]);
  });
});
