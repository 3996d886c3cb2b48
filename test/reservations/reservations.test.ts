// The reservation contract over real HTTP against real Postgres.
import { describe, expect, it } from "vitest";
import { servedApp, sql } from "../support";

// In a TimeZone with DST (America/Santiago): times in and out are instants, whatever the session's zone.
const suite = servedApp("reservations", {}, { timezone: "America/Santiago" });

const book = (resource: string, start: string, end: string, extra: Record<string, unknown> = {}) =>
  suite.api("POST", "/v1/reservations", { resource, holder: "h", start, end, ...extra });

describe("POST /v1/reservations", () => {
  it("creates a reservation and answers it in UTC", async () => {
    const res = await book("dc1/s1", "2021-01-01T14:45:00+02:00", "2021-01-04T14:45:00.5+02:00", { holder: "user-1", metadata: { plan: "gold" } });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      resource: "dc1/s1",
      holder: "user-1",
      start: "2021-01-01T12:45:00Z",
      end: "2021-01-04T12:45:00.5Z",
      metadata: { plan: "gold" },
      status: "active",
      cancelled_at: null,
    });
    expect(res.json.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.json.created_at).toMatch(/Z$/);
    expect(res.headers.get("location")).toBe(`/v1/reservations/${res.json.id}`);
  });

  it("refuses an overlap with 409 listing the conflicts, and writes nothing", async () => {
    const first = await book("dc1/s2", "2021-01-01T00:00:00Z", "2021-01-02T00:00:00Z", { holder: "alice" });
    const res = await book("dc1/s2", "2021-01-01T12:00:00Z", "2021-01-03T00:00:00Z", { holder: "bob" });
    expect(res.status).toBe(409);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(res.json).toMatchObject({ status: 409, type: "/problems/reservation-conflict" });
    expect(res.json.conflicts).toEqual([{ id: first.json.id, holder: "alice", start: "2021-01-01T00:00:00Z", end: "2021-01-02T00:00:00Z" }]);
    const rows = await sql(suite.db, "SELECT holder FROM reservations WHERE resource = 'dc1/s2'");
    expect(rows).toEqual([{ holder: "alice" }]);
  });

  it("allows back-to-back intervals (half-open) and the same time on another resource", async () => {
    expect((await book("dc1/s3", "2021-01-01T00:00:00Z", "2021-01-02T00:00:00Z")).status).toBe(201);
    expect((await book("dc1/s3", "2021-01-02T00:00:00Z", "2021-01-03T00:00:00Z")).status).toBe(201);
    expect((await book("dc1/s3", "2020-12-31T00:00:00Z", "2021-01-01T00:00:00Z")).status).toBe(201);
    expect((await book("dc1/s4", "2021-01-01T00:00:00Z", "2021-01-03T00:00:00Z")).status).toBe(201);
    expect((await book("dc1/s3", "2021-01-01T23:59:59.999999Z", "2021-01-02T00:00:00.000001Z")).status).toBe(409);
  });

  it.each([
    [{ holder: "h", start: "2021-01-01T00:00:00Z", end: "2021-01-02T00:00:00Z" }, "resource"],
    [{ resource: "", holder: "h", start: "2021-01-01T00:00:00Z", end: "2021-01-02T00:00:00Z" }, "resource"],
    [{ resource: "x".repeat(201), holder: "h", start: "2021-01-01T00:00:00Z", end: "2021-01-02T00:00:00Z" }, "resource"],
    [{ resource: "r", holder: "h", start: "2021-01-01T00:00:00", end: "2021-01-02T00:00:00Z" }, "start"],
    [{ resource: "r", holder: "h", start: "yesterday", end: "2021-01-02T00:00:00Z" }, "start"],
    [{ resource: "r", holder: "h", start: "2021-01-02T00:00:00Z", end: "2021-01-02T00:00:00Z" }, "end"],
    [{ resource: "r", holder: "h", start: "2021-01-03T00:00:00Z", end: "2021-01-02T00:00:00Z" }, "end"],
    [{ resource: "r", holder: "h", start: "2021-02-30T00:00:00Z", end: "2021-03-02T00:00:00Z" }, "start"],
    [{ resource: "r\u0000x", holder: "h", start: "2021-01-01T00:00:00Z", end: "2021-01-02T00:00:00Z" }, "resource"],
    [{ resource: "r", holder: "h", start: "2021-01-01T00:00:00Z", end: "2021-01-02T00:00:00Z", metadata: [1, 2] }, "metadata"],
  ])("422 with field errors for %j", async (body, field) => {
    const res = await suite.api("POST", "/v1/reservations", body);
    expect(res.status).toBe(422);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(res.json.errors.map((e: { path: string }) => e.path)).toContain(field);
  });

  it("stores keys with slashes, unicode and SQL verbatim", async () => {
    const resource = "dc/'; DROP TABLE reservations; --/日本/%2F";
    const res = await book(resource, "2021-01-01T00:00:00Z", "2021-01-02T00:00:00Z");
    expect(res.status).toBe(201);
    expect(res.json.resource).toBe(resource);
    const rows = await sql(suite.db, "SELECT count(*)::int AS n FROM reservations WHERE resource = $1", [resource]);
    expect(rows[0].n).toBe(1);
  });
});

describe("reading and cancelling", () => {
  it("GET by id, 404 for unknown or malformed ids", async () => {
    const made = await book("dc2/s1", "2022-01-01T00:00:00Z", "2022-01-02T00:00:00Z");
    const got = await suite.api("GET", `/v1/reservations/${made.json.id}`);
    expect(got.status).toBe(200);
    expect(got.json).toEqual(made.json);
    expect((await suite.api("GET", "/v1/reservations/00000000-0000-0000-0000-000000000000")).status).toBe(404);
    const bad = await suite.api("GET", "/v1/reservations/not-a-uuid");
    expect(bad.status).toBe(404);
    expect(bad.headers.get("content-type")).toBe("application/problem+json");
  });

  it("DELETE keeps history, frees the time at once, and is idempotent", async () => {
    const made = await book("dc2/s2", "2022-01-01T00:00:00Z", "2022-01-05T00:00:00Z");
    expect((await book("dc2/s2", "2022-01-02T00:00:00Z", "2022-01-03T00:00:00Z")).status).toBe(409);
    const del = await suite.api("DELETE", `/v1/reservations/${made.json.id}`);
    expect(del.status).toBe(204);
    expect(del.text).toBe("");
    const after = await suite.api("GET", `/v1/reservations/${made.json.id}`);
    expect(after.json.status).toBe("cancelled");
    expect(after.json.cancelled_at).toMatch(/Z$/);
    expect((await book("dc2/s2", "2022-01-02T00:00:00Z", "2022-01-03T00:00:00Z")).status).toBe(201);
    const again = await suite.api("DELETE", `/v1/reservations/${made.json.id}`);
    expect(again.status).toBe(204);
    expect((await suite.api("GET", `/v1/reservations/${made.json.id}`)).json.cancelled_at).toBe(after.json.cancelled_at);
    expect((await suite.api("DELETE", "/v1/reservations/00000000-0000-0000-0000-000000000000")).status).toBe(404);
  });

  it("lists active reservations overlapping the window in start order, with cursor pagination", async () => {
    const r = "dc3/list";
    for (let d = 10; d >= 1; d--) {
      const day = String(d).padStart(2, "0");
      expect((await book(r, `2023-01-${day}T00:00:00Z`, `2023-01-${day}T12:00:00Z`)).status).toBe(201);
    }
    const cancelled = await book(r, "2023-01-05T12:00:00Z", "2023-01-05T13:00:00Z");
    await suite.api("DELETE", `/v1/reservations/${cancelled.json.id}`);

    const all = await suite.api("GET", `/v1/reservations?resource=${encodeURIComponent(r)}`);
    expect(all.status).toBe(200);
    expect(all.json.items.map((i: { start: string }) => i.start.slice(8, 10))).toEqual(["01", "02", "03", "04", "05", "06", "07", "08", "09", "10"]);
    expect(all.json.next_cursor).toBeNull();

    // [from, to) overlap: the 03rd ends at 12:00 (excluded from a window starting then), the 06th starts at to (excluded).
    const win = await suite.api("GET", `/v1/reservations?resource=${encodeURIComponent(r)}&from=2023-01-03T12:00:00Z&to=2023-01-06T00:00:00Z`);
    expect(win.json.items.map((i: { start: string }) => i.start.slice(8, 10))).toEqual(["04", "05"]);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = await suite.api("GET", `/v1/reservations?resource=${encodeURIComponent(r)}&limit=3${cursor ? `&cursor=${cursor}` : ""}`);
      expect(page.json.items.length).toBeLessThanOrEqual(3);
      seen.push(...page.json.items.map((i: { start: string }) => i.start.slice(8, 10)));
      cursor = page.json.next_cursor;
    } while (cursor);
    expect(seen).toEqual(["01", "02", "03", "04", "05", "06", "07", "08", "09", "10"]);

    expect((await suite.api("GET", "/v1/reservations")).status).toBe(422);
    expect((await suite.api("GET", `/v1/reservations?resource=x&limit=1001`)).status).toBe(422);
    expect((await suite.api("GET", `/v1/reservations?resource=x&cursor=garbage`)).status).toBe(422);
    expect((await suite.api("GET", `/v1/reservations?resource=x&from=2023-01-02T00:00:00Z&to=2023-01-01T00:00:00Z`)).status).toBe(422);
  });

  it("availability: free and busy intervals clipped to the window", async () => {
    const r = "dc4/avail";
    await book(r, "2024-01-01T10:00:00Z", "2024-01-01T11:00:00Z");
    await book(r, "2024-01-01T11:00:00Z", "2024-01-01T12:00:00Z");
    await book(r, "2024-01-01T14:00:00Z", "2024-01-01T20:00:00Z");
    const res = await suite.api("GET", `/v1/resources/${encodeURIComponent(r)}/availability?from=2024-01-01T09:00:00Z&to=2024-01-01T15:00:00Z`);
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      resource: r,
      from: "2024-01-01T09:00:00Z",
      to: "2024-01-01T15:00:00Z",
      free: [
        { start: "2024-01-01T09:00:00Z", end: "2024-01-01T10:00:00Z" },
        { start: "2024-01-01T12:00:00Z", end: "2024-01-01T14:00:00Z" },
      ],
      busy: [
        { start: "2024-01-01T10:00:00Z", end: "2024-01-01T12:00:00Z" },
        { start: "2024-01-01T14:00:00Z", end: "2024-01-01T15:00:00Z" },
      ],
    });
    const empty = await suite.api("GET", `/v1/resources/nothing-here/availability?from=2024-01-01T09:00:00Z&to=2024-01-01T15:00:00Z`);
    expect(empty.json.free).toEqual([{ start: "2024-01-01T09:00:00Z", end: "2024-01-01T15:00:00Z" }]);
    expect(empty.json.busy).toEqual([]);
    expect((await suite.api("GET", `/v1/resources/x/availability?from=2024-01-01T09:00:00Z`)).status).toBe(422);
    expect((await suite.api("GET", `/v1/resources/x/availability?from=2024-01-01T00:00:00Z&to=2026-01-01T00:00:00Z`)).status).toBe(422);
  });
});
