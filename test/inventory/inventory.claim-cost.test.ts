// A booking's claim must not grow with the rooms already sold on its night (schema/000105). Counted
// in index pages, not timed: the free-token index (inventory_tokens_free) keeps the entry of every
// sold room until VACUUM, and a claim that starts at slot 1 reads past all of them. On 000031's claim,
// 5 000 rooms sold of 20 000 cost 21 index pages per booking (2 with nothing sold); spread, ~2-3.
import { beforeAll, describe, expect, it } from "vitest";
import { connect, freshDatabase, sql } from "../support";

let db: string;
beforeAll(async () => {
  db = await freshDatabase("inventory_claim_cost");
});

const NIGHT = "2031-07-01";
const NEXT = "2031-07-02";
const LOCK_MS = 5_000;
const BOOK = "SELECT admit_inventory_book($1, $2::date, $3::date, $4::integer, $5, NULL, $6::integer) AS r";

/** Index pages of inventory_tokens_free read per booking over `n` one-room bookings of `item`'s night, in one transaction. */
async function pagesPerBooking(item: string, n: number): Promise<number> {
  const c = await connect(db);
  try {
    await c.query("BEGIN");
    const fetched = async () => Number((await c.query("SELECT pg_stat_get_xact_blocks_fetched('inventory_tokens_free'::regclass) AS f")).rows[0].f);
    const before = await fetched();
    for (let i = 0; i < n; i++) {
      const { r } = (await c.query(BOOK, [item, NIGHT, NEXT, 1, `measured-${i}`, LOCK_MS])).rows[0];
      expect(r.created).toBe(true);
    }
    const after = await fetched();
    await c.query("COMMIT");
    return (after - before) / n;
  } finally {
    await c.end();
  }
}

describe("inventory: the cost of a claim", () => {
  it("does not grow with the rooms sold on the night: 5 000 of 20 000 sold, a booking reads a few index pages", async () => {
    const item = "claim-cost/arena";
    await sql(db, "SELECT admit_inventory_set_stock($1, $2::date, $3::date, 20000, $4)", [item, NIGHT, NEXT, LOCK_MS]);
    const empty = await pagesPerBooking(item, 20);
    // 5 000 rooms sold through the same function, 50 per statement (each statement its own transaction).
    for (let i = 0; i < 100; i++) {
      const [{ n }] = await sql<{ n: number }>(
        db,
        `SELECT count(*) FILTER (WHERE (admit_inventory_book($1, $2::date, $3::date, 1, 'sold-' || g, NULL, $4)->>'created')::boolean)::int AS n
           FROM generate_series(1, 50) g`,
        [item, NIGHT, NEXT, LOCK_MS],
      );
      expect(n).toBe(50);
    }
    const sold = await pagesPerBooking(item, 20);
    // With nothing sold a claim reads the root and one leaf page; with a quarter of the night sold
    // it may read a neighbouring leaf or make a second pass, never a walk past the 5 000 sold rooms.
    expect(empty).toBeLessThanOrEqual(4);
    expect(sold, `index pages per booking: ${empty} with nothing sold, ${sold} with 5 000 sold`).toBeLessThanOrEqual(8);
  });

  it("still finds every free room: one-room bookings of a 50-room night sell exactly 50, a cancelled room sells again", async () => {
    const item = "claim-cost/inn";
    await sql(db, "SELECT admit_inventory_set_stock($1, $2::date, $3::date, 50, $4)", [item, NIGHT, NEXT, LOCK_MS]);
    const ids: string[] = [];
    for (let i = 0; i < 50; i++) {
      const [{ r }] = await sql<{ r: any }>(db, BOOK, [item, NIGHT, NEXT, 1, `b${i}`, LOCK_MS]);
      expect(r.created, `booking ${i + 1} of 50`).toBe(true);
      ids.push(r.booking.booking_id);
    }
    const [{ r: full }] = await sql<{ r: any }>(db, BOOK, [item, NIGHT, NEXT, 1, "one-too-many", LOCK_MS]);
    expect(full).toEqual({ created: false, short: [{ date: NIGHT, available: 0 }] });
    // Free one room anywhere in the night: wherever the next claim starts, it finds it.
    for (const id of [ids[0], ids[24], ids[49]]) {
      await sql(db, "SELECT admit_inventory_cancel($1, $2::uuid, $3)", [item, id, LOCK_MS]);
      const [{ r }] = await sql<{ r: any }>(db, BOOK, [item, NIGHT, NEXT, 1, `again-${id}`, LOCK_MS]);
      expect(r.created).toBe(true);
    }
    const [{ taken }] = await sql<{ taken: number }>(
      db,
      "SELECT count(*)::int AS taken FROM inventory_tokens WHERE item = $1 AND booking_id IS NOT NULL AND held_until IS NULL",
      [item],
    );
    expect(taken).toBe(50);
  });
});
