// A 409 inventory-short must be a real shortage (issue 28, item 1). Night A has 1 room, night B none.
// Twelve buyers loop on bookings that must be refused (half want A+B, half want 2 rooms of A), and
// each of them locks A's room for a moment (SKIP LOCKED) before it is refused. One buyer loops on
// "1 room of A, then cancel it": nobody else can ever hold A's room, so every refusal it gets is
// false. Each buyer is its own Postgres session through the bridge calling the SQL function the route
// calls, at the same time as the others.
import { beforeAll, describe, expect, it } from "vitest";
import { connect, freshDatabase, sql } from "../support";

let db: string;
beforeAll(async () => {
  db = await freshDatabase("inventory_false_short");
});

const ITEM = "false-short/hotel";
const A = "2031-05-01";
const B = "2031-05-02";
const C = "2031-05-03";
const LOCK_MS = 5_000;
const BOOK = "SELECT admit_inventory_book($1, $2::date, $3::date, $4::integer, $5, NULL, $6::integer) AS r";

type Book = { created: true; booking: { booking_id: string } } | { created: false; short: { date: string; available: number }[] };

/** Calls of the schema's PL/pgSQL functions in this database so far (track_functions is on for it). */
async function calls(): Promise<Record<string, number>> {
  const rows = await sql<{ funcname: string; calls: string }>(db, "SELECT funcname, calls FROM pg_stat_user_functions WHERE funcname LIKE 'admit_inventory_%'");
  return Object.fromEntries(rows.map((r) => [r.funcname, Number(r.calls)]));
}

describe("inventory: a refusal is a real shortage, never contention", () => {
  it("5 000 book-and-cancel rounds of the only free room while 12 buyers are refused on it: no false inventory-short", async () => {
    // Count function calls (a new session reads the setting; stats are flushed when sessions end).
    await sql(db, `DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET track_functions = ''pl''', current_database()); END $$`);
    await sql(db, "SELECT admit_inventory_set_stock($1, $2::date, $3::date, 1, $4)", [ITEM, A, B, LOCK_MS]);
    await sql(db, "SELECT admit_inventory_set_stock($1, $2::date, $3::date, 0, $4)", [ITEM, B, C, LOCK_MS]);
    const before = await calls();

    const ROUNDS = 5_000;
    let done = false;
    const free = { created: 0, falseShort: [] as unknown[], other: [] as unknown[] };
    const refused = { short: 0, created: 0 };

    const buyer = async () => {
      const c = await connect(db);
      try {
        for (let i = 0; i < ROUNDS; i++) {
          const [{ r }] = (await c.query(BOOK, [ITEM, A, B, 1, "the-only-buyer", LOCK_MS])).rows as { r: Book }[];
          if (r.created) {
            free.created++;
            await c.query("SELECT admit_inventory_cancel($1, $2::uuid, $3)", [ITEM, r.booking.booking_id, LOCK_MS]);
          } else free.falseShort.push(r.short);
        }
      } finally {
        done = true;
        await c.end();
      }
    };
    const refusedBuyer = async (n: number) => {
      const c = await connect(db);
      try {
        const [to, quantity] = n % 2 === 0 ? [C, 1] : [B, 2];
        while (!done) {
          const [{ r }] = (await c.query(BOOK, [ITEM, A, to, quantity, `refused-${n}`, LOCK_MS])).rows as { r: Book }[];
          if (r.created) refused.created++;
          else refused.short++;
        }
      } finally {
        await c.end();
      }
    };
    await Promise.all([buyer(), ...Array.from({ length: 12 }, (_, n) => refusedBuyer(n))]);

    // The contention, measured: every fast claim beyond one per booking call came up short under
    // SKIP LOCKED (only the free buyer's can: the others are refused at the exact count), and each
    // waiting claim is a booking that met that three times in a row.
    const after = await calls();
    const delta = (f: string) => (after[f] ?? 0) - (before[f] ?? 0);
    const shortClaims = delta("admit_inventory_claim") - delta("admit_inventory_book");
    console.log(
      `[inventory false-short] free buyer: ${free.created} created, ${free.falseShort.length} refused as short; ` +
        `other buyers: ${refused.short} refused, ${refused.created} created; ` +
        `fast claims that came up short on contention alone: ${shortClaims}; waiting claims: ${delta("admit_inventory_claim_waiting")}`,
    );

    expect(refused.created).toBe(0);
    expect(free.falseShort).toEqual([]);
    expect(free.created).toBe(ROUNDS);
    // The loop did contend: the refused buyers ran throughout and some claims met a locked room.
    expect(refused.short).toBeGreaterThan(ROUNDS);
    expect(shortClaims).toBeGreaterThan(0);
    // And A's room is free afterwards.
    const [{ r }] = await sql<{ r: { available: number }[] }>(db, "SELECT admit_inventory_availability($1, $2::date, $3::date) AS r", [ITEM, A, B]);
    expect(r[0].available).toBe(1);
  }, 600_000);
});
