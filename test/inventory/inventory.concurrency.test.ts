// Seed 003's claim under real simultaneous HTTP requests against real Postgres; every invariant is
// checked in the database afterwards, recomputed from the bookings themselves (not the counters).
import { describe, expect, it } from "vitest";
import { bindings, servedApp, sql, whileHolding, withServedApp } from "../support";

const suite = servedApp("inventory_burst");

const enc = encodeURIComponent;
const stock = (item: string, from: string, to: string, quantity: number) => suite.api("PUT", `/v1/inventory/${enc(item)}/stock`, { from, to, quantity });
const day = (base: string, plus: number) => new Date(Date.parse(base + "T00:00:00Z") + plus * 86_400_000).toISOString().slice(0, 10);

/**
 * Per night of an item: capacity, what the token rows say (booked = tokens of confirmed bookings,
 * held = tokens of live holds), and the same recomputed from the bookings rows themselves.
 */
const LEDGER = `
  SELECT n.night::text AS night, n.capacity,
         (SELECT count(*) FROM inventory_tokens t WHERE t.item = n.item AND t.night = n.night)::int AS tokens,
         (SELECT count(*) FROM inventory_tokens t WHERE t.item = n.item AND t.night = n.night AND t.booking_id IS NOT NULL AND t.held_until IS NULL)::int AS booked,
         (SELECT count(*) FROM inventory_tokens t WHERE t.item = n.item AND t.night = n.night AND t.held_until > now())::int AS held,
         coalesce((SELECT sum(b.quantity) FROM inventory_bookings b
                    WHERE b.item = n.item AND b.status = 'confirmed' AND n.night >= b.check_in AND n.night < b.check_out), 0)::int AS booked_rows,
         coalesce((SELECT sum(b.quantity) FROM inventory_bookings b
                    WHERE b.item = n.item AND b.status = 'held' AND b.expires_at > now() AND n.night >= b.check_in AND n.night < b.check_out), 0)::int AS held_rows
    FROM inventory_nights n WHERE n.item = $1 ORDER BY n.night`;

/** Live bookings whose tokens are not exactly one per room-night of their range: must be empty. */
const MISALLOCATED = `
  SELECT b.id FROM inventory_bookings b
   WHERE b.item = $1 AND (b.status = 'confirmed' OR (b.status = 'held' AND b.expires_at > now()))
     AND (SELECT count(*) FROM inventory_tokens t WHERE t.booking_id = b.id AND t.night >= b.check_in AND t.night < b.check_out)
         <> (b.check_out - b.check_in) * b.quantity
  UNION ALL
  SELECT t.booking_id FROM inventory_tokens t JOIN inventory_bookings b ON b.id = t.booking_id
   WHERE t.item = $1 AND (t.night < b.check_in OR t.night >= b.check_out OR b.status = 'cancelled')`;

type Ledger = { night: string; capacity: number; tokens: number; booked: number; held: number; booked_rows: number; held_rows: number };

async function checkLedger(item: string): Promise<Ledger[]> {
  const ledger = await sql<Ledger>(suite.db, LEDGER, [item]);
  for (const n of ledger) {
    expect(n.tokens).toBe(n.capacity);
    expect(n.booked).toBe(n.booked_rows);
    expect(n.held).toBe(n.held_rows);
    expect(n.booked_rows + n.held_rows).toBeLessThanOrEqual(n.capacity);
  }
  expect(await sql(suite.db, MISALLOCATED, [item])).toEqual([]);
  return ledger;
}

/** A small seeded PRNG (mulberry32): the same bursts every run. rand(n) is an integer in [0, n). */
function rng(seed: number) {
  let a = seed >>> 0;
  return (n: number) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

function tally(results: { status: number }[]) {
  const counts: Record<number, number> = {};
  for (const r of results) counts[r.status] = (counts[r.status] ?? 0) + 1;
  return counts;
}

describe("seed 003: no overselling under a burst", () => {
  it("10 rooms × 3 nights, 300 simultaneous bookings of 1–3 rooms over random sub-ranges", async () => {
    const item = "burst/hotel";
    const first = "2030-03-29";
    expect((await stock(item, first, day(first, 3), 10)).status).toBe(200);

    const rand = rng(7);
    const requests = Array.from({ length: 300 }, (_, i) => {
      const ci = rand(3);
      const co = ci + 1 + rand(3 - ci);
      return { check_in: day(first, ci), check_out: day(first, co), quantity: 1 + rand(3), holder: `guest-${i}` };
    });
    const results = await Promise.all(requests.map((r) => suite.api("POST", `/v1/inventory/${enc(item)}/bookings`, r)));
    const counts = tally(results);
    console.log("inventory burst outcomes by status:", counts);
    // Lost races are 409 (short, or a deadlock that cannot happen but would be 409); a long lock queue may be 503. Never a 500.
    expect(
      Object.keys(counts)
        .map(Number)
        .every((s) => s === 201 || s === 409 || s === 503),
    ).toBe(true);
    expect(counts[201]).toBeGreaterThan(3);
    expect(counts[409]).toBeGreaterThan(100);

    // For every night, the rooms booked in the database (summed over booking rows) ≤ 10, and the counters agree.
    const ledger = await checkLedger(item);
    expect(ledger).toHaveLength(3);
    for (const n of ledger) {
      expect(n.booked_rows).toBeLessThanOrEqual(10);
      expect(n.held).toBe(0);
    }

    // Every 201 the clients saw is in the database as it was answered; nothing else is (every 409 took nothing).
    const stored = await sql<{ id: string; check_in: string; check_out: string; quantity: number; holder: string }>(
      suite.db,
      "SELECT id, to_char(check_in, 'YYYY-MM-DD') AS check_in, to_char(check_out, 'YYYY-MM-DD') AS check_out, quantity, holder FROM inventory_bookings WHERE item = $1",
      [item],
    );
    const byId = new Map(stored.map((s) => [s.id, s]));
    const created = results.filter((r) => r.status === 201);
    for (const r of created) {
      expect(byId.get(r.json.booking_id)).toEqual({
        id: r.json.booking_id,
        check_in: r.json.check_in,
        check_out: r.json.check_out,
        quantity: r.json.quantity,
        holder: r.json.holder,
      });
    }
    expect(stored.length).toBe(created.length);
    const refusedHolders = new Set(results.flatMap((r, i) => (r.status === 201 ? [] : [requests[i].holder])));
    expect(stored.filter((s) => refusedHolders.has(s.holder))).toEqual([]);

    // Every 409 named a night that really was short for it at the end (stock only shrinks in this burst).
    for (const [i, r] of results.entries()) {
      if (r.status !== 409) continue;
      expect(r.json.short.length).toBeGreaterThan(0);
      for (const s of r.json.short) {
        expect(s.available).toBeLessThan(requests[i].quantity);
        const n = ledger.find((l) => l.night === s.date)!;
        expect(10 - n.booked_rows).toBeLessThan(requests[i].quantity);
      }
    }

    // And the availability view says the same.
    const avail = await suite.api("GET", `/v1/inventory/${enc(item)}/availability?from=${first}&to=${day(first, 3)}`);
    expect(avail.json.nights.map((n: { booked: number; available: number }) => [n.booked, n.available])).toEqual(
      ledger.map((l) => [l.booked_rows, 10 - l.booked_rows]),
    );
  });

  it("a mixed burst of bookings, holds, confirms and cancels: tokens match the bookings and available = capacity − booked − held", async () => {
    const item = "burst/mixed";
    const first = "2030-06-01";
    expect((await stock(item, first, day(first, 4), 8)).status).toBe(200);
    const rand = rng(99);
    const body = (i: number) => {
      const ci = rand(4);
      const co = ci + 1 + rand(4 - ci);
      return { check_in: day(first, ci), check_out: day(first, co), quantity: 1 + rand(2), holder: `m-${i}`, ...(rand(2) ? { hold_ms: 600_000 } : {}) };
    };
    // Round 1: 80 at once. Round 2: confirm or cancel each winner while 80 more arrive.
    const round1 = await Promise.all(Array.from({ length: 80 }, (_, i) => suite.api("POST", `/v1/inventory/${enc(item)}/bookings`, body(i))));
    const won = round1.filter((r) => r.status === 201).map((r) => r.json);
    expect(won.length).toBeGreaterThan(0);
    const round2 = await Promise.all([
      ...won.map((b, i) =>
        i % 2
          ? suite.api("DELETE", `/v1/inventory/${enc(item)}/bookings/${b.booking_id}`)
          : suite.api("POST", `/v1/inventory/${enc(item)}/bookings/${b.booking_id}/confirm`),
      ),
      ...Array.from({ length: 80 }, (_, i) => suite.api("POST", `/v1/inventory/${enc(item)}/bookings`, body(100 + i))),
    ]);
    const counts = tally([...round1, ...round2]);
    console.log("mixed burst outcomes by status:", counts);
    expect(
      Object.keys(counts)
        .map(Number)
        .every((s) => [200, 201, 204, 409, 503].includes(s)),
    ).toBe(true);
    // Confirms of live holds and cancels always succeed.
    for (const r of round2.slice(0, won.length)) expect([200, 204]).toContain(r.status);

    const ledger = await checkLedger(item);
    const avail = await suite.api("GET", `/v1/inventory/${enc(item)}/availability?from=${first}&to=${day(first, 4)}`);
    expect(avail.json.nights).toEqual(
      ledger.map((l) => ({ date: l.night, capacity: 8, booked: l.booked_rows, held: l.held_rows, available: 8 - l.booked_rows - l.held_rows })),
    );
  });

  it("an expired hold races its own confirm and ten buyers: confirm → 409, exactly the freed rooms are sold", async () => {
    const item = "burst/expiry";
    await stock(item, "2030-09-01", "2030-09-03", 2);
    const hold = await suite.api("POST", `/v1/inventory/${enc(item)}/bookings`, {
      check_in: "2030-09-01",
      check_out: "2030-09-03",
      quantity: 2,
      holder: "cart",
      hold_ms: 600_000,
    });
    await sql(suite.db, "UPDATE inventory_bookings SET expires_at = now() - interval '1 s' WHERE id = $1", [hold.json.booking_id]);
    await sql(suite.db, "UPDATE inventory_tokens SET held_until = now() - interval '1 s' WHERE booking_id = $1", [hold.json.booking_id]);
    const [confirm, ...buyers] = await Promise.all([
      suite.api("POST", `/v1/inventory/${enc(item)}/bookings/${hold.json.booking_id}/confirm`),
      ...Array.from({ length: 10 }, (_, i) =>
        suite.api("POST", `/v1/inventory/${enc(item)}/bookings`, { check_in: "2030-09-01", check_out: "2030-09-03", quantity: 1, holder: `b${i}` }),
      ),
    ]);
    expect(confirm.status).toBe(409);
    expect(buyers.filter((b) => b.status === 201)).toHaveLength(2);
    expect(buyers.filter((b) => b.status !== 201).every((b) => b.status === 409)).toBe(true);
    const ledger = await checkLedger(item);
    expect(ledger.map((l) => [l.booked, l.booked_rows, l.held, l.held_rows])).toEqual([
      [2, 2, 0, 0],
      [2, 2, 0, 0],
    ]);
  });
});

describe("stock changes during a burst", () => {
  it("capacity raised and lowered while 150 bookings arrive: never below what is taken, refusals name nights", async () => {
    const item = "burst/restock";
    const first = "2030-12-01";
    expect((await stock(item, first, day(first, 3), 6)).status).toBe(200);
    const rand = rng(3);
    const calls = Array.from({ length: 170 }, (_, i) => {
      if (i % 10 === 5) return stock(item, first, day(first, 3), [4, 9, 5, 12][Math.floor(i / 10) % 4]);
      const ci = rand(3);
      return suite.api("POST", `/v1/inventory/${enc(item)}/bookings`, {
        check_in: day(first, ci),
        check_out: day(first, ci + 1 + rand(3 - ci)),
        quantity: 1 + rand(2),
        holder: `r${i}`,
      });
    });
    const results = await Promise.all(calls);
    const counts = tally(results);
    console.log("restock burst outcomes by status:", counts);
    expect(
      Object.keys(counts)
        .map(Number)
        .every((s) => [200, 201, 409, 503].includes(s)),
    ).toBe(true);
    // Raising to the highest capacity of the run is never refused; lowering may be (409 naming the nights), bookings may be short.
    for (const [i, r] of results.entries()) if (i % 10 === 5 && [4, 9, 5, 12][Math.floor(i / 10) % 4] === 12) expect(r.status).toBe(200);
    for (const r of results.filter((x) => x.status === 409)) {
      expect(["/problems/inventory-short", "/problems/stock-below-taken"]).toContain(r.json.type);
      expect((r.json.short ?? r.json.nights).length).toBeGreaterThan(0);
    }
    await checkLedger(item);
  });
});

describe("bounded lock waits", () => {
  it("rooms of a night locked by another transaction → 503 lock-timeout + Retry-After, not a hang; other nights unaffected", async () => {
    const item = "burst/locked";
    await stock(item, "2031-01-01", "2031-01-03", 5);
    // E.g. a stock change waiting on a slow disk: every token of that night is locked.
    await whileHolding(suite.db, "SELECT 1 FROM inventory_tokens WHERE item = $1 AND night = '2031-01-02' FOR UPDATE", [item], () =>
      withServedApp(bindings(suite.db, { LOCK_TIMEOUT_MS: "300" }), async (api) => {
        const res = await api("POST", `/v1/inventory/${enc(item)}/bookings`, { check_in: "2031-01-01", check_out: "2031-01-03", quantity: 1, holder: "h" });
        expect(res.status).toBe(503);
        expect(res.json.type).toBe("/problems/lock-timeout");
        expect(res.headers.get("retry-after")).toBe("1");
        const other = await api("POST", `/v1/inventory/${enc(item)}/bookings`, { check_in: "2031-01-01", check_out: "2031-01-02", quantity: 1, holder: "h" });
        expect(other.status).toBe(201);
      }),
    );
    expect((await checkLedger(item)).map((n) => [n.night, n.booked])).toEqual([
      ["2031-01-01", 1],
      ["2031-01-02", 0],
    ]);
  });
});
