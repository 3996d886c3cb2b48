// In-request locks (withTryLock / withLock) against real Postgres, and the lease endpoints over HTTP.
import { describe, expect, it } from "vitest";
import { RequestDb } from "../../functions/core/db";
import { ProblemError } from "../../functions/core/errors";
import { lockKey } from "../../functions/core/lock-keys";
import { orConflict, withLock, withTryLock } from "../../functions/permits/locks";
import { bindings, client, connect, heldAdvisoryKeys, serveApp, servedApp, sql, until } from "../support";

const suite = servedApp("locks");

/** A test connection holding the in-request lock of `key` in an open transaction. */
async function holdLock(db: string, key: string) {
  const holder = await connect(db);
  await holder.query("BEGIN");
  await holder.query("SELECT pg_advisory_xact_lock($1::bigint)", [lockKey("lock", key)]);
  return holder;
}

const newDb = () => new RequestDb(bindings(suite.db));

describe("withTryLock", () => {
  it("runs fn in the same transaction that holds the lock, and the lock ends with it", async () => {
    const db = newDb();
    try {
      const r = await withTryLock(db, "lib/a", async (tx) => {
        const [row] = await tx.query<{ mine: boolean; in_tx: boolean }>(
          "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND granted) AS mine, now() <> statement_timestamp() AS in_tx",
        );
        return row;
      });
      expect(r).toEqual({ acquired: true, value: { mine: true, in_tx: true } });
      expect(await heldAdvisoryKeys(suite.db)).not.toContain(lockKey("lock", "lib/a"));
    } finally {
      await db.close();
    }
  });

  it("a held key → {acquired: false} at once and fn never runs; orConflict turns it into 409 + Retry-After", async () => {
    const holder = await holdLock(suite.db, "lib/held");
    const db = newDb();
    try {
      let ran = false;
      const r = await withTryLock(db, "lib/held", async () => {
        ran = true;
      });
      expect(r).toEqual({ acquired: false, key: "lib/held" });
      expect(ran).toBe(false);
      let thrown: unknown;
      try {
        orConflict(r);
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(ProblemError);
      expect((thrown as ProblemError).problem).toMatchObject({ status: 409, type: "/problems/lock-unavailable", key: "lib/held" });
      expect((thrown as ProblemError).headers["Retry-After"]).toBe("1");
      // Another key is not behind it.
      expect(await withTryLock(db, "lib/other", async () => 7)).toEqual({ acquired: true, value: 7 });
    } finally {
      await holder.query("ROLLBACK");
      await holder.end();
      await db.close();
    }
  });

  it("fn throwing rolls back and frees the lock", async () => {
    const db = newDb();
    try {
      await expect(
        withTryLock(db, "lib/throws", async (tx) => {
          await tx.query("CREATE TABLE lib_probe (x integer)", [], { write: true });
          throw new Error("boom");
        }),
      ).rejects.toThrow("boom");
      expect(await withTryLock(db, "lib/throws", async () => "again")).toEqual({ acquired: true, value: "again" });
      expect(await sql(suite.db, "SELECT to_regclass('lib_probe') AS t")).toEqual([{ t: null }]);
    } finally {
      await db.close();
    }
  });
});

describe("withLock (bounded wait)", () => {
  it("gives up after waitMs with {acquired: false}, and an outer transaction stays usable", async () => {
    const holder = await holdLock(suite.db, "lib/wait");
    const db = newDb();
    try {
      const out = await db.transaction(async (tx) => {
        const r = await withLock(tx, "lib/wait", async () => "never", { waitMs: 200 });
        // The timed-out wait rolled back only its own subtransaction, and lock_timeout is as before.
        const [after] = await tx.query<{ ok: number; lt: string }>("SELECT 1 AS ok, current_setting('lock_timeout') AS lt");
        return { r, after };
      });
      expect(out).toEqual({ r: { acquired: false, key: "lib/wait" }, after: { ok: 1, lt: "0" } });
    } finally {
      await holder.query("ROLLBACK");
      await holder.end();
      await db.close();
    }
  });

  it("waits while the holder works and gets the lock the moment it commits", async () => {
    const holder = await holdLock(suite.db, "lib/handover");
    const db = newDb();
    try {
      const waiting = withLock(db, "lib/handover", async (tx) => (await tx.query<{ lt: string }>("SELECT current_setting('lock_timeout') AS lt"))[0].lt, {
        waitMs: 4_000,
      });
      // The waiter is queued on the advisory lock (not granted) before the holder lets go.
      await until(
        async () => (await sql(suite.db, "SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")).length > 0,
        10_000,
        "the waiter to queue",
      );
      await holder.query("COMMIT");
      expect(await waiting).toEqual({ acquired: true, value: "0" });
    } finally {
      await holder.end();
      await db.close();
    }
  });
});

describe("leases over HTTP", () => {
  it("acquire → 201; someone else → 409 with holder, expires_at and Retry-After; GET shows the holder", async () => {
    const a = await suite.api("POST", "/v1/locks/report%2Fnightly/acquire", { holder: "a", ttl_ms: 30_000 });
    expect(a.status).toBe(201);
    expect(a.json).toMatchObject({ key: "report/nightly", holder: "a", ttl_ms: 30_000 });
    expect(a.json.lease_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number.isInteger(a.json.fencing_token)).toBe(true);
    expect(Date.parse(a.json.expires_at) - Date.parse(a.json.claimed_at)).toBe(30_000);

    const b = await suite.api("POST", "/v1/locks/report%2Fnightly/acquire", { holder: "b", ttl_ms: 5_000 });
    expect(b.status).toBe(409);
    expect(b.headers.get("content-type")).toBe("application/problem+json");
    expect(b.json).toMatchObject({ type: "/problems/lock-held", key: "report/nightly", holder: "a", expires_at: a.json.expires_at });
    const retry = Number(b.headers.get("retry-after"));
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(30);

    const got = await suite.api("GET", "/v1/locks/report%2Fnightly");
    expect(got.status).toBe(200);
    expect(got.json).toEqual({
      key: "report/nightly",
      held: true,
      holder: "a",
      fencing_token: a.json.fencing_token,
      claimed_at: a.json.claimed_at,
      expires_at: a.json.expires_at,
    });
    expect(JSON.stringify(got.json)).not.toContain(a.json.lease_id);
  });

  it("renew extends (same token), release frees at once, and neither works twice", async () => {
    const a = await suite.api("POST", "/v1/locks/rr/acquire", { holder: "a", ttl_ms: 2_000 });
    const renewed = await suite.api("POST", "/v1/locks/rr/renew", { lease_id: a.json.lease_id, ttl_ms: 60_000 });
    expect(renewed.status).toBe(200);
    expect(renewed.json).toMatchObject({ lease_id: a.json.lease_id, fencing_token: a.json.fencing_token, ttl_ms: 60_000 });
    expect(Date.parse(renewed.json.expires_at)).toBeGreaterThan(Date.parse(a.json.expires_at));
    // Renew without ttl_ms keeps the lease's TTL.
    expect((await suite.api("POST", "/v1/locks/rr/renew", { lease_id: a.json.lease_id })).json.ttl_ms).toBe(60_000);

    expect((await suite.api("POST", "/v1/locks/rr/release", { lease_id: a.json.lease_id })).status).toBe(204);
    expect((await suite.api("GET", "/v1/locks/rr")).json).toMatchObject({ held: false, holder: null, expires_at: null });

    const again = await suite.api("POST", "/v1/locks/rr/release", { lease_id: a.json.lease_id });
    expect(again.status).toBe(409);
    expect(again.json).toMatchObject({ type: "/problems/not-current-holder", state: "released" });
    expect((await suite.api("POST", "/v1/locks/rr/renew", { lease_id: a.json.lease_id })).json.state).toBe("released");

    const b = await suite.api("POST", "/v1/locks/rr/acquire", { holder: "b", ttl_ms: 2_000 });
    expect(b.status).toBe(201);
    expect(b.json.fencing_token).toBeGreaterThan(a.json.fencing_token);
    // A lease id is only good for its own key, and an unknown one is refused.
    expect((await suite.api("POST", "/v1/locks/other/release", { lease_id: b.json.lease_id })).json.state).toBe("unknown");
    expect((await suite.api("POST", "/v1/locks/rr/release", { lease_id: "00000000-0000-4000-8000-000000000000" })).json.state).toBe("unknown");
    expect((await suite.api("GET", "/v1/locks/rr")).json.holder).toBe("b");
  });

  it("after the TTL the next acquire takes over with a larger fencing token; the old lease's renew/release → 409", async () => {
    const a = await suite.api("POST", "/v1/locks/ttl/acquire", { holder: "a", ttl_ms: 1_000 });
    expect(a.status).toBe(201);
    let b = await suite.api("POST", "/v1/locks/ttl/acquire", { holder: "b", ttl_ms: 30_000 });
    // Poll (1 s is the minimum TTL) until the database clock says the lease has expired.
    await until(async () => (b = await suite.api("POST", "/v1/locks/ttl/acquire", { holder: "b", ttl_ms: 30_000 })).status === 201, 15_000, "takeover");
    expect(b.json.fencing_token).toBeGreaterThan(a.json.fencing_token);
    expect(Date.parse(b.json.claimed_at)).toBeGreaterThanOrEqual(Date.parse(a.json.expires_at));

    const renew = await suite.api("POST", "/v1/locks/ttl/renew", { lease_id: a.json.lease_id, ttl_ms: 30_000 });
    expect(renew.status).toBe(409);
    expect(renew.json).toMatchObject({ state: "timed_out", timed_out_at: a.json.expires_at });
    expect((await suite.api("POST", "/v1/locks/ttl/release", { lease_id: a.json.lease_id })).status).toBe(409);
    expect((await suite.api("GET", "/v1/locks/ttl")).json).toMatchObject({ holder: "b", fencing_token: b.json.fencing_token });

    const history = await sql(
      suite.db,
      "SELECT holder, admit_rfc3339(timed_out_at) AS timed_out_at, released_at FROM permits WHERE kind = 'lease' AND name = 'ttl' ORDER BY fencing_token",
    );
    expect(history).toEqual([
      { holder: "a", timed_out_at: a.json.expires_at, released_at: null },
      { holder: "b", timed_out_at: null, released_at: null },
    ]);
  });

  it("refuses bad input with 422 and field errors", async () => {
    const cases: Array<[string, unknown, string]> = [
      ["/v1/locks/k/acquire", { holder: "a", ttl_ms: 999 }, "ttl_ms"],
      ["/v1/locks/k/acquire", { holder: "a", ttl_ms: 3_600_001 }, "ttl_ms"],
      ["/v1/locks/k/acquire", { holder: "a", ttl_ms: 1_500.5 }, "ttl_ms"],
      ["/v1/locks/k/acquire", { ttl_ms: 1_000 }, "holder"],
      ["/v1/locks/k/acquire", { holder: "", ttl_ms: 1_000 }, "holder"],
      ["/v1/locks/k/renew", { lease_id: "nope" }, "lease_id"],
      ["/v1/locks/k/release", {}, "lease_id"],
    ];
    for (const [path, body, field] of cases) {
      const res = await suite.api("POST", path, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.json.errors.map((e: { path: string }) => e.path)).toContain(field);
    }
    const long = await suite.api("POST", `/v1/locks/${"k".repeat(201)}/acquire`, { holder: "a", ttl_ms: 1_000 });
    expect(long.status).toBe(422);
  });
});

describe("an unreachable database", () => {
  it("lease, semaphore and invoice writes answer 503 + Retry-After (nothing applied), never hang or 500", async () => {
    const down = await serveApp(bindings("postgres://admit:x@127.0.0.1:1/nothing"));
    try {
      const api = client(down.url);
      for (const [method, path, body] of [
        ["POST", "/v1/locks/k/acquire", { holder: "h", ttl_ms: 1_000 }],
        ["GET", "/v1/locks/k", undefined],
        ["PUT", "/v1/semaphores/s", { permits: 2 }],
        ["POST", "/v1/semaphores/s/acquire", { holder: "h" }],
        ["POST", "/v1/invoices/generate", { subscription_id: "S", kind: "usage" }],
      ] as const) {
        const res = await api(method, path, body);
        expect(res.status, path).toBe(503);
        expect(res.json.type).toBe("/problems/database-unavailable");
        expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      }
    } finally {
      await down.close();
    }
  });
});
