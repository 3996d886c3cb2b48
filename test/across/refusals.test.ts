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
});
