// Timestamps as Postgres will store them: more than 3 fractional digits and every
// RFC 3339 offset — the Worker's validation judges the same instant the database stores, and a refusal
// is the documented 422 ValidationProblem, never a 500.
import { beforeAll, describe, expect, it } from "vitest";
import { servedApp } from "../support";

const suite = servedApp("timestamps");

beforeAll(async () => {
  expect((await suite.api("PUT", "/v1/ratelimits/policies/ts", { algorithm: "fixed_window", limit: 10, window_ms: 60_000 })).status).toBe(201);
});

const reserve = (resource: string, start: string, end: string) => suite.api("POST", "/v1/reservations", { resource, holder: "h", start, end });
const override = (key: string, valid_from: string, valid_to: string) =>
  suite.api("PUT", `/v1/ratelimits/policies/ts/overrides/${key}`, { limit: 5, valid_from, valid_to });

function expectValidationProblem(res: { status: number; headers: Headers; json: any }, field: string) {
  expect(res.status).toBe(422);
  expect(res.headers.get("content-type")).toContain("application/problem+json");
  expect(res.json).toMatchObject({ type: "/problems/validation", status: 422 });
  expect(res.json.errors).toEqual(expect.arrayContaining([expect.objectContaining({ in: "body", path: field })]));
}

describe("sub-millisecond precision", () => {
  it("start …00.0009999Z and end …00.001Z are one instant in Postgres (µs): 422 with errors, not an empty range's 500", async () => {
    expectValidationProblem(await reserve("ts/sub-ms", "2030-01-01T00:00:00.0009999Z", "2030-01-01T00:00:00.001Z"), "end");
    expectValidationProblem(await override("sub-ms", "2030-01-01T00:00:00.0009999Z", "2030-01-01T00:00:00.001Z"), "valid_to");
  });

  it("one microsecond apart is a valid interval (JS milliseconds would call it empty)", async () => {
    const r = await reserve("ts/micro", "2030-01-01T00:00:00.000001Z", "2030-01-01T00:00:00.000002Z");
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({ start: "2030-01-01T00:00:00.000001Z", end: "2030-01-01T00:00:00.000002Z" });
    expect((await override("micro", "2030-01-01T00:00:00.000001Z", "2030-01-01T00:00:00.000002Z")).status).toBe(201);
  });
});

describe("offsets", () => {
  it("RFC 3339 offsets of ±16:00 and beyond name real instants: accepted, stored in UTC", async () => {
    const r = await reserve("ts/offset", "2030-01-02T10:00:00+16:00", "2030-01-02T00:00:00-23:59");
    expect(r.status).toBe(201);
    expect(r.json).toMatchObject({ start: "2030-01-01T18:00:00Z", end: "2030-01-02T23:59:00Z" });
    const o = await override("offset", "2030-01-02T10:00:00+16:00", "2030-01-03T10:00:00+16:00");
    expect(o.status).toBe(201);
    expect(o.json).toMatchObject({ valid_from: "2030-01-01T18:00:00Z", valid_to: "2030-01-02T18:00:00Z" });
  });
});
