// Seed 000's experiment and a larger burst, with real simultaneous HTTP requests against real
// Postgres; the invariant is then checked in the database, not in the responses.
import { describe, expect, it } from "vitest";
import { lockKey } from "../../functions/core/lock-keys";
import { bindings, connect, servedApp, sql, whileHolding, withServedApp } from "../support";

const suite = servedApp("reservations_burst");

/** Pairs of active reservations of one resource that overlap: must always be empty. */
const OVERLAPS = `
  SELECT a.id AS a, b.id AS b FROM reservations a
    JOIN reservations b ON a.resource = b.resource AND a.id < b.id AND a.during && b.during
   WHERE a.cancelled_at IS NULL AND b.cancelled_at IS NULL`;

describe("seed 000: simultaneous identical reservations", () => {
  it("10 at once → exactly one 201 and nine 409, one row in the database", async () => {
    const body = { resource: "223 345", start: "2021-01-01T14:45:00Z", end: "2021-01-04T14:45:00Z" };
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => suite.api("POST", "/v1/reservations", { ...body, holder: `user-${i}` })));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409, 409, 409, 409, 409, 409]);
    const winner = results.find((r) => r.status === 201)!;
    for (const loser of results.filter((r) => r.status === 409)) {
      expect(loser.json.conflicts).toEqual([{ id: winner.json.id, holder: winner.json.holder, start: body.start, end: body.end }]);
    }
    const rows = await sql(suite.db, "SELECT id FROM reservations WHERE resource = '223 345'");
    expect(rows).toEqual([{ id: winner.json.id }]);
  });
});

describe("a burst of random overlapping and adjacent reservations", () => {
  it("300 simultaneous requests over 3 resources: no overlap in the database, every 201 stored, nothing else stored", async () => {
    const base = Date.parse("2030-01-01T00:00:00Z");
    const hour = 3_600_000;
    // Start and length in whole hours over 5 days: plenty of overlaps and of exact back-to-back edges.
    let seed = 42;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const requests = Array.from({ length: 300 }, (_, i) => {
      const start = base + rand(120) * hour;
      const end = start + (1 + rand(8)) * hour;
      return { resource: `burst/${rand(3)}`, holder: `h${i}`, start: new Date(start).toISOString(), end: new Date(end).toISOString() };
    });
    const results = await Promise.all(requests.map((r) => suite.api("POST", "/v1/reservations", r)));

    const counts: Record<number, number> = {};
    for (const r of results) counts[r.status] = (counts[r.status] ?? 0) + 1;
    console.log("burst outcomes by status:", counts);
    // Lost races are 409; a lock queue longer than lock_timeout may answer 503 (nothing applied). Never a 500.
    expect(
      Object.keys(counts)
        .map(Number)
        .every((s) => s === 201 || s === 409 || s === 503),
    ).toBe(true);
    expect(counts[201]).toBeGreaterThan(10);
    expect(counts[409]).toBeGreaterThan(10);

    expect(await sql(suite.db, OVERLAPS)).toEqual([]);

    const stored = await sql<{ id: string; resource: string; start: string; end: string }>(
      suite.db,
      "SELECT id, resource, admit_rfc3339(lower(during)) AS start, admit_rfc3339(upper(during)) AS end FROM reservations WHERE resource LIKE 'burst/%' AND cancelled_at IS NULL",
    );
    const byId = new Map(stored.map((s) => [s.id, s]));
    const created = results.filter((r) => r.status === 201);
    for (const r of created) {
      expect(byId.get(r.json.id)).toEqual({ id: r.json.id, resource: r.json.resource, start: r.json.start, end: r.json.end });
    }
    // Nothing the clients were told failed (409/503) made it in: the stored rows are exactly the 201s.
    expect(stored.length).toBe(created.length);

    // Every refusal named a real overlapping reservation.
    for (const r of results.filter((x) => x.status === 409)) {
      expect(r.json.conflicts.length).toBeGreaterThan(0);
      for (const c of r.json.conflicts) expect(byId.has(c.id)).toBe(true);
    }
  });
});

describe("the EXCLUDE constraint on its own", () => {
  it("holds even for writers that skip the advisory lock: 20 raw concurrent INSERTs → one row", async () => {
    const attempts = await Promise.allSettled(
      Array.from({ length: 20 }, async (_, i) => {
        const c = await connect(suite.db);
        try {
          // All start on the same day, so every pair overlaps.
          await c.query("INSERT INTO reservations (resource, holder, during) VALUES ('raw', $1, tstzrange($2::timestamptz, $3::timestamptz, '[)'))", [
            `h${i}`,
            "2031-01-01T00:00:00Z",
            `2031-01-0${2 + (i % 5)}T00:00:00Z`,
          ]);
        } finally {
          await c.end();
        }
      }),
    );
    const ok = attempts.filter((a) => a.status === "fulfilled").length;
    const codes = attempts.flatMap((a) => (a.status === "rejected" ? [(a.reason as { code?: string }).code] : []));
    expect(
      codes.every((c) => c === "23P01" || c === "40P01"),
      JSON.stringify(codes),
    ).toBe(true);
    expect(ok).toBe(1);
    expect(codes.every((c) => c === "23P01" || c === "40P01")).toBe(true);
    expect(await sql(suite.db, OVERLAPS)).toEqual([]);
  });
});

describe("bounded lock waits", () => {
  it("a transaction holding the resource's lock makes the next request answer 503 + Retry-After, not wait", async () => {
    await whileHolding(suite.db, "SELECT pg_advisory_xact_lock($1::bigint)", [lockKey("reservation", "held")], () =>
      withServedApp(bindings(suite.db, { LOCK_TIMEOUT_MS: "300" }), async (api) => {
        const res = await api("POST", "/v1/reservations", { resource: "held", holder: "h", start: "2021-01-01T00:00:00Z", end: "2021-01-02T00:00:00Z" });
        expect(res.status).toBe(503);
        expect(res.json.type).toBe("/problems/lock-timeout");
        expect(res.headers.get("retry-after")).toBe("1");
        // Another resource is not behind that lock.
        const other = await api("POST", "/v1/reservations", { resource: "free", holder: "h", start: "2021-01-01T00:00:00Z", end: "2021-01-02T00:00:00Z" });
        expect(other.status).toBe(201);
      }),
    );
    expect(await sql(suite.db, "SELECT 1 FROM reservations WHERE resource = 'held'")).toEqual([]);
    // Once the holder is gone the same request goes through.
    expect(
      (await suite.api("POST", "/v1/reservations", { resource: "held", holder: "h", start: "2021-01-01T00:00:00Z", end: "2021-01-02T00:00:00Z" })).status,
    ).toBe(201);
  });

  it("a connection that dies while holding the lock frees it at once", async () => {
    const holder = await connect(suite.db);
    await holder.query("BEGIN");
    await holder.query("SELECT pg_advisory_xact_lock($1::bigint)", [lockKey("reservation", "crashed")]);
    // Drop the connection mid-transaction, without COMMIT or ROLLBACK.
    (holder as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
    const res = await suite.api("POST", "/v1/reservations", { resource: "crashed", holder: "h", start: "2021-01-01T00:00:00Z", end: "2021-01-02T00:00:00Z" });
    expect(res.status).toBe(201);
  });
});
