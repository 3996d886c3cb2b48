// The request database handle's explicit transactions, against real Postgres through the bridge.
import { beforeAll, describe, expect, it } from "vitest";
import { type Bridge, startBridge } from "../../dev/bridge";
import { coalescedWebSocket, mapSqlError, RequestDb } from "../../functions/core/db";
import { ProblemError } from "../../functions/core/errors";
import { bindings, freshDatabase, sql, until } from "../support";

let db: string;
beforeAll(async () => {
  db = await freshDatabase("db");
  await sql(db, "CREATE TABLE tx_probe (v integer PRIMARY KEY)");
});

describe("RequestDb.transaction", () => {
  it("commits everything fn wrote, in one transaction", async () => {
    const h = new RequestDb(bindings(db));
    const pids = await h.transaction(async (tx) => {
      await tx.query("INSERT INTO tx_probe VALUES (1)", [], { write: true });
      await tx.query("INSERT INTO tx_probe VALUES (2)", [], { write: true });
      return tx.query<{ x: string }>("SELECT txid_current_if_assigned()::text AS x");
    });
    await h.close();
    expect(pids[0].x).not.toBeNull();
    expect(await sql(db, "SELECT v FROM tx_probe ORDER BY v")).toEqual([{ v: 1 }, { v: 2 }]);
  });

  it("rolls back all of it when fn throws, including after a SQL error", async () => {
    const h = new RequestDb(bindings(db));
    await expect(
      h.transaction(async (tx) => {
        await tx.query("INSERT INTO tx_probe VALUES (3)", [], { write: true });
        await tx.query("INSERT INTO tx_probe VALUES (1)", [], { write: true }); // duplicate → 23505
      }),
    ).rejects.toMatchObject({ problem: { status: 409 } });
    expect(h.inTransaction).toBe(false);
    // The connection is usable again after the rollback.
    expect(await h.query("SELECT 1 AS one")).toEqual([{ one: 1 }]);
    await h.close();
    expect(await sql(db, "SELECT v FROM tx_probe WHERE v = 3")).toEqual([]);
  });

  it("joins an outer transaction instead of committing it, and flags a failed statement", async () => {
    const h = new RequestDb(bindings(db));
    await h.begin();
    await h.transaction((tx) => tx.query("INSERT INTO tx_probe VALUES (4)", [], { write: true }));
    expect(h.inTransaction).toBe(true);
    expect(await sql(db, "SELECT v FROM tx_probe WHERE v = 4")).toEqual([]); // not committed yet
    await expect(h.query("SELECT 1/0")).rejects.toBeInstanceOf(ProblemError);
    expect(h.transactionFailed).toBe(true);
    await h.rollback();
    await h.close();
    expect(await sql(db, "SELECT v FROM tx_probe WHERE v = 4")).toEqual([]);
  });
});

describe("mapSqlError", () => {
  it("the database's own trouble is a 503 with Retry-After, an unknown completion a 504; an unforeseen SQLSTATE is still a bug", () => {
    const cases: [string, number, string][] = [
      ["XX000", 503, "2"],
      ["58030", 503, "2"],
      ["25006", 503, "30"],
      ["42501", 503, "30"],
      ["40003", 504, "1"],
    ];
    for (const [state, status, retryAfter] of cases) {
      const p = mapSqlError(state, new Error("from Postgres"));
      expect([p.problem.status, p.headers["Retry-After"]], state).toEqual([status, retryAfter]);
    }
    // 0A000 (feature not supported): no request causes it, so it is a bug (this asserted 23503 before issue 28).
    expect(() => mapSqlError("0A000", new Error("not supported"))).toThrow(/unexpected SQLSTATE 0A000/);
  });

  it("a foreign key broken by a concurrent delete (23503) is a 409 conflict naming the constraint, not a 500", () => {
    const err = Object.assign(new Error("insert or update on table … violates foreign key constraint"), { constraint: "ratelimit_overrides_policy_fkey" });
    const p = mapSqlError("23503", err);
    expect([p.problem.status, p.problem.type, p.headers["Retry-After"]]).toEqual([409, "/problems/conflict", undefined]);
    expect(p.problem.detail).toContain("ratelimit_overrides_policy_fkey");
  });
});

describe("RequestDb.commit after a failed statement", () => {
  it("a failure caught inside fn is not reported as saved: the commit throws and nothing is written", async () => {
    const h = new RequestDb(bindings(db));
    const outcome = await h
      .transaction(async (tx) => {
        await tx.query("INSERT INTO tx_probe VALUES (5)", [], { write: true });
        // A caller that treats a duplicate as "already there" and goes on: Postgres has aborted the transaction.
        await tx.query("INSERT INTO tx_probe VALUES (1)", [], { write: true }).catch(() => undefined);
        return "saved";
      })
      .then(
        (v) => v,
        (err: Error) => err.message,
      );
    expect(outcome).toMatch(/^commit\(\): a statement failed inside this transaction/);
    expect(h.inTransaction).toBe(false);
    expect(await h.query("SELECT 1 AS one")).toEqual([{ one: 1 }]);
    await h.close();
    expect(await sql(db, "SELECT v FROM tx_probe WHERE v = 5")).toEqual([]);
  });
});

describe("the driver's writes: one WebSocket frame per statement", () => {
  // A private bridge, so its message counts are this test's alone.
  let bridge: Bridge;
  beforeAll(async () => {
    bridge = await startBridge();
    return () => bridge.close();
  });

  it("sends a pipelined connect with its first query as one frame, each later statement as one, and the Terminate on close", async () => {
    const h = new RequestDb(bindings(db, { NEON_WS_PROXY: bridge.wsProxy, DB_TRANSPORT: "websocket" }));
    expect(await h.query("SELECT $1::int AS n", [1])).toEqual([{ n: 1 }]);
    expect(bridge.stats().clientMessages).toBe(1); // startup + password + Parse/Bind/Describe/Execute/Sync
    expect(await h.query("SELECT $1::int AS n", [2])).toEqual([{ n: 2 }]);
    expect(bridge.stats().clientMessages).toBe(2);
    await h.close();
    await until(async () => bridge.stats().open === 0, 5_000, "bridge connection closed");
    expect(bridge.stats().clientMessages).toBe(3); // + Terminate, flushed before the socket closed
  });

  it("gathers the writes of one turn into one frame, in order, and flushes before close", async () => {
    const frames: Uint8Array[] = [];
    const events: string[] = [];
    class FakeSocket {
      constructor(readonly url: string) {}
      send(data: Uint8Array) {
        frames.push(data);
        events.push("send");
      }
      close() {
        events.push("close");
      }
    }
    const Ws = coalescedWebSocket(FakeSocket as never);
    expect(coalescedWebSocket(Ws)).toBe(Ws); // never wrapped twice
    const ws = new Ws("ws://x");
    ws.send(new Uint8Array([1, 2]));
    ws.send(new Uint8Array([3]));
    ws.send(new Uint8Array([4, 5, 6]).subarray(1)); // a view: only its own bytes
    expect(frames).toEqual([]); // nothing leaves within the turn
    await new Promise((r) => setImmediate(r));
    expect(frames.map((f) => [...f])).toEqual([[1, 2, 3, 5, 6]]);
    ws.send(new Uint8Array([7]));
    ws.close();
    expect(events).toEqual(["send", "send", "close"]);
    expect([...frames[1]]).toEqual([7]);
  });
});

describe("an answer over Neon's 10 MiB (issue 28, item 5)", () => {
  it("is a 422 response-too-large that says how to ask for less, not a retryable 503 — for a read and for a write", async () => {
    const h = new RequestDb(bindings(db));
    const read = await h.query("SELECT repeat('x', 11 * 1024 * 1024) AS big").catch((e: unknown) => e);
    expect(read).toBeInstanceOf(ProblemError);
    const p = (read as ProblemError).problem;
    expect(p).toMatchObject({ type: "/problems/response-too-large", status: 422 });
    expect(p.detail).toMatch(/Ask for less/);
    expect((read as ProblemError).headers["Retry-After"]).toBeUndefined();
    // The statement ran before its answer was refused: a write says so.
    const write = await h
      .query("INSERT INTO tx_probe VALUES (77) RETURNING repeat('y', 11 * 1024 * 1024) AS big", [], { write: true })
      .catch((e: unknown) => e);
    expect((write as ProblemError).problem).toMatchObject({ type: "/problems/response-too-large", status: 422 });
    expect((write as ProblemError).problem.detail).toMatch(/read the resource back/);
    // Just under the limit is answered.
    const [{ n }] = await h.query<{ n: number }>("SELECT length(repeat('x', 9 * 1024 * 1024)) AS n");
    expect(n).toBe(9 * 1024 * 1024);
    await h.close();
  });
});
