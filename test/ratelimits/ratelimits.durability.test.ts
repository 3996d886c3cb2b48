// What a Worker's check commits, and how (docs/ratelimits.md#durability): with p_edge (the statement
// the Worker sends as its own transaction) a counter of a policy that is not durable commits
// asynchronously, a durable one synchronously; a refusal the committed counter already decides is
// answered from a read that writes nothing (counted: false, left to the caller's tally); without
// p_edge (SQL callers, explicit transactions) nothing changes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, freshDatabase, sql } from "../support";

let db: string;
let c: Awaited<ReturnType<typeof connect>>;
const YEAR = 365 * 86_400_000;
const HOUR = 3_600_000;

beforeAll(async () => {
  db = await freshDatabase("ratelimits_durability");
  c = await connect(db);
  // The test cluster commits asynchronously everywhere; this session commits as Neon's do.
  await c.query("SET synchronous_commit = on");
  for (const [name, algorithm, durable] of [
    ["fw", "fixed_window", false],
    ["fw-durable", "fixed_window", true],
    ["tb", "token_bucket", false],
    ["sw", "sliding_window", false],
    ["sw-hour", "sliding_window", false],
  ] as const) {
    const windowMs = name === "sw-hour" ? HOUR : YEAR;
    await c.query("SELECT admit_ratelimit_put_policy($1, $2, 2, $3::bigint, false, $3::bigint, p_durable => $4)", [name, algorithm, windowMs, durable]);
  }
}, 120_000);

afterAll(async () => {
  await c?.end();
});

/** One check as the Worker sends it (or, edge false, as a SQL caller does): its answer, its transaction's synchronous_commit, and whether it wrote. */
async function check(policy: string, key: string, edge = true) {
  const { rows } = await c.query(
    `SELECT admit_ratelimit_check($1, $2, 1, NULL, 1000, p_edge => $3) AS r, current_setting('synchronous_commit') AS sync, pg_current_xact_id_if_assigned() IS NOT NULL AS wrote`,
    [policy, key, edge],
  );
  return rows[0] as {
    r: { allowed: boolean; counted?: boolean; remaining: number; retry_after_ms: number | null; window_start_ms?: number };
    sync: string;
    wrote: boolean;
  };
}

async function counter(policy: string, key: string) {
  const [row] = await sql<{ admitted: number; attempted: number; rejected: number }>(
    db,
    "SELECT admitted::int, attempted::int, rejected::int FROM ratelimit_counters WHERE policy = $1 AND key = $2",
    [policy, key],
  );
  return row;
}

describe("a Worker's check commits asynchronously unless its policy is durable", () => {
  it("non-durable: synchronous_commit off for its transaction; durable: on; a SQL caller's check: on", async () => {
    expect(await check("fw", "a")).toMatchObject({ sync: "off", wrote: true, r: { allowed: true } });
    expect(await check("fw-durable", "a")).toMatchObject({ sync: "on", wrote: true, r: { allowed: true } });
    expect(await check("fw", "b", false)).toMatchObject({ sync: "on", wrote: true });
    // Transaction-scoped: the next statement is back at the session's setting.
    expect((await c.query("SELECT current_setting('synchronous_commit') AS s")).rows[0].s).toBe("on");
  });

  it("a batch commits asynchronously only when none of its policies is durable", async () => {
    const batch = async (items: unknown[], edge = true) =>
      (
        await c.query("SELECT admit_ratelimit_check_batch($1::jsonb, 1000, $2) AS r, current_setting('synchronous_commit') AS sync", [
          JSON.stringify(items),
          edge,
        ])
      ).rows[0] as { r: { allowed: boolean }[]; sync: string };
    expect(
      await batch([
        { p: "fw", k: "c", c: 1 },
        { p: "tb", k: "c", c: 1 },
      ]),
    ).toMatchObject({ sync: "off" });
    expect(
      await batch([
        { p: "fw", k: "d", c: 1 },
        { p: "fw-durable", k: "d", c: 1 },
      ]),
    ).toMatchObject({ sync: "on" });
    expect(await batch([{ ps: ["fw", "fw-durable"], k: "e", c: 1 }])).toMatchObject({ sync: "on" });
    expect(await batch([{ p: "fw", k: "f", c: 1 }], false)).toMatchObject({ sync: "on" });
  });
});

describe("a refusal the committed counter decides is a read", () => {
  for (const policy of ["fw", "tb", "sw"]) {
    it(`${policy}: once the limit is spent, a Worker's check refuses without writing (counted: false); a SQL caller's still counts`, async () => {
      const key = `read-${policy}`;
      expect((await check(policy, key)).r.allowed).toBe(true);
      expect((await check(policy, key)).r.allowed).toBe(true);
      const refused = await check(policy, key);
      expect(refused).toMatchObject({ wrote: false, r: { allowed: false, counted: false, remaining: 0 } });
      expect(refused.r.retry_after_ms).toBeGreaterThan(0);
      expect(typeof refused.r.window_start_ms).toBe("number");
      expect(await counter(policy, key)).toEqual({ admitted: 2, attempted: 2, rejected: 0 });
      // Without p_edge the refusal is decided and counted in the database, as before.
      const counted = await check(policy, key, false);
      expect(counted).toMatchObject({ wrote: true, r: { allowed: false } });
      expect(counted.r.counted).toBeUndefined();
      expect(await counter(policy, key)).toEqual({ admitted: 2, attempted: 3, rejected: 1 });
      // The same answer either way (its times aside, taken a statement apart), but for the read's two fields.
      const { counted: _c, window_start_ms: _w, ...read } = refused.r;
      expect(Object.keys(read).sort()).toEqual(Object.keys(counted.r).sort());
      const stable = (r: Record<string, unknown>) => ({ ...r, reset_ms: 0, retry_after_ms: 0, wait1_ms: 0 });
      expect(stable(read)).toEqual(stable(counted.r));
    });
  }

  it("a sliding window refused by its previous window's weight alone: read, and the same answer the locked write gives", async () => {
    const at = async (key: string, when: string, edge: boolean) =>
      (
        await c.query(
          "SELECT admit_ratelimit_check('sw-hour', $1, 1, NULL, 1000, $2::timestamptz, p_edge => $3) AS r, pg_current_xact_id_if_assigned() IS NOT NULL AS wrote",
          [key, when, edge],
        )
      ).rows[0] as { r: Record<string, unknown>; wrote: boolean };
    for (const key of ["p1", "p2"]) {
      // The previous hour spent at its end; 6 minutes into the next one, 90% of it still counts.
      expect((await at(key, "2040-01-01T09:59:00Z", true)).r.allowed).toBe(true);
      expect((await at(key, "2040-01-01T09:59:30Z", true)).r.allowed).toBe(true);
    }
    const read = await at("p1", "2040-01-01T10:06:00Z", true);
    expect(read).toMatchObject({ wrote: false, r: { allowed: false, counted: false, remaining: 0 } });
    const locked = await at("p2", "2040-01-01T10:06:00Z", false);
    expect(locked).toMatchObject({ wrote: true, r: { allowed: false } });
    const { counted: _c, window_start_ms: ws, ...rest } = read.r;
    expect(ws).toBe(Date.parse("2040-01-01T10:00:00Z"));
    expect({ ...rest, key: "p2" }).toEqual(locked.r);
    // The read wrote no row for the new hour; the locked write did (attempted, rejected).
    const rows = await sql<{ key: string; attempted: number; rejected: number }>(
      db,
      "SELECT key, attempted::int, rejected::int FROM ratelimit_counters WHERE policy = 'sw-hour' AND window_start = '2040-01-01T10:00:00Z' ORDER BY key",
    );
    expect(rows).toEqual([{ key: "p2", attempted: 1, rejected: 1 }]);
  });

  it("a batch answers a spent key's checks from reads and writes nothing for them", async () => {
    await check("fw", "g");
    await check("fw", "g");
    const { rows } = await c.query("SELECT admit_ratelimit_check_batch($1::jsonb, 1000, true) AS r, pg_current_xact_id_if_assigned() IS NOT NULL AS wrote", [
      JSON.stringify([
        { p: "fw", k: "g", c: 1 },
        { p: "fw", k: "g", c: 2 },
      ]),
    ]);
    expect(rows[0].wrote).toBe(false);
    expect(rows[0].r.map((x: { allowed: boolean; counted?: boolean }) => [x.allowed, x.counted])).toEqual([
      [false, false],
      [false, false],
    ]);
    expect(await counter("fw", "g")).toEqual({ admitted: 2, attempted: 2, rejected: 0 });
  });
});
