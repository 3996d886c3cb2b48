// Inventory inside the real Workers runtime: the Worker under `wrangler dev` (workerd), the Neon
// driver over the WebSocket bridge, a connection per request.
import { describe, expect, it } from "vitest";
import { sql, workerSuite } from "../support";

const suite = workerSuite("inventory_runtime");

describe("inventory in wrangler dev", () => {
  it("5 rooms × 2 nights, 60 simultaneous bookings of 1–2 rooms: never more than 5 per night, every 201 stored", async () => {
    expect((await suite.api("PUT", "/v1/inventory/rt%2Fhotel/stock", { from: "2030-03-29", to: "2030-03-31", quantity: 5 })).status).toBe(200);
    const ranges = [
      ["2030-03-29", "2030-03-30"],
      ["2030-03-30", "2030-03-31"],
      ["2030-03-29", "2030-03-31"],
    ];
    const requests = Array.from({ length: 60 }, (_, i) => ({
      check_in: ranges[i % 3][0],
      check_out: ranges[i % 3][1],
      quantity: 1 + (i % 2),
      holder: `g${i}`,
    }));
    const results = await Promise.all(requests.map((r) => suite.api("POST", "/v1/inventory/rt%2Fhotel/bookings", r)));
    expect(results.every((r) => [201, 409, 503].includes(r.status))).toBe(true);
    expect(results.filter((r) => r.status === 409).length).toBeGreaterThan(0);

    const nights = await sql<{ night: string; rows: number; booked: number }>(
      suite.db,
      `SELECT n.night::text AS night,
              (SELECT count(*) FROM inventory_tokens t WHERE t.item = n.item AND t.night = n.night AND t.booking_id IS NOT NULL)::int AS booked,
              (SELECT coalesce(sum(quantity), 0) FROM inventory_bookings b WHERE b.item = n.item AND b.status = 'confirmed' AND n.night >= b.check_in AND n.night < b.check_out)::int AS rows
         FROM inventory_nights n WHERE n.item = 'rt/hotel' ORDER BY n.night`,
    );
    for (const n of nights) {
      expect(n.rows).toBeLessThanOrEqual(5);
      expect(n.booked).toBe(n.rows);
    }
    const stored = (await sql<{ id: string }>(suite.db, "SELECT id FROM inventory_bookings WHERE item = 'rt/hotel' ORDER BY id")).map((r) => r.id);
    expect(stored).toEqual(
      results
        .filter((r) => r.status === 201)
        .map((r) => r.json.booking_id)
        .sort(),
    );
  });

  it("hold → blocks → lapses (database clock) → sells again; confirm after expiry 409; cancel frees at once", async () => {
    await suite.api("PUT", "/v1/inventory/rt%2Fhold/stock", { from: "2030-04-01", to: "2030-04-02", quantity: 1 });
    const hold = await suite.api("POST", "/v1/inventory/rt%2Fhold/bookings", {
      check_in: "2030-04-01",
      check_out: "2030-04-02",
      quantity: 1,
      holder: "cart",
      hold_ms: 600_000,
    });
    expect(hold.status).toBe(201);
    expect(hold.json.status).toBe("held");
    expect(
      (await suite.api("POST", "/v1/inventory/rt%2Fhold/bookings", { check_in: "2030-04-01", check_out: "2030-04-02", quantity: 1, holder: "x" })).status,
    ).toBe(409);
    await sql(suite.db, "UPDATE inventory_bookings SET expires_at = now() - interval '1 s' WHERE id = $1", [hold.json.booking_id]);
    await sql(suite.db, "UPDATE inventory_tokens SET held_until = now() - interval '1 s' WHERE booking_id = $1", [hold.json.booking_id]);
    const again = await suite.api("POST", "/v1/inventory/rt%2Fhold/bookings", { check_in: "2030-04-01", check_out: "2030-04-02", quantity: 1, holder: "y" });
    expect(again.status).toBe(201);
    expect((await suite.api("POST", `/v1/inventory/rt%2Fhold/bookings/${hold.json.booking_id}/confirm`)).status).toBe(409);
    expect((await suite.api("DELETE", `/v1/inventory/rt%2Fhold/bookings/${again.json.booking_id}`)).status).toBe(204);
    const avail = await suite.api("GET", "/v1/inventory/rt%2Fhold/availability?from=2030-04-01&to=2030-04-02");
    expect(avail.json.nights).toEqual([{ date: "2030-04-01", capacity: 1, booked: 0, held: 0, available: 1 }]);
  });
});
