// Semaphores over HTTP (seed 004): lowest free slot, 429 at once, TTLs on the database clock, history, sweep.
import { describe, expect, it } from "vitest";
import { sweep } from "../../functions/core/sweep";
import { bindings, servedApp, sql, until } from "../support";

const suite = servedApp("semaphores");

async function create(name: string, permits: number, default_ttl_ms = 60_000) {
  const res = await suite.api("PUT", `/v1/semaphores/${encodeURIComponent(name)}`, { permits, default_ttl_ms });
  expect([200, 201]).toContain(res.status);
  return res;
}

const acquire = (name: string, holder: string, ttl_ms?: number) =>
  suite.api("POST", `/v1/semaphores/${encodeURIComponent(name)}/acquire`, { holder, ...(ttl_ms ? { ttl_ms } : {}) });

describe("PUT and GET", () => {
  it("creates (201), resizes (200), reports holders by slot; unknown → 404", async () => {
    const made = await suite.api("PUT", "/v1/semaphores/upstream%2Fa", { permits: 3, default_ttl_ms: 90_000 });
    expect(made.status).toBe(201);
    expect(made.headers.get("location")).toBe("/v1/semaphores/upstream%2Fa");
    expect(made.json).toMatchObject({ name: "upstream/a", permits: 3, default_ttl_ms: 90_000, in_use: 0, available: 3, holders: [] });

    const p = await acquire("upstream/a", "w1");
    expect(p.status).toBe(201);
    expect(p.json).toMatchObject({ semaphore: "upstream/a", slot: 0, holder: "w1", ttl_ms: 90_000 });

    // A resize that does not name default_ttl_ms keeps the semaphore's (it was reset to 60 000).
    const resized = await suite.api("PUT", "/v1/semaphores/upstream%2Fa", { permits: 5 });
    expect(resized.status).toBe(200);
    expect(resized.json).toMatchObject({ permits: 5, default_ttl_ms: 90_000, in_use: 1, available: 4 });
    expect((await acquire("upstream/a", "w2")).json).toMatchObject({ slot: 1, ttl_ms: 90_000 });
    expect((await suite.api("PUT", "/v1/semaphores/upstream%2Fa", { permits: 5, default_ttl_ms: 30_000 })).json).toMatchObject({ default_ttl_ms: 30_000 });
    expect((await suite.api("PUT", "/v1/semaphores/fresh-default", { permits: 1 })).json).toMatchObject({ default_ttl_ms: 60_000 });

    const got = await suite.api("GET", "/v1/semaphores/upstream%2Fa");
    expect(got.status).toBe(200);
    expect(got.json.holders[0]).toEqual({
      slot: 0,
      holder: "w1",
      fencing_token: p.json.fencing_token,
      claimed_at: p.json.claimed_at,
      expires_at: p.json.expires_at,
    });
    expect(got.json.holders.map((h: { holder: string }) => h.holder)).toEqual(["w1", "w2"]);

    for (const [method, path, body] of [
      ["GET", "/v1/semaphores/nope", undefined],
      ["POST", "/v1/semaphores/nope/acquire", { holder: "x" }],
      ["POST", "/v1/semaphores/nope/renew", { permit_id: p.json.permit_id }],
      ["POST", "/v1/semaphores/nope/release", { permit_id: p.json.permit_id }],
    ] as const) {
      const res = await suite.api(method, path, body);
      expect(res.status, path).toBe(404);
      expect(res.json.type).toBe("/problems/not-found");
    }
  });

  it("refuses bad input with 422", async () => {
    for (const body of [{ permits: 0 }, { permits: 10_001 }, { permits: 2, default_ttl_ms: 500 }, { permits: "4" }, {}]) {
      const res = await suite.api("PUT", "/v1/semaphores/bad", body);
      expect(res.status, JSON.stringify(body)).toBe(422);
    }
    await create("valid", 1);
    for (const [op, body] of [
      ["acquire", { holder: "" }],
      ["acquire", { holder: "h", ttl_ms: 3_600_001 }],
      ["renew", { permit_id: "x" }],
      ["release", {}],
    ] as const) {
      expect((await suite.api("POST", `/v1/semaphores/valid/${op}`, body)).status, JSON.stringify(body)).toBe(422);
    }
  });
});

describe("acquire, renew, release", () => {
  it("always takes the lowest free slot; full → 429 at once with Retry-After until the earliest expiry", async () => {
    await create("slots", 3);
    const [a, b, c] = [await acquire("slots", "a", 20_000), await acquire("slots", "b", 5_000), await acquire("slots", "c", 40_000)];
    expect([a.json.slot, b.json.slot, c.json.slot]).toEqual([0, 1, 2]);
    expect(a.json.fencing_token).toBeLessThan(b.json.fencing_token);
    expect(b.json.fencing_token).toBeLessThan(c.json.fencing_token);

    const full = await acquire("slots", "d");
    expect(full.status).toBe(429);
    expect(full.json).toMatchObject({ type: "/problems/semaphore-full", permits: 3, in_use: 3, earliest_expires_at: b.json.expires_at });
    const retry = Number(full.headers.get("retry-after"));
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(5);

    expect((await suite.api("POST", "/v1/semaphores/slots/release", { permit_id: b.json.permit_id })).status).toBe(204);
    const d = await acquire("slots", "d");
    expect(d.status).toBe(201);
    expect(d.json.slot).toBe(1);
    expect(d.json.fencing_token).toBeGreaterThan(c.json.fencing_token);

    // Free slot 0 too: the next claim gets 0, not 3.
    await suite.api("POST", "/v1/semaphores/slots/release", { permit_id: a.json.permit_id });
    expect((await acquire("slots", "e")).json.slot).toBe(0);
  });

  it("renew extends the caller's own permit only; release twice → 409", async () => {
    await create("renew", 2);
    const a = await acquire("renew", "a", 2_000);
    const renewed = await suite.api("POST", "/v1/semaphores/renew/renew", { permit_id: a.json.permit_id, ttl_ms: 30_000 });
    expect(renewed.status).toBe(200);
    expect(renewed.json).toMatchObject({ permit_id: a.json.permit_id, slot: 0, fencing_token: a.json.fencing_token, ttl_ms: 30_000 });
    expect(Date.parse(renewed.json.expires_at)).toBeGreaterThan(Date.parse(a.json.expires_at));
    expect((await suite.api("POST", "/v1/semaphores/renew/release", { permit_id: a.json.permit_id })).status).toBe(204);
    const twice = await suite.api("POST", "/v1/semaphores/renew/release", { permit_id: a.json.permit_id });
    expect(twice.status).toBe(409);
    expect(twice.json).toMatchObject({ type: "/problems/not-current-holder", state: "released", timed_out_at: null });
    expect(twice.json.released_at).toMatch(/Z$/);
    // A permit of another semaphore is not this one's.
    await create("renew-other", 1);
    const o = await acquire("renew-other", "o");
    expect((await suite.api("POST", "/v1/semaphores/renew/renew", { permit_id: o.json.permit_id })).json.state).toBe("unknown");
  });

  it("after a holder's TTL the next acquire takes the same slot with a larger fencing token; the old permit's renew/release → 409", async () => {
    await create("ttl", 2);
    const a = await acquire("ttl", "a", 1_000);
    const b = await acquire("ttl", "b", 60_000);
    expect([a.json.slot, b.json.slot]).toEqual([0, 1]);

    let c = await acquire("ttl", "c", 60_000);
    expect(c.status).toBe(429);
    await until(async () => (c = await acquire("ttl", "c", 60_000)).status === 201, 15_000, "slot 0 to time out");
    expect(c.json.slot).toBe(0);
    expect(c.json.fencing_token).toBeGreaterThan(a.json.fencing_token);
    expect(c.json.fencing_token).toBeGreaterThan(b.json.fencing_token);

    const renew = await suite.api("POST", "/v1/semaphores/ttl/renew", { permit_id: a.json.permit_id });
    expect(renew.status).toBe(409);
    expect(renew.json).toMatchObject({ state: "timed_out", timed_out_at: a.json.expires_at });
    expect((await suite.api("POST", "/v1/semaphores/ttl/release", { permit_id: a.json.permit_id })).status).toBe(409);

    // The history keeps every claim: a timed out at its expiry, b and c active.
    const history = await sql(
      suite.db,
      `SELECT holder, slot, admit_rfc3339(claimed_at) AS claimed_at, admit_rfc3339(timed_out_at) AS timed_out_at, released_at
      FROM permits WHERE kind = 'semaphore' AND name = 'ttl' ORDER BY fencing_token`,
    );
    expect(history).toEqual([
      { holder: "a", slot: 0, claimed_at: a.json.claimed_at, timed_out_at: a.json.expires_at, released_at: null },
      { holder: "b", slot: 1, claimed_at: b.json.claimed_at, timed_out_at: null, released_at: null },
      { holder: "c", slot: 0, claimed_at: c.json.claimed_at, timed_out_at: null, released_at: null },
    ]);
  });

  it("shrinking keeps current claims and grants new ones only below the new size", async () => {
    await create("shrink", 3);
    const held = [await acquire("shrink", "a"), await acquire("shrink", "b"), await acquire("shrink", "c")];
    await create("shrink", 2);
    expect((await acquire("shrink", "d")).status).toBe(429);
    await suite.api("POST", "/v1/semaphores/shrink/release", { permit_id: held[0].json.permit_id });
    expect((await acquire("shrink", "d")).status).toBe(429); // slots 1 and 2 still held: 2 in use of 2
    await suite.api("POST", "/v1/semaphores/shrink/release", { permit_id: held[2].json.permit_id });
    const d = await acquire("shrink", "d");
    expect(d.status).toBe(201);
    expect(d.json.slot).toBe(0);
  });
});

describe("the scheduled sweep", () => {
  it("marks expired permits timed out (at their expiry) and deletes history older than 30 days", async () => {
    await create("sweep", 2);
    const live = await acquire("sweep", "live", 60_000);
    // A claim made (on a test clock) two hours ago with a 1 s TTL: its holder crashed long ago.
    const [{ r }] = await sql<{ r: { permit: { permit_id: string; slot: number; expires_at: string } } }>(
      suite.db,
      "SELECT admit_permit_acquire(0, 'semaphore', 'sweep', 'crashed', 1000, 1000, now() - interval '2 hours') AS r",
    );
    expect([live.json.slot, r.permit.slot]).toEqual([0, 1]);
    await sql(
      suite.db,
      `INSERT INTO permits (kind, name, slot, holder, fencing_token, ttl_ms, claimed_at, expires_at, released_at)
      VALUES ('semaphore', 'sweep', 1, 'ancient', nextval('admit_fencing_token'), 1000, now() - interval '40 days', now() - interval '40 days', now() - interval '31 days')`,
    );

    const report = await sweep(bindings(suite.db));
    expect(report.permits).toBeGreaterThanOrEqual(2);
    const rows = await sql(suite.db, "SELECT holder, admit_rfc3339(timed_out_at) AS timed_out_at FROM permits WHERE name = 'sweep' ORDER BY fencing_token");
    expect(rows).toEqual([
      { holder: "live", timed_out_at: null },
      { holder: "crashed", timed_out_at: r.permit.expires_at },
    ]);
    expect((await suite.api("GET", "/v1/semaphores/sweep")).json).toMatchObject({ in_use: 1, available: 1 });
  });
});
