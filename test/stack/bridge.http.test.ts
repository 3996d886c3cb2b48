// The bridge as Neon's HTTP SQL endpoint (POST /sql) for the driver's own `neon()`, and the bounds
// of both its paths: a bounded pool per database for HTTP, at most `maxSessions` WebSocket
// sessions, and a certain "not run" (SQLSTATE 53300) for whoever waits past `queueMs`.
import { type Client, neon, neonConfig } from "@neondatabase/serverless";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Bridge, startBridge } from "../../dev/bridge";
import { createClient, RequestDb } from "../../functions/core/db";
import { ProblemError } from "../../functions/core/errors";
import { freshDatabase, sql, until } from "../support";

let db: string;
let bridge: Bridge;
beforeAll(async () => {
  db = await freshDatabase("bridge_http");
  await sql(db, "CREATE TABLE probe (v integer PRIMARY KEY)");
  bridge = await startBridge({ poolSize: 2, maxSessions: 2, queueMs: 300 });
  // This file's own endpoint for the bare driver (Admit's RequestDb passes it per query instead).
  neonConfig.fetchEndpoint = `http://${bridge.host}:${bridge.port}/sql`;
});
afterAll(async () => bridge?.close());

/** neon()'s queries are lazy (they run when awaited): start them now. */
const start = <T>(queries: PromiseLike<T>[]): Promise<T>[] => queries.map((q) => Promise.resolve(q));

const count = async (v: number) => (await sql<{ n: number }>(db, "SELECT count(*)::int AS n FROM probe WHERE v = $1", [v]))[0].n;

describe("POST /sql for neon()", () => {
  it("answers a statement in the driver's format: typed values, nulls, rows as objects", async () => {
    const q = neon(db);
    const rows = await q.query("SELECT $1::int AS n, $2::text AS t, NULL::jsonb AS j, '{\"a\":[1,2]}'::jsonb AS k, now() AS at", [7, "x"]);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ n: 7, t: "x", j: null, k: { a: [1, 2] } });
    expect(rows[0].at).toBeInstanceOf(Date);
  });

  it("runs a batch as one transaction: all of it commits, or none of it when a statement fails", async () => {
    const q = neon(db);
    await q.transaction([q.query("INSERT INTO probe VALUES (1)"), q.query("INSERT INTO probe VALUES (2)")]);
    expect((await count(1)) + (await count(2))).toBe(2);
    await expect(q.transaction([q.query("INSERT INTO probe VALUES (3)"), q.query("INSERT INTO probe VALUES (1)")])).rejects.toMatchObject({ code: "23505" });
    expect(await count(3)).toBe(0);
  });

  it("passes Postgres's error fields on, SQLSTATE and constraint included", async () => {
    await expect(neon(db).query("INSERT INTO probe VALUES (1)")).rejects.toMatchObject({ code: "23505", constraint: "probe_pkey", severity: "ERROR" });
  });

  it("refuses a target that is not loopback, and says so with a SQLSTATE, without connecting", async () => {
    const before = bridge.stats().refused;
    await expect(neon("postgres://u:p@10.1.2.3:5432/x").query("SELECT 1")).rejects.toMatchObject({ code: "08004" });
    expect(bridge.stats().refused).toBe(before + 1);
  });

  it("a Postgres that does not listen is a connection error with a SQLSTATE (08006): certainly not run", async () => {
    await expect(neon("postgres://u:p@127.0.0.1:1/x").query("SELECT 1")).rejects.toMatchObject({ code: "08006" });
  });

  it("refuses an answer over 10 MiB as Neon does: an error without a SQLSTATE, after the statement ran", async () => {
    const q = neon(db);
    expect((await q.query("SELECT repeat('x', 10 * 1024 * 1024 - 1000) AS s"))[0].s).toHaveLength(10 * 1024 * 1024 - 1000);
    const err = await q.query("SELECT repeat('x', 10 * 1024 * 1024) AS s").catch((e: unknown) => e);
    expect(err).toMatchObject({ message: expect.stringContaining("response is too large") });
    expect((err as { code?: unknown }).code).toBeUndefined();
  });

  it("counts one HTTP request per statement", async () => {
    const before = bridge.stats().httpRequests;
    const q = neon(db);
    for (let i = 0; i < 5; i++) await q.query("SELECT 1");
    expect(bridge.stats().httpRequests - before).toBe(5);
  });
});

describe("bounds: a burst waits its turn, and who waits too long is told nothing ran", () => {
  it("HTTP: with both pooled connections busy, a third statement waits; past queueMs it is refused with 53300 and never runs", async () => {
    const q = neon(db);
    const busy = start([q.query("SELECT pg_sleep(1.2)"), q.query("SELECT pg_sleep(1.2)")]);
    await until(async () => bridge.stats().poolActive === 2, 5_000, "two busy pooled connections");
    const before = bridge.stats().poolQueueTimeouts;
    await expect(q.query("INSERT INTO probe VALUES (40)")).rejects.toMatchObject({ code: "53300" });
    expect(bridge.stats().poolQueueTimeouts).toBe(before + 1);
    await Promise.all(busy);
    expect(await count(40)).toBe(0); // refused before it ran, and never run later
    // A wait shorter than queueMs is served: the queue, not a refusal.
    const [slow] = start([q.query("SELECT pg_sleep(0.1)")]);
    await q.query("INSERT INTO probe VALUES (41)");
    await slow;
    expect(await count(41)).toBe(1);
  });

  it("HTTP through Admit's handle: the refusal is a 503 with Retry-After, long before the request's budget", async () => {
    const q = neon(db);
    const busy = start([q.query("SELECT pg_sleep(1.2)"), q.query("SELECT pg_sleep(1.2)")]);
    await until(async () => bridge.stats().poolActive === 2, 5_000, "two busy pooled connections");
    const h = new RequestDb({ DATABASE_URL: db, NEON_WS_PROXY: bridge.wsProxy, DB_BUDGET_MS: "10000" });
    expect(h.transport).toBe("http");
    const err = await h.query("INSERT INTO probe VALUES (42)", [], { write: true }).catch((e) => e);
    expect(err).toBeInstanceOf(ProblemError);
    expect((err as ProblemError).problem.status).toBe(503);
    expect((err as ProblemError).headers["Retry-After"]).toBeDefined();
    expect(h.remainingMs()).toBeGreaterThan(5_000); // answered at the queue deadline, not the budget's end
    await Promise.all(busy);
    expect(await count(42)).toBe(0);
  });

  it("WebSocket: at most maxSessions at once; the next waits, and past queueMs gets 53300 before anything ran", async () => {
    const held: Client[] = [];
    for (let i = 0; i < 2; i++) {
      const c = createClient({ DATABASE_URL: db, NEON_WS_PROXY: bridge.wsProxy });
      await c.connect();
      held.push(c);
    }
    const before = bridge.stats().sessionQueueTimeouts;
    const third = createClient({ DATABASE_URL: db, NEON_WS_PROXY: bridge.wsProxy });
    await expect(third.connect()).rejects.toMatchObject({ code: "53300" });
    expect(bridge.stats().sessionQueueTimeouts).toBe(before + 1);
    // One session ends within queueMs of the next asking: that one is served, in its turn.
    const fourth = createClient({ DATABASE_URL: db, NEON_WS_PROXY: bridge.wsProxy });
    const connecting = fourth.connect();
    await until(async () => bridge.stats().sessionsWaiting === 1, 2_000, "a session waiting");
    await held.pop()!.end();
    await connecting;
    expect((await fourth.query("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
    await fourth.end();
    await Promise.all(held.map((c) => c.end()));
    await until(async () => bridge.stats().open === 0, 5_000, "sessions closed");
  });
});
