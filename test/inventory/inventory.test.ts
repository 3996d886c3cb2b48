// The inventory contract over real HTTP against real Postgres: stock, availability, bookings,
// holds that expire on the database clock, confirmation, cancellation, the sweeper.
import { describe, expect, it } from "vitest";
import { sweep } from "../../functions/core/sweep";
import { bindings, servedApp, sql } from "../support";

// The database's TimeZone has DST that skips midnight (America/Santiago, 2024-09-08 00:00 → 01:00):
// nights are dates, and nothing about them may depend on the session's zone.
const suite = servedApp("inventory", {}, { timezone: "America/Santiago" });

const stock = (item: string, from: string, to: string, quantity: number) =>
  suite.api("PUT", `/v1/inventory/${encodeURIComponent(item)}/stock`, { from, to, quantity });
const book = (item: string, check_in: string, check_out: string, quantity: number, extra: Record<string, unknown> = {}) =>
  suite.api("POST", `/v1/inventory/${encodeURIComponent(item)}/bookings`, { check_in, check_out, quantity, holder: "h", ...extra });
const availability = async (item: string, from: string, to: string) => {
  const res = await suite.api("GET", `/v1/inventory/${encodeURIComponent(item)}/availability?from=${from}&to=${to}`);
  expect(res.status).toBe(200);
  for (const n of res.json.nights) expect(n.available).toBe(n.capacity - n.booked - n.held);
  return res.json.nights as { date: string; capacity: number; booked: number; held: number; available: number }[];
};
const path = (item: string, id: string, tail = "") => `/v1/inventory/${encodeURIComponent(item)}/bookings/${id}${tail}`;

/** Moves a hold's expiry into the past on the database side (the clock input tests use instead of sleeping). */
const expireNow = (id: string) =>
  sql(
    suite.db,
    `WITH b AS (UPDATE inventory_bookings SET expires_at = now() - interval '1 second' WHERE id = $1 RETURNING id, status)
     UPDATE inventory_tokens t SET held_until = now() - interval '1 second' FROM b WHERE t.booking_id = b.id AND b.status = 'held'`,
    [id],
  );

/** Per night, what the token rows say: free (never taken), confirmed, held (any), and whose. */
const tokens = (item: string) =>
  sql<{ night: string; total: number; free: number; confirmed: number; held: number }>(
    suite.db,
    `SELECT night::text AS night, count(*)::int AS total, count(*) FILTER (WHERE booking_id IS NULL)::int AS free,
            count(*) FILTER (WHERE booking_id IS NOT NULL AND held_until IS NULL)::int AS confirmed,
            count(*) FILTER (WHERE held_until IS NOT NULL)::int AS held
       FROM inventory_tokens WHERE item = $1 GROUP BY night ORDER BY night`,
    [item],
  );

describe("nights across a DST change that skips midnight (session TimeZone America/Santiago)", () => {
  it("the database really runs in that zone", async () => {
    expect(await sql(suite.db, "SELECT current_setting('TimeZone') AS tz")).toEqual([{ tz: "America/Santiago" }]);
  });

  it("stock over 2024-09-08 … 2024-09-10 (the first night starts at the skipped midnight) stocks both nights; bookings take both or answer 409 naming the night", async () => {
    const res = await stock("dst/room", "2024-09-08", "2024-09-10", 2);
    expect(res.status).toBe(200);
    expect(res.json.nights.map((n: { date: string; capacity: number }) => [n.date, n.capacity])).toEqual([
      ["2024-09-08", 2],
      ["2024-09-09", 2],
    ]);
    expect(await tokens("dst/room")).toEqual([
      { night: "2024-09-08", total: 2, free: 2, confirmed: 0, held: 0 },
      { night: "2024-09-09", total: 2, free: 2, confirmed: 0, held: 0 },
    ]);
    const booked = await book("dst/room", "2024-09-08", "2024-09-10", 2);
    expect(booked.status).toBe(201);
    expect((await tokens("dst/room")).map((t) => [t.night, t.confirmed])).toEqual([
      ["2024-09-08", 2],
      ["2024-09-09", 2],
    ]);
    const short = await book("dst/room", "2024-09-08", "2024-09-10", 1);
    expect(short.status).toBe(409);
    expect(short.json).toMatchObject({
      type: "/problems/inventory-short",
      short: [
        { date: "2024-09-08", available: 0 },
        { date: "2024-09-09", available: 0 },
      ],
    });
    expect((await availability("dst/room", "2024-09-08", "2024-09-10")).map((n) => [n.date, n.booked])).toEqual([
      ["2024-09-08", 2],
      ["2024-09-09", 2],
    ]);
  });

  it("a booking whose first night starts at the skipped midnight takes every night (stock set night by night)", async () => {
    expect((await stock("dst/single", "2024-09-08", "2024-09-09", 1)).status).toBe(200);
    expect((await stock("dst/single", "2024-09-09", "2024-09-10", 1)).status).toBe(200);
    const res = await book("dst/single", "2024-09-08", "2024-09-10", 1);
    expect(res.status).toBe(201);
    expect((await tokens("dst/single")).map((t) => [t.night, t.confirmed])).toEqual([
      ["2024-09-08", 1],
      ["2024-09-09", 1],
    ]);
  });
});

describe("stock", () => {
  it("sets capacity per night (to exclusive) and answers the nights", async () => {
    const res = await stock("hotel/a", "2030-03-29", "2030-04-01", 10);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      item: "hotel/a",
      from: "2030-03-29",
      to: "2030-04-01",
      nights: ["2030-03-29", "2030-03-30", "2030-03-31"].map((date) => ({ date, capacity: 10, booked: 0, held: 0, available: 10 })),
    });
    // Raising and re-setting is fine.
    expect((await stock("hotel/a", "2030-03-30", "2030-03-31", 12)).json.nights).toEqual([
      { date: "2030-03-30", capacity: 12, booked: 0, held: 0, available: 12 },
    ]);
  });

  it("lowering below booked + held → 409 naming the nights, nothing changed", async () => {
    await stock("hotel/b", "2030-05-01", "2030-05-04", 5);
    expect((await book("hotel/b", "2030-05-02", "2030-05-04", 3)).status).toBe(201);
    expect((await book("hotel/b", "2030-05-03", "2030-05-04", 1, { hold_ms: 60_000 })).status).toBe(201);
    const res = await stock("hotel/b", "2030-05-01", "2030-05-04", 3);
    expect(res.status).toBe(409);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(res.json.type).toBe("/problems/stock-below-taken");
    expect(res.json.nights).toEqual([{ date: "2030-05-03", capacity: 5, booked: 3, held: 1 }]);
    expect((await availability("hotel/b", "2030-05-01", "2030-05-04")).map((n) => n.capacity)).toEqual([5, 5, 5]);
    // Down to exactly what is taken is allowed.
    expect((await stock("hotel/b", "2030-05-01", "2030-05-04", 4)).status).toBe(200);
    expect((await availability("hotel/b", "2030-05-01", "2030-05-04")).map((n) => n.available)).toEqual([4, 1, 0]);
  });

  it.each([
    [{ from: "2030-01-02", to: "2030-01-02", quantity: 1 }, "to"],
    [{ from: "2030-01-02", to: "2030-01-01", quantity: 1 }, "to"],
    [{ from: "2030-01-01", to: "2031-01-03", quantity: 1 }, "to"],
    [{ from: "2030-02-30", to: "2030-03-02", quantity: 1 }, "from"],
    [{ from: "2030-01-01T00:00:00Z", to: "2030-01-02", quantity: 1 }, "from"],
    [{ from: "2030-01-01", to: "2030-01-02", quantity: -1 }, "quantity"],
    [{ from: "2030-01-01", to: "2030-01-02", quantity: 1.5 }, "quantity"],
    [{ from: "2030-01-01", to: "2030-01-02" }, "quantity"],
    [{ from: "2030-01-01", to: "2030-01-02", quantity: 10_001 }, "quantity"],
    [{ from: "2030-01-01", to: "2030-12-31", quantity: 300 }, "quantity"],
  ])("422 for %j", async (body, field) => {
    const res = await suite.api("PUT", "/v1/inventory/x/stock", body);
    expect(res.status).toBe(422);
    expect(res.json.errors.map((e: { path: string }) => e.path)).toContain(field);
  });

  it("366 nights at once is the limit", async () => {
    expect((await stock("hotel/year", "2032-01-01", "2033-01-01", 2)).json.nights).toHaveLength(366);
    expect((await availability("hotel/year", "2032-01-01", "2033-01-01")).length).toBe(366);
    expect((await suite.api("GET", "/v1/inventory/hotel%2Fyear/availability?from=2032-01-01&to=2033-01-02")).status).toBe(422);
  });
});

describe("bookings", () => {
  it("books every night or nothing; 409 lists the short nights, including nights without stock", async () => {
    await stock("hotel/c", "2030-06-01", "2030-06-04", 2);
    const ok = await book("hotel/c", "2030-06-01", "2030-06-03", 2, { holder: "alice" });
    expect(ok.status).toBe(201);
    expect(ok.json).toMatchObject({
      item: "hotel/c",
      holder: "alice",
      check_in: "2030-06-01",
      check_out: "2030-06-03",
      quantity: 2,
      status: "confirmed",
      expires_at: null,
    });
    expect(ok.headers.get("location")).toBe(path("hotel/c", ok.json.booking_id));

    // Night 06-03 is free, 06-02 is full, 06-04 has no stock: 409 and nothing taken on 06-03.
    const short = await book("hotel/c", "2030-06-02", "2030-06-05", 1);
    expect(short.status).toBe(409);
    expect(short.json.type).toBe("/problems/inventory-short");
    expect(short.json.short).toEqual([
      { date: "2030-06-02", available: 0 },
      { date: "2030-06-04", available: 0 },
    ]);
    expect(await availability("hotel/c", "2030-06-01", "2030-06-05")).toEqual([
      { date: "2030-06-01", capacity: 2, booked: 2, held: 0, available: 0 },
      { date: "2030-06-02", capacity: 2, booked: 2, held: 0, available: 0 },
      { date: "2030-06-03", capacity: 2, booked: 0, held: 0, available: 2 },
      { date: "2030-06-04", capacity: 0, booked: 0, held: 0, available: 0 },
    ]);
    const rows = await sql(suite.db, "SELECT holder FROM inventory_bookings WHERE item = 'hotel/c'");
    expect(rows).toEqual([{ holder: "alice" }]);
  });

  it.each([
    [{ check_in: "2030-01-02", check_out: "2030-01-02", quantity: 1, holder: "h" }, "check_out"],
    [{ check_in: "2030-01-03", check_out: "2030-01-02", quantity: 1, holder: "h" }, "check_out"],
    [{ check_in: "2030-01-01", check_out: "2030-01-02", quantity: 0, holder: "h" }, "quantity"],
    [{ check_in: "2030-01-01", check_out: "2030-01-02", quantity: -2, holder: "h" }, "quantity"],
    [{ check_in: "2030-01-01", check_out: "2030-01-02", quantity: 1 }, "holder"],
    [{ check_in: "2030-01-01", check_out: "2030-01-02", quantity: 1, holder: "h", hold_ms: 0 }, "hold_ms"],
    [{ check_in: "01/01/2030", check_out: "2030-01-02", quantity: 1, holder: "h" }, "check_in"],
  ])("422 for %j", async (body, field) => {
    const res = await suite.api("POST", "/v1/inventory/x/bookings", body);
    expect(res.status).toBe(422);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(res.json.errors.map((e: { path: string }) => e.path)).toContain(field);
  });

  it("GET a booking; 404 for unknown ids, malformed ids and another item's booking", async () => {
    await stock("hotel/d", "2030-07-01", "2030-07-02", 1);
    const made = await book("hotel/d", "2030-07-01", "2030-07-02", 1);
    const got = await suite.api("GET", path("hotel/d", made.json.booking_id));
    expect(got.status).toBe(200);
    expect(got.json).toEqual(made.json);
    expect((await suite.api("GET", path("hotel/other", made.json.booking_id))).status).toBe(404);
    expect((await suite.api("GET", path("hotel/d", "00000000-0000-0000-0000-000000000000"))).status).toBe(404);
    expect((await suite.api("GET", path("hotel/d", "nope"))).status).toBe(404);
    expect((await suite.api("DELETE", path("hotel/d", "nope"))).status).toBe(404);
    expect((await suite.api("POST", path("hotel/d", "00000000-0000-0000-0000-000000000000", "/confirm"))).status).toBe(404);
  });

  it("cancellation returns the stock at once, keeps history, and is idempotent", async () => {
    await stock("hotel/e", "2030-08-01", "2030-08-03", 3);
    const a = await book("hotel/e", "2030-08-01", "2030-08-03", 3);
    expect((await book("hotel/e", "2030-08-02", "2030-08-03", 1)).status).toBe(409);
    expect((await suite.api("DELETE", path("hotel/e", a.json.booking_id))).status).toBe(204);
    expect((await availability("hotel/e", "2030-08-01", "2030-08-03")).map((n) => n.available)).toEqual([3, 3]);
    const after = await suite.api("GET", path("hotel/e", a.json.booking_id));
    expect(after.json.status).toBe("cancelled");
    expect(after.json.cancelled_at).toMatch(/Z$/);
    expect((await suite.api("DELETE", path("hotel/e", a.json.booking_id))).status).toBe(204);
    expect((await suite.api("GET", path("hotel/e", a.json.booking_id))).json.cancelled_at).toBe(after.json.cancelled_at);
    expect((await availability("hotel/e", "2030-08-01", "2030-08-03")).map((n) => n.available)).toEqual([3, 3]);
    expect((await book("hotel/e", "2030-08-01", "2030-08-03", 3)).status).toBe(201);
    // A cancelled booking cannot be confirmed.
    const confirm = await suite.api("POST", path("hotel/e", a.json.booking_id, "/confirm"));
    expect(confirm.status).toBe(409);
    expect(confirm.json.type).toBe("/problems/booking-cancelled");
  });
});

describe("holds", () => {
  it("a hold blocks stock until expires_at, then the same rooms sell again; confirm after expiry → 409", async () => {
    await stock("hotel/f", "2030-09-01", "2030-09-03", 2);
    const hold = await book("hotel/f", "2030-09-01", "2030-09-03", 2, { hold_ms: 600_000 });
    expect(hold.status).toBe(201);
    expect(hold.json.status).toBe("held");
    expect(Date.parse(hold.json.expires_at) - Date.parse(hold.json.created_at)).toBe(600_000);
    expect((await availability("hotel/f", "2030-09-01", "2030-09-03")).map((n) => [n.held, n.available])).toEqual([
      [2, 0],
      [2, 0],
    ]);
    const blocked = await book("hotel/f", "2030-09-02", "2030-09-03", 1);
    expect(blocked.status).toBe(409);
    expect(blocked.json.short).toEqual([{ date: "2030-09-02", available: 0 }]);

    await expireNow(hold.json.booking_id);
    expect((await suite.api("GET", path("hotel/f", hold.json.booking_id))).json.status).toBe("expired");
    expect((await availability("hotel/f", "2030-09-01", "2030-09-03")).map((n) => [n.held, n.available])).toEqual([
      [0, 2],
      [0, 2],
    ]);
    const resold = await book("hotel/f", "2030-09-01", "2030-09-03", 2);
    expect(resold.status).toBe(201);

    const confirm = await suite.api("POST", path("hotel/f", hold.json.booking_id, "/confirm"));
    expect(confirm.status).toBe(409);
    expect(confirm.json.type).toBe("/problems/hold-expired");
    expect(confirm.json.booking.status).toBe("expired");
    expect(await availability("hotel/f", "2030-09-01", "2030-09-03")).toEqual([
      { date: "2030-09-01", capacity: 2, booked: 2, held: 0, available: 0 },
      { date: "2030-09-02", capacity: 2, booked: 2, held: 0, available: 0 },
    ]);
    // The new booking owns the very tokens the lapsed hold had; the hold owns none.
    expect(await tokens("hotel/f")).toEqual([
      { night: "2030-09-01", total: 2, free: 0, confirmed: 2, held: 0 },
      { night: "2030-09-02", total: 2, free: 0, confirmed: 2, held: 0 },
    ]);
    expect(await sql(suite.db, "SELECT count(*)::int AS n FROM inventory_tokens WHERE booking_id = $1", [hold.json.booking_id])).toEqual([{ n: 0 }]);
  });

  it("a real short hold lapses on the database clock (polled, no fixed sleep), and nothing sold before expires_at", async () => {
    await stock("hotel/g", "2030-10-01", "2030-10-02", 1);
    const hold = await book("hotel/g", "2030-10-01", "2030-10-02", 1, { hold_ms: 1500 });
    expect(hold.status).toBe(201);
    let second: Awaited<ReturnType<typeof book>> | undefined;
    for (let i = 0; i < 200; i++) {
      second = await book("hotel/g", "2030-10-01", "2030-10-02", 1, { holder: "next" });
      if (second.status === 201) break;
      expect(second.status).toBe(409);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(second!.status).toBe(201);
    // The database's own record: the second booking was made at or after the hold lapsed.
    expect(Date.parse(second!.json.created_at)).toBeGreaterThanOrEqual(Date.parse(hold.json.expires_at));
    expect((await suite.api("POST", path("hotel/g", hold.json.booking_id, "/confirm"))).status).toBe(409);
  });

  it("confirm before expiry: confirmed, never extended, counts move from held to booked; again → 200", async () => {
    await stock("hotel/h", "2030-11-01", "2030-11-04", 4);
    const hold = await book("hotel/h", "2030-11-01", "2030-11-04", 3, { hold_ms: 600_000 });
    const ok = await suite.api("POST", path("hotel/h", hold.json.booking_id, "/confirm"));
    expect(ok.status).toBe(200);
    expect(ok.json).toMatchObject({ status: "confirmed", expires_at: hold.json.expires_at, quantity: 3 });
    expect(ok.json.confirmed_at).toMatch(/Z$/);
    expect((await availability("hotel/h", "2030-11-01", "2030-11-04")).map((n) => [n.booked, n.held, n.available])).toEqual([
      [3, 0, 1],
      [3, 0, 1],
      [3, 0, 1],
    ]);
    // Confirmed bookings do not lapse: moving the old deadline into the past changes nothing.
    await expireNow(hold.json.booking_id);
    expect((await suite.api("GET", path("hotel/h", hold.json.booking_id))).json.status).toBe("confirmed");
    expect((await suite.api("POST", path("hotel/h", hold.json.booking_id, "/confirm"))).status).toBe(200);
    expect((await availability("hotel/h", "2030-11-01", "2030-11-04")).map((n) => n.available)).toEqual([1, 1, 1]);
  });

  it("cancelling a hold frees it at once", async () => {
    await stock("hotel/i", "2030-12-01", "2030-12-02", 1);
    const hold = await book("hotel/i", "2030-12-01", "2030-12-02", 1, { hold_ms: 600_000 });
    expect((await suite.api("DELETE", path("hotel/i", hold.json.booking_id))).status).toBe(204);
    expect((await availability("hotel/i", "2030-12-01", "2030-12-02"))[0]).toMatchObject({ held: 0, available: 1 });
    expect((await book("hotel/i", "2030-12-01", "2030-12-02", 1)).status).toBe(201);
  });

  it("the sweeper releases expired holds and marks them expired; live holds stay", async () => {
    await stock("hotel/j", "2031-01-01", "2031-01-04", 5);
    const old = await book("hotel/j", "2031-01-01", "2031-01-04", 2, { hold_ms: 600_000 });
    const live = await book("hotel/j", "2031-01-02", "2031-01-03", 1, { hold_ms: 600_000 });
    await expireNow(old.json.booking_id);
    const report = await sweep(bindings(suite.db));
    expect(report.inventory).toBe(7); // 2 rooms × 3 nights of tokens handed back + 1 booking marked
    expect((await tokens("hotel/j")).map((n) => [n.night, n.free, n.held])).toEqual([
      ["2031-01-01", 5, 0],
      ["2031-01-02", 4, 1],
      ["2031-01-03", 5, 0],
    ]);
    expect(await sql(suite.db, "SELECT status FROM inventory_bookings WHERE id = $1", [old.json.booking_id])).toEqual([{ status: "expired" }]);
    expect((await suite.api("GET", path("hotel/j", live.json.booking_id))).json.status).toBe("held");
    expect((await sweep(bindings(suite.db))).inventory).toBe(0);
  });
});

describe("with Idempotency-Key", () => {
  it("a retried booking with the same key is answered from the first run, and takes the rooms once", async () => {
    await stock("hotel/k", "2031-02-01", "2031-02-03", 3);
    const body = { check_in: "2031-02-01", check_out: "2031-02-03", quantity: 2, holder: "retry" };
    const first = await suite.api("POST", "/v1/inventory/hotel%2Fk/bookings", body, { "Idempotency-Key": "inv-k-1" });
    const again = await suite.api("POST", "/v1/inventory/hotel%2Fk/bookings", body, { "Idempotency-Key": "inv-k-1" });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.json.booking_id).toBe(first.json.booking_id);
    expect((await availability("hotel/k", "2031-02-01", "2031-02-03")).map((n) => n.available)).toEqual([1, 1]);
    expect(await sql(suite.db, "SELECT count(*)::int AS n FROM inventory_bookings WHERE item = 'hotel/k'")).toEqual([{ n: 1 }]);
  });
});

describe("changing existing stock costs what the change is", () => {
  it("3 nights of 5125 rooms lowered to 2565 and raised to 5000: 200 each, within the request's budget (was a 504)", async () => {
    expect((await stock("change/r", "2000-01-01", "2000-01-04", 5125)).status).toBe(200);
    const lowered = await stock("change/r", "2000-01-01", "2000-01-04", 2565);
    expect(lowered.status).toBe(200);
    expect(lowered.json.nights.map((n: { capacity: number }) => n.capacity)).toEqual([2565, 2565, 2565]);
    const raised = await stock("change/r", "2000-01-01", "2000-01-04", 5000);
    expect(raised.status).toBe(200);
    expect((await tokens("change/r")).map((t) => [t.total, t.free])).toEqual([
      [5000, 5000],
      [5000, 5000],
      [5000, 5000],
    ]);
    const [{ dup }] = await sql<{ dup: number }>(
      suite.db,
      "SELECT count(*) - count(DISTINCT (night, slot)) AS dup FROM inventory_tokens WHERE item = 'change/r'",
    );
    expect(Number(dup)).toBe(0);
  });

  it("the per-call bound is on rooms changed: re-setting 11 × 10 000 is fine, removing them all at once is a 422 naming the limit", async () => {
    expect((await stock("change/big", "2000-02-01", "2000-02-11", 10_000)).status).toBe(200);
    expect((await stock("change/big", "2000-02-11", "2000-02-12", 10_000)).status).toBe(200);
    expect((await stock("change/big", "2000-02-01", "2000-02-12", 10_000)).status).toBe(200); // no change
    const all = await stock("change/big", "2000-02-01", "2000-02-12", 0);
    expect(all.status).toBe(422);
    expect(all.json).toMatchObject({ type: "/problems/validation", errors: [{ in: "body", path: "quantity" }] });
    expect(all.json.errors[0].message).toContain("100000");
    expect((await tokens("change/big")).reduce((a, t) => a + t.total, 0)).toBe(110_000); // nothing changed
    expect((await stock("change/big", "2000-02-01", "2000-02-11", 0)).status).toBe(200); // 100 000: at the bound
  });
});
