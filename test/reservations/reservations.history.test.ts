// include_cancelled on GET /v1/reservations (issue 22's dashboard): cancelled reservations as history.
import { describe, expect, it } from "vitest";
import { servedApp } from "../support";

const suite = servedApp("reservations_history");

describe("GET /v1/reservations?include_cancelled=true", () => {
  it("lists cancelled reservations too, in start order, each with its status; without it only active ones", async () => {
    const make = (start: string, end: string) => suite.api("POST", "/v1/reservations", { resource: "r1", holder: "alice", start, end });
    const a = await make("2030-05-01T09:00:00Z", "2030-05-01T10:00:00Z");
    const b = await make("2030-05-01T10:00:00Z", "2030-05-01T11:00:00Z");
    expect((await suite.api("DELETE", `/v1/reservations/${a.json.id}`)).status).toBe(204);
    // The freed range can be reserved again; history keeps both.
    const c = await make("2030-05-01T09:00:00Z", "2030-05-01T09:30:00Z");
    expect(c.status).toBe(201);
    const active = await suite.api("GET", "/v1/reservations?resource=r1");
    expect(active.json.items.map((r: any) => r.id)).toEqual([c.json.id, b.json.id]);
    const all = await suite.api("GET", "/v1/reservations?resource=r1&include_cancelled=true");
    expect(all.status).toBe(200);
    // In start order as answered (ORDER BY lower(during), id): a and c both start at 09:00, so the
    // lower id of the two comes first (Postgres orders uuids as their canonical lowercase hex does), then b.
    const [first, second] = [a.json.id, c.json.id].sort();
    const statusOf = (id: string) => (id === a.json.id ? "cancelled" : "active");
    expect(all.json.items.map((r: any) => [r.id, r.status])).toEqual([
      [first, statusOf(first)],
      [second, statusOf(second)],
      [b.json.id, "active"],
    ]);
    expect(all.json.items.find((r: any) => r.id === a.json.id)).toMatchObject({ status: "cancelled", cancelled_at: expect.any(String) });
    const paged = await suite.api("GET", "/v1/reservations?resource=r1&include_cancelled=true&limit=2");
    const rest = await suite.api("GET", `/v1/reservations?resource=r1&include_cancelled=true&limit=2&cursor=${paged.json.next_cursor}`);
    expect(paged.json.items).toHaveLength(2);
    expect([...paged.json.items, ...rest.json.items].map((r: any) => r.id)).toEqual([first, second, b.json.id]);
    expect((await suite.api("GET", "/v1/reservations?resource=r1&include_cancelled=yes")).status).toBe(422);
  });
});
