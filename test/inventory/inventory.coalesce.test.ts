// Bookings in flight together go to Postgres as one statement (functions/core/coalesce/,
// admit_inventory_book_batch in schema/000106), against real Postgres with real simultaneous requests:
// still never a room sold twice, every 201 stored and nothing else, a refusal only when the night is
// really full, and an item whose rooms are held elsewhere answers for its own requests only.
import { describe, expect, it } from "vitest";
import { BOOK_SQL, bookCoalescing, MAX_BOOKING_BATCH } from "../../functions/inventory/sql";
import { bindings, connect, SUITE_BUDGET_MS, servedApp, sql, whileHolding, withServedApp } from "../support";

const suite = servedApp("inventory_coalesce", { COALESCE: "on" });

const NIGHT = "2031-09-01";
const NEXT = "2031-09-02";

function tally(results: Array<{ status: number }>) {
  const counts: Record<number, number> = {};
  for (const r of results) counts[r.status] = (counts[r.status] ?? 0) + 1;
  return counts;
}

const stock = (item: string, quantity: number) => suite.api("PUT", `/v1/inventory/${encodeURIComponent(item)}/stock`, { from: NIGHT, to: NEXT, quantity });
const booking = (holder: string, quantity = 1) => ({ check_in: NIGHT, check_out: NEXT, quantity, holder });

describe("bookings in flight together go to Postgres as one statement", () => {
  it("300 at once: 200 one-room bookings of a 50-room night (exactly 50 × 201) and 100 of items of their own (each 201), in batches", async () => {
    expect((await stock("co/hotel", 50)).status).toBe(200);
    for (let i = 0; i < 100; i++) expect((await stock(`co/own-${i}`, 1)).status).toBe(200);
    const before = { ...bookCoalescing };
    const calls = [
      ...Array.from({ length: 200 }, (_, i) => ["co/hotel", booking(`h${i}`)] as const),
      ...Array.from({ length: 100 }, (_, i) => [`co/own-${i}`, booking("x")] as const),
    ];
    const results = await Promise.all(calls.map(([item, b]) => suite.api("POST", `/v1/inventory/${encodeURIComponent(item)}/bookings`, b)));
    expect(tally(results.slice(0, 200))).toEqual({ 201: 50, 409: 150 });
    expect(tally(results.slice(200))).toEqual({ 201: 100 });
    // Every refusal says the night is full, and the database holds exactly the 201s, each on a room of its own.
    for (const r of results.slice(0, 200).filter((x) => x.status === 409)) expect(r.json.short).toEqual([{ date: NIGHT, available: 0 }]);
    const created = results
      .slice(0, 200)
      .filter((r) => r.status === 201)
      .map((r) => r.json.booking_id)
      .sort();
    const stored = await sql<{ id: string; rooms: number }>(
      suite.db,
      "SELECT b.id::text, (SELECT count(*) FROM inventory_tokens t WHERE t.booking_id = b.id)::int AS rooms FROM inventory_bookings b WHERE b.item = 'co/hotel' ORDER BY b.id",
    );
    expect(stored.map((b) => b.id)).toEqual(created);
    expect(stored.every((b) => b.rooms === 1)).toBe(true);
    const batched = bookCoalescing.batched - before.batched;
    console.log("inventory coalescing:", { statements: bookCoalescing.alone - before.alone + (bookCoalescing.batches - before.batches), batched });
    expect(bookCoalescing.batches - before.batches).toBeGreaterThan(0);
    expect(bookCoalescing.alone - before.alone + batched).toBe(300);
    expect(batched / (bookCoalescing.batches - before.batches)).toBeLessThanOrEqual(MAX_BOOKING_BATCH);
  }, 120_000);

  it("a batch answers as the same bookings one by one would: rooms, refusals with their counts, holds", async () => {
    // Two items stocked alike: one booked through the batch function, its twin through the one-booking function, in the same order.
    const items = (item: string) => [
      [item, NIGHT, "2031-09-04", 2, "a", null],
      [item, NIGHT, NEXT, 1, "b", 60_000],
      [item, "2031-09-02", "2031-09-04", 2, "c", null],
      [item, NIGHT, NEXT, 1, "d", null],
      [item, "2031-09-03", "2031-09-05", 1, "e", null],
      [item, NIGHT, "2031-09-05", 1, "f", null],
    ];
    for (const item of ["co/batch", "co/alone"]) {
      expect((await suite.api("PUT", `/v1/inventory/${encodeURIComponent(item)}/stock`, { from: NIGHT, to: "2031-09-04", quantity: 3 })).status).toBe(200);
      expect((await suite.api("PUT", `/v1/inventory/${encodeURIComponent(item)}/stock`, { from: "2031-09-04", to: "2031-09-05", quantity: 1 })).status).toBe(
        200,
      );
    }
    const [{ r: batch }] = await sql<{ r: any[] }>(suite.db, "SELECT admit_inventory_book_batch($1::jsonb, 2000) AS r", [
      JSON.stringify(
        items("co/batch").map(([item, check_in, check_out, quantity, holder, hold_ms]) => ({ item, check_in, check_out, quantity, holder, hold_ms })),
      ),
    ]);
    const c = await connect(suite.db);
    const alone: any[] = [];
    try {
      for (const args of items("co/alone")) alone.push((await c.query(BOOK_SQL, [...args, 2000])).rows[0].r);
    } finally {
      await c.end();
    }
    const shape = (r: any) =>
      r.created
        ? { created: true, quantity: r.booking.quantity, holder: r.booking.holder, status: r.booking.status, nights: [r.booking.check_in, r.booking.check_out] }
        : r;
    expect(batch.map(shape)).toEqual(alone.map(shape));
    expect(batch.filter((r) => !r.created).length).toBeGreaterThan(0);
    const nights = (item: string) => sql(suite.db, "SELECT admit_inventory_availability($1, $2::date, '2031-09-05'::date) AS a", [item, NIGHT]);
    expect(await nights("co/batch")).toEqual(await nights("co/alone"));
  });

  it("runs of bookings alike (a burst on one stay) are made together and answer as the same bookings one by one: rooms, refusals with their counts, holds, lapsed holds", async () => {
    // schema/000108: consecutive bookings of one item, stay and quantity claim their rooms at once;
    // the first ones the rooms fill are made together, the rest of the run one by one.
    const items = (item: string) => [
      // 5 rooms on the 1st and 2nd: two of these three fit (2 + 2), the third is refused with 1 left on each night.
      [item, NIGHT, "2031-09-03", 2, "a1", null],
      [item, NIGHT, "2031-09-03", 2, "a2", 60_000],
      [item, NIGHT, "2031-09-03", 2, "a3", null],
      // One room left on the 2nd: the first of the two gets it.
      [item, "2031-09-02", "2031-09-03", 1, "b1", 60_000],
      [item, "2031-09-02", "2031-09-03", 1, "b2", null],
      [item, "2031-09-03", "2031-09-05", 1, "c", null],
      // 5 rooms on the 3rd, one taken by "c", one of them a lapsed hold's: all four fit.
      [item, "2031-09-03", "2031-09-04", 1, "d1", 60_000],
      [item, "2031-09-03", "2031-09-04", 1, "d2", null],
      [item, "2031-09-03", "2031-09-04", 1, "d3", 60_000],
      [item, "2031-09-03", "2031-09-04", 1, "d4", null],
      // 2 rooms on the 4th: "c" took the free one, the lapsed hold's is left: the first of these gets it.
      [item, "2031-09-04", "2031-09-05", 1, "e1", null],
      [item, "2031-09-04", "2031-09-05", 1, "e2", null],
      [item, "2031-09-04", "2031-09-05", 1, "e3", null],
    ];
    const c = await connect(suite.db);
    try {
      for (const item of ["co/run-batch", "co/run-alone"]) {
        expect((await suite.api("PUT", `/v1/inventory/${encodeURIComponent(item)}/stock`, { from: NIGHT, to: "2031-09-04", quantity: 5 })).status).toBe(200);
        expect((await suite.api("PUT", `/v1/inventory/${encodeURIComponent(item)}/stock`, { from: "2031-09-04", to: "2031-09-05", quantity: 2 })).status).toBe(
          200,
        );
        // Holds that lapse before the bookings: their rooms are free again.
        for (const [from, to] of [
          ["2031-09-03", "2031-09-04"],
          ["2031-09-04", "2031-09-05"],
        ])
          expect((await c.query(BOOK_SQL, [item, from, to, 1, "lapsing", 1, 2000])).rows[0].r.created).toBe(true);
      }
      await new Promise((r) => setTimeout(r, 50));
      const [{ r: batch }] = await sql<{ r: any[] }>(suite.db, "SELECT admit_inventory_book_batch($1::jsonb, 2000) AS r", [
        JSON.stringify(
          items("co/run-batch").map(([item, check_in, check_out, quantity, holder, hold_ms]) => ({ item, check_in, check_out, quantity, holder, hold_ms })),
        ),
      ]);
      const alone: any[] = [];
      for (const args of items("co/run-alone")) alone.push((await c.query(BOOK_SQL, [...args, 2000])).rows[0].r);
      const shape = (r: any) =>
        r.created
          ? {
              created: true,
              quantity: r.booking.quantity,
              holder: r.booking.holder,
              status: r.booking.status,
              nights: [r.booking.check_in, r.booking.check_out],
            }
          : r;
      expect(batch.map(shape)).toEqual(alone.map(shape));
      expect(batch.map((r) => r.created)).toEqual([true, true, false, true, false, true, true, true, true, true, true, false, false]);
      expect(batch[2].short).toEqual([
        { date: NIGHT, available: 1 },
        { date: "2031-09-02", available: 1 },
      ]);
      const nights = (item: string) => sql(suite.db, "SELECT admit_inventory_availability($1, $2::date, '2031-09-05'::date) AS a", [item, NIGHT]);
      expect(await nights("co/run-batch")).toEqual(await nights("co/run-alone"));
      // Every booking made holds exactly quantity × nights rooms, each room one booking's, held until its hold's expiry.
      const rooms = await sql<{ holder: string; rooms: number; nights: number; quantity: number; holds: boolean }>(
        suite.db,
        `SELECT b.holder, count(t.id)::int AS rooms, (b.check_out - b.check_in)::int AS nights, b.quantity,
                bool_and(t.held_until IS NOT DISTINCT FROM b.expires_at) AS holds
           FROM inventory_bookings b JOIN inventory_tokens t ON t.booking_id = b.id
          WHERE b.item = 'co/run-batch' AND b.holder <> 'lapsing' GROUP BY b.id ORDER BY b.holder`,
      );
      expect(rooms.map((r) => r.holder)).toEqual(["a1", "a2", "b1", "c", "d1", "d2", "d3", "d4", "e1"]);
      for (const r of rooms) expect(r).toMatchObject({ rooms: r.nights * r.quantity, holds: true });

      // A run with room for all is made together: none of its bookings went through admit_inventory_book,
      // whose claim is a subtransaction each (000107's batch: 8 subtransaction xids here).
      expect((await stock("co/run-made", 8)).status).toBe(200);
      await c.query("BEGIN");
      const [{ r: made }] = (
        await c.query("SELECT admit_inventory_book_batch($1::jsonb, 2000) AS r", [
          JSON.stringify(Array.from({ length: 8 }, (_, i) => ({ ...booking(`m${i}`), item: "co/run-made", hold_ms: null }))),
        ])
      ).rows;
      const [sub] = (
        await c.query(
          "SELECT s.subxact_count::int AS count FROM pg_stat_get_backend_idset() id, pg_stat_get_backend_subxact(id) s WHERE pg_stat_get_backend_pid(id) = pg_backend_pid()",
        )
      ).rows;
      await c.query("COMMIT");
      expect(made.map((r: { created: boolean; booking: { holder: string } }) => r.created && r.booking.holder)).toEqual(
        Array.from({ length: 8 }, (_, i) => `m${i}`),
      );
      expect(sub.count).toBe(0);
    } finally {
      await c.end();
    }
  });

  it("an item whose rooms are held elsewhere: its bookings answer lock-timeout, the others in the same batches are booked", async () => {
    expect((await stock("co/held", 5)).status).toBe(200);
    for (let i = 0; i < 80; i++) if (i % 8 !== 0) expect((await stock(`co/free-${i}`, 1)).status).toBe(200);
    const before = { ...bookCoalescing };
    const results = await whileHolding(suite.db, "SELECT 1 FROM inventory_tokens WHERE item = 'co/held' FOR UPDATE", [], () =>
      withServedApp(bindings(suite.db, { COALESCE: "on", LOCK_TIMEOUT_MS: "300", DB_BUDGET_MS: SUITE_BUDGET_MS }), (api) =>
        Promise.all(
          Array.from({ length: 80 }, (_, i) => {
            const item = i % 8 === 0 ? "co/held" : `co/free-${i}`;
            return api("POST", `/v1/inventory/${encodeURIComponent(item)}/bookings`, booking("h"));
          }),
        ),
      ),
    );
    expect(tally(results.filter((_, i) => i % 8 === 0))).toEqual({ 503: 10 });
    expect(tally(results.filter((_, i) => i % 8 !== 0))).toEqual({ 201: 70 });
    console.log("inventory isolation:", { batches: bookCoalescing.batches - before.batches, fallbacks: bookCoalescing.fallbacks - before.fallbacks });
    expect(await sql(suite.db, "SELECT count(*)::int AS n FROM inventory_bookings WHERE item LIKE 'co/free-%'")).toEqual([{ n: 70 }]);
    expect(await sql(suite.db, "SELECT count(*)::int AS n FROM inventory_bookings WHERE item = 'co/held'")).toEqual([{ n: 0 }]);
  }, 120_000);
});

describe("a batch never waits for rooms while it holds rooms", () => {
  it("a stock change locking two nights' rooms in (night, slot) order, against a batch that took the second night and is short on the first: no deadlock, the batch fails at once (sent again alone)", async () => {
    const item = "co/cycle";
    expect((await suite.api("PUT", `/v1/inventory/${encodeURIComponent(item)}/stock`, { from: NIGHT, to: "2031-09-03", quantity: 1 })).status).toBe(200);
    // What a lowering of stock does in its slow pass: the nights' free rooms, locked in (night, slot) order, first night first.
    const change = await connect(suite.db);
    const batch = await connect(suite.db);
    try {
      await change.query("BEGIN");
      await change.query("SELECT id FROM inventory_tokens WHERE item = $1 AND night = $2::date ORDER BY slot FOR UPDATE", [item, NIGHT]);
      const [{ pid }] = (await batch.query("SELECT pg_backend_pid() AS pid")).rows;
      // The batch books the second night (it then holds that room), then the first: its claim skips the locked room and comes up short.
      const sent = batch
        .query("SELECT admit_inventory_book_batch($1::jsonb, 10000) AS r", [
          JSON.stringify([
            { item, check_in: "2031-09-02", check_out: "2031-09-03", quantity: 1, holder: "second-night", hold_ms: null },
            { item, check_in: NIGHT, check_out: NEXT, quantity: 1, holder: "first-night", hold_ms: null },
          ]),
        ])
        .then(
          () => ({ code: "ok" }),
          (e: { code?: string }) => ({ code: e.code }),
        );
      // Until the batch has failed or waits for the first night's room.
      let settled: { code?: string } | null = null;
      void sent.then((s) => (settled = s));
      for (let i = 0; i < 200 && !settled; i++) {
        const [{ waiting }] = (await change.query("SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock'", [pid]))
          .rows;
        if (waiting > 0) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      // The stock change goes on to the second night. Had the batch waited holding that night's room, this closed a cycle (40P01 after deadlock_timeout).
      const next = await change.query("SELECT id FROM inventory_tokens WHERE item = $1 AND night = '2031-09-02'::date ORDER BY slot FOR UPDATE", [item]).then(
        () => "locked",
        (e: { code?: string }) => e.code,
      );
      expect(next).toBe("locked");
      // The batch gave up its wait instead (a lock wait it may not make: 55P03, which the coalescer answers by sending each booking again alone).
      expect(await sent).toEqual({ code: "55P03" });
    } finally {
      await change.query("ROLLBACK").catch(() => {});
      await change.end();
      await batch.end();
    }
  }, 60_000);
});

describe("a full batch stays within Postgres's cache of subtransactions", () => {
  it(`MAX_BOOKING_BATCH bookings in one statement, booked and refused mixed: at most one subtransaction xid each, never overflowed (past 64 other sessions' snapshots read pg_subtrans)`, async () => {
    const item = "co/subxacts";
    expect((await stock(item, Math.floor(MAX_BOOKING_BATCH / 2))).status).toBe(200);
    const c = await connect(suite.db);
    try {
      await c.query("BEGIN");
      const [{ r }] = (
        await c.query("SELECT admit_inventory_book_batch($1::jsonb, 10000) AS r", [
          JSON.stringify(Array.from({ length: MAX_BOOKING_BATCH }, (_, i) => ({ ...booking(`s${i}`), item, hold_ms: null }))),
        ])
      ).rows;
      expect(r.filter((x: { created: boolean }) => x.created)).toHaveLength(Math.floor(MAX_BOOKING_BATCH / 2));
      // This session's own entry (pg_stat_get_backend_subxact, Postgres 16+), read inside the transaction that made them.
      const [sub] = (
        await c.query(
          "SELECT s.subxact_count::int AS count, s.subxact_overflowed AS overflowed FROM pg_stat_get_backend_idset() id, pg_stat_get_backend_subxact(id) s WHERE pg_stat_get_backend_pid(id) = pg_backend_pid()",
        )
      ).rows;
      console.log("subtransactions of a full booking batch:", sub);
      expect(sub.overflowed).toBe(false);
      expect(sub.count).toBeLessThanOrEqual(MAX_BOOKING_BATCH);
      expect(MAX_BOOKING_BATCH).toBeLessThanOrEqual(64);
    } finally {
      await c.query("ROLLBACK").catch(() => {});
      await c.end();
    }
  }, 60_000);
});
