// Seed 002: one invoice generation per subscription at a time, with real simultaneous HTTP requests.
import { describe, expect, it } from "vitest";
import { lockKey } from "../../functions/core/lock-keys";
import { heldAdvisoryKeys, servedApp, sql, until } from "../support";

const suite = servedApp("invoices");

const generate = (subscription_id: string, kind: "usage" | "recurring", work_ms = 0) =>
  suite.api("POST", "/v1/invoices/generate", { subscription_id, kind, work_ms });
const lockOf = (sub: string) => lockKey("lock", `invoice_gen/${sub}`);

/** The backend running the generation for `sub` (found by its advisory lock). */
async function generatorPid(sub: string): Promise<number | undefined> {
  const [classid, objid] = (() => {
    const k = BigInt.asUintN(64, BigInt(lockOf(sub)));
    return [String(k >> 32n), String(k & 0xffffffffn)];
  })();
  const rows = await sql<{ pid: number }>(
    suite.db,
    "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND classid = $1::oid AND objid = $2::oid AND objsubid = 1",
    [classid, objid],
  );
  return rows[0]?.pid;
}

describe("seed 002: invoice generation under invoice_gen/<subscription_id>", () => {
  it("generates and records an invoice; numbers count up per subscription", async () => {
    const a = await generate("SUB-1", "usage");
    expect(a.status).toBe(201);
    expect(a.json).toMatchObject({ subscription_id: "SUB-1", kind: "usage", number: 1, work_ms: 0 });
    expect((await generate("SUB-1", "recurring")).json.number).toBe(2);
    expect((await generate("SUB-2", "recurring")).json.number).toBe(1);
    expect(await sql(suite.db, "SELECT subscription_id, kind, number FROM invoices ORDER BY subscription_id, number")).toEqual([
      { subscription_id: "SUB-1", kind: "usage", number: 1 },
      { subscription_id: "SUB-1", kind: "recurring", number: 2 },
      { subscription_id: "SUB-2", kind: "recurring", number: 1 },
    ]);
  });

  it("two simultaneous generations for one subscription (the seed's M1 and M2) → one runs, one 409 at once", async () => {
    const [m1, m2] = await Promise.all([generate("SUB-1234", "usage", 3000), generate("SUB-1234", "recurring", 3000)]);
    const statuses = [m1.status, m2.status].sort();
    expect(statuses).toEqual([201, 409]);
    const loser = m1.status === 409 ? m1 : m2;
    expect(loser.headers.get("content-type")).toBe("application/problem+json");
    expect(loser.headers.get("retry-after")).toBe("1");
    expect(loser.json).toMatchObject({ type: "/problems/lock-unavailable", key: "invoice_gen/SUB-1234" });
    expect(await sql(suite.db, "SELECT count(*)::int AS n FROM invoices WHERE subscription_id = 'SUB-1234'")).toEqual([{ n: 1 }]);
  });

  it("a second request while one is running → 409 without waiting for it", async () => {
    const running = generate("SUB-BUSY", "usage", 3000);
    await until(async () => (await generatorPid("SUB-BUSY")) !== undefined, 10_000, "the generation to hold its lock");
    const second = await generate("SUB-BUSY", "recurring");
    expect(second.status).toBe(409);
    expect((await running).status).toBe(201);
    expect((await generate("SUB-BUSY", "recurring")).status).toBe(201);
  });

  it("generations for different subscriptions run at the same time", async () => {
    const both = Promise.all([generate("SUB-A", "usage", 3000), generate("SUB-B", "usage", 3000)]);
    // Both locks are held at one moment: neither waited for the other.
    await until(
      async () => {
        const held = await heldAdvisoryKeys(suite.db);
        return held.includes(lockOf("SUB-A")) && held.includes(lockOf("SUB-B"));
      },
      10_000,
      "both generations to hold their locks at once",
    );
    const [a, b] = await both;
    expect([a.status, b.status]).toEqual([201, 201]);
    // And the database's own clock agrees: the two generations' [started, finished] intervals overlap.
    const [{ overlap }] = await sql<{ overlap: boolean }>(
      suite.db,
      "SELECT tstzrange(a.started_at, a.finished_at) && tstzrange(b.started_at, b.finished_at) AS overlap FROM invoices a, invoices b WHERE a.subscription_id = 'SUB-A' AND b.subscription_id = 'SUB-B'",
    );
    expect(overlap).toBe(true);
  });

  it("a generation whose connection is killed mid-way leaves the lock free at once, and nothing recorded", async () => {
    const doomed = generate("SUB-K", "usage", 3000);
    let pid: number | undefined;
    await until(async () => (pid = await generatorPid("SUB-K")) !== undefined, 10_000, "the generation to hold its lock");
    const [{ terminated }] = await sql<{ terminated: boolean }>(suite.db, "SELECT pg_terminate_backend($1) AS terminated", [pid]);
    expect(terminated).toBe(true);
    // The very next request gets the lock: no lease to wait out, no cleanup needed.
    const next = await generate("SUB-K", "recurring");
    expect(next.status).toBe(201);
    expect(next.json.number).toBe(1);
    const killed = await doomed;
    expect(killed.status).toBe(503); // rolled back with its connection: certainly not applied
    expect(await sql(suite.db, "SELECT kind FROM invoices WHERE subscription_id = 'SUB-K'")).toEqual([{ kind: "recurring" }]);
  });

  it("refuses bad input with 422", async () => {
    for (const body of [
      { kind: "usage" },
      { subscription_id: "", kind: "usage" },
      { subscription_id: "S", kind: "other" },
      { subscription_id: "S", kind: "usage", work_ms: 3001 },
      { subscription_id: "S", kind: "usage", work_ms: -1 },
    ]) {
      const res = await suite.api("POST", "/v1/invoices/generate", body);
      expect(res.status, JSON.stringify(body)).toBe(422);
    }
  });
});
