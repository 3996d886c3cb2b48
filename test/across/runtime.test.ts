// The same guarantees inside the real Workers runtime: the Worker under `wrangler dev` (workerd),
// the Neon driver over the WebSocket bridge, a connection per request.
import { describe, expect, it } from "vitest";
import { client, sql, workerSuite } from "../support";

const suite = workerSuite("runtime");

describe("in wrangler dev", () => {
  it("answers /health from the database and guards /v1 with the token", async () => {
    const health = await client(suite.worker.url, null)("GET", "/health");
    expect(health.status).toBe(200);
    expect(health.json).toEqual({ ok: true });
    const anon = await client(suite.worker.url, null)("GET", "/v1/reservations?resource=x");
    expect(anon.status).toBe(401);
    expect(anon.headers.get("content-type")).toBe("application/problem+json");
  });

  it("seed 000: 10 simultaneous identical reservations → one 201, nine 409, one row", async () => {
    const body = { resource: "223 345", start: "2021-01-01T14:45:00Z", end: "2021-01-04T14:45:00Z" };
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => suite.api("POST", "/v1/reservations", { ...body, holder: `user-${i}` })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409, 409, 409]);
    const winner = results.find((r) => r.status === 201)!;
    expect(await sql(suite.db, "SELECT id FROM reservations WHERE resource = '223 345'")).toEqual([{ id: winner.json.id }]);
  });

  it("a burst of 100 over two resources leaves no overlap, and every 201 is stored", async () => {
    const base = Date.parse("2030-06-01T00:00:00Z");
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) => {
        const start = base + ((i * 7) % 48) * 3_600_000;
        return suite.api("POST", "/v1/reservations", {
          resource: `rt/${i % 2}`,
          holder: `h${i}`,
          start: new Date(start).toISOString(),
          end: new Date(start + (1 + (i % 5)) * 3_600_000).toISOString(),
        });
      }),
    );
    expect(results.every((r) => [201, 409, 503].includes(r.status))).toBe(true);
    const created = results
      .filter((r) => r.status === 201)
      .map((r) => r.json.id)
      .sort();
    const stored = (await sql<{ id: string }>(suite.db, "SELECT id FROM reservations WHERE resource LIKE 'rt/%' AND cancelled_at IS NULL ORDER BY id")).map(
      (r) => r.id,
    );
    expect(stored).toEqual(created);
    const overlaps = await sql(
      suite.db,
      "SELECT 1 FROM reservations a JOIN reservations b ON a.resource = b.resource AND a.id < b.id AND a.during && b.during WHERE a.cancelled_at IS NULL AND b.cancelled_at IS NULL",
    );
    expect(overlaps).toEqual([]);
  });

  it("cancels, lists and reports availability through the runtime", async () => {
    const made = await suite.api("POST", "/v1/reservations", {
      resource: "rt/cancel",
      holder: "h",
      start: "2022-01-01T00:00:00Z",
      end: "2022-01-02T00:00:00Z",
    });
    expect(made.status).toBe(201);
    const window = "/v1/resources/rt%2Fcancel/availability?from=2022-01-01T00:00:00Z&to=2022-01-03T00:00:00Z";
    const busy = await suite.api("GET", window);
    expect(busy.json).toMatchObject({ resource: "rt/cancel", busy: [{ start: "2022-01-01T00:00:00Z", end: "2022-01-02T00:00:00Z" }] });
    expect((await suite.api("DELETE", `/v1/reservations/${made.json.id}`)).status).toBe(204);
    expect((await suite.api("GET", "/v1/reservations?resource=rt%2Fcancel")).json.items).toEqual([]);
    const avail = await suite.api("GET", window);
    expect(avail.status).toBe(200);
    expect(avail.json.free).toEqual([{ start: "2022-01-01T00:00:00Z", end: "2022-01-03T00:00:00Z" }]);
  });

  it("runs the cron housekeeping in the runtime (wrangler dev --test-scheduled)", async () => {
    await sql(suite.db, "CREATE TABLE rt_sweep_probe (id integer, expires_at timestamptz)");
    await sql(suite.db, "INSERT INTO rt_sweep_probe VALUES (1, now() - interval '1 s'), (2, now() + interval '1 h')");
    await sql(
      suite.db,
      `CREATE FUNCTION admit_sweep_rt_probe() RETURNS integer LANGUAGE sql AS $$
      WITH d AS (DELETE FROM rt_sweep_probe WHERE expires_at <= now() RETURNING 1) SELECT count(*)::integer FROM d $$`,
    );
    const res = await fetch(`${suite.worker.url}/__scheduled?cron=*+*+*+*+*`);
    expect(res.status).toBe(200);
    // The handler's work runs in waitUntil; poll the table briefly rather than assume its timing.
    let left: unknown[] = [];
    for (let i = 0; i < 50; i++) {
      left = await sql(suite.db, "SELECT id FROM rt_sweep_probe ORDER BY id");
      if (left.length === 1) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(left).toEqual([{ id: 2 }]);
  });
});
