// A refusal writes nothing: where every synchronous commit waits (Neon's safekeepers), a decision
// that says "no" must not pay that wait, nor hold a row lock through it. Each capability's refusal
// is made here at its SQL function, in the statement that also asks whether its transaction was
// given a transaction id (it is, from the first write or row lock: pg_current_xact_id_if_assigned).
import { beforeAll, describe, expect, it } from "vitest";
import { lockKey } from "../../functions/core/lock-keys";
import { freshDatabase, sql } from "../support";

let db: string;
const WROTE = "pg_current_xact_id_if_assigned() IS NOT NULL AS wrote";

beforeAll(async () => {
  db = await freshDatabase("refusals_write_nothing");
}, 120_000);

async function decide(call: string, params: unknown[]) {
  const [row] = await sql<{ r: Record<string, unknown>; wrote: boolean }>(db, `SELECT ${call} AS r, ${WROTE}`, params);
  return row;
}

describe("a refusal writes nothing", () => {
  it("a reservation overlapping one already made (409)", async () => {
    const args = (holder: string) => [lockKey("reservation", "r1"), "r1", holder, "2040-01-01T10:00:00Z", "2040-01-01T12:00:00Z"];
    const call = "admit_reserve($1::bigint, $2, $3, $4::timestamptz, $5::timestamptz, NULL, 1000)";
    expect(await decide(call, args("a"))).toMatchObject({ wrote: true });
    const refused = await decide(call, args("b"));
    expect(refused.r).not.toHaveProperty("id");
    expect(refused.wrote).toBe(false);
  });

  it("a semaphore with every permit taken (429)", async () => {
    await sql(db, "SELECT admit_semaphore_put($1::bigint, 's1', 1, 60000, false, 1000)", [lockKey("semaphore", "s1")]);
    const call = "admit_permit_acquire($1::bigint, 'semaphore', 's1', $2, 60000, 1000)";
    expect(await decide(call, [lockKey("semaphore", "s1"), "a"])).toMatchObject({ wrote: true, r: { status: "acquired" } });
    expect(await decide(call, [lockKey("semaphore", "s1"), "b"])).toMatchObject({ wrote: false, r: { status: "busy" } });
  });

  it("a booking of a night that is sold out (409)", async () => {
    await sql(db, "SELECT admit_inventory_set_stock('i1', '2040-02-01', '2040-02-02', 1, 1000)");
    const call = "admit_inventory_book('i1', '2040-02-01', '2040-02-02', 1, $1, NULL, 1000)";
    const first = await decide(call, ["a"]);
    expect(first.wrote).toBe(true);
    const refused = await decide(call, ["b"]);
    expect(refused.r).not.toEqual(first.r);
    expect(refused.wrote).toBe(false);
  });

  // Bursts reach the database as one statement per isolate's batch (functions/core/coalesce/): a
  // batch of nothing but refusals writes nothing either.
  it("a batch of reservations, each overlapping one already made", async () => {
    const key = lockKey("reservation", "r2");
    const one = { key: String(key), resource: "r2", start: "2040-03-01T10:00:00Z", end: "2040-03-01T12:00:00Z" };
    expect(await decide("admit_reserve_batch($1::jsonb, 1000)", [JSON.stringify([{ ...one, holder: "a" }])])).toMatchObject({ wrote: true });
    const refused = await decide("admit_reserve_batch($1::jsonb, 1000)", [JSON.stringify(["b", "c", "d"].map((holder) => ({ ...one, holder })))]);
    expect(refused.r).toHaveLength(3);
    for (const r of refused.r as unknown as Record<string, unknown>[]) expect(r).not.toHaveProperty("id");
    expect(refused.wrote).toBe(false);
  });

  it("a batch of acquires of a semaphore with every permit taken", async () => {
    const key = lockKey("semaphore", "s2");
    await sql(db, "SELECT admit_semaphore_put($1::bigint, 's2', 1, 60000, false, 1000)", [key]);
    const item = (holder: string) => ({ key: String(key), kind: "semaphore", name: "s2", holder, ttl_ms: 60000 });
    expect(await decide("admit_permit_acquire_batch($1::jsonb, 1000)", [JSON.stringify([item("a")])])).toMatchObject({ wrote: true });
    const refused = await decide("admit_permit_acquire_batch($1::jsonb, 1000)", [JSON.stringify(["b", "c", "d"].map(item))]);
    expect(refused.r).toEqual([{ status: "busy" }, { status: "busy" }, { status: "busy" }].map((x) => expect.objectContaining(x)));
    expect(refused.wrote).toBe(false);
  });

  it("a batch of bookings of a night that is sold out", async () => {
    await sql(db, "SELECT admit_inventory_set_stock('i2', '2040-04-01', '2040-04-02', 2, 1000)");
    const item = (holder: string) => ({ item: "i2", check_in: "2040-04-01", check_out: "2040-04-02", quantity: 1, holder, hold_ms: null });
    const sold = await decide("admit_inventory_book_batch($1::jsonb, 1000)", [JSON.stringify([item("a"), item("b")])]);
    expect(sold.wrote).toBe(true);
    expect(sold.r).toEqual([expect.objectContaining({ created: true }), expect.objectContaining({ created: true })]);
    const refused = await decide("admit_inventory_book_batch($1::jsonb, 1000)", [JSON.stringify(["c", "d", "e"].map(item))]);
    expect(refused.r).toEqual([0, 1, 2].map(() => expect.objectContaining({ created: false })));
    expect(refused.wrote).toBe(false);
  });
});
