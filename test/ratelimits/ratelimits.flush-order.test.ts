// A counting flush (functions/core/tally.ts → admit_observe_flush) against the checks, on real
// Postgres with the interleavings made deterministic by holding row locks from test sessions:
// - a flush and a check batch take counter rows in one order, (key, policy), so they never deadlock;
// - a flush Postgres refused (lock timeout: 503; deadlock victim: 409) keeps its counts and sends them
//   again, within its chain, once the lock is free: none lost, none counted twice.
import { afterEach, describe, expect, it, vi } from "vitest";
import { Tally } from "../../functions/core/tally";
import { bindings, connect, servedApp, sql, until } from "../support";

const suite = servedApp("ratelimits_flush_order");
const YEAR = 366 * 86_400_000;

afterEach(() => vi.restoreAllMocks());

async function putPolicy(name: string) {
  const res = await suite.api("PUT", `/v1/ratelimits/policies/${name}`, { algorithm: "fixed_window", limit: 1000, window_ms: YEAR });
  expect([200, 201], res.text).toContain(res.status);
}

/** A counter row of (policy, key) in the current window, made by one admitted check. */
async function counterRow(policy: string, key: string) {
  const res = await suite.api("POST", "/v1/ratelimits/check", { policy, key });
  expect(res.status, res.text).toBe(200);
}

async function counts(policy: string, key: string) {
  const [row] = await sql<{ attempted: number; rejected: number }>(
    suite.db,
    "SELECT attempted::int, rejected::int FROM ratelimit_counters WHERE policy = $1 AND key = $2",
    [policy, key],
  );
  return row;
}

/** Waits until a backend of this database — the one with `pid`, or one running a statement containing `text` — waits for a lock. */
const waitingOnLock = (who: { text: string } | { pid: number }) =>
  until(
    async () =>
      (
        await sql(
          suite.db,
          "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid() AND (pid = $1 OR query LIKE '%' || $2::text || '%')",
          ["pid" in who ? who.pid : null, "text" in who ? who.text : null],
        )
      ).length > 0,
    30_000,
    `${JSON.stringify(who)} to wait for a lock`,
  );

const lockRow = "SELECT 1 FROM ratelimit_counters WHERE policy = $1 AND key = $2 FOR UPDATE";

/** A tally of its own on the suite's database, with waits generous enough for a loaded machine unless told. */
const tallyOf = (lockTimeoutMs = 20_000) => new Tally(bindings(suite.db, { DB_BUDGET_MS: "30000", LOCK_TIMEOUT_MS: String(lockTimeoutMs) }));

describe("a flush and a check batch lock counter rows in one order", () => {
  it("interleaved on the same rows, neither is a deadlock victim and every count lands once", async () => {
    for (const p of ["fo-a", "fo-b", "fo-c"]) await putPolicy(p);
    await counterRow("fo-a", "kz");
    await counterRow("fo-b", "ka");
    await counterRow("fo-c", "km");
    const holder = await connect(suite.db);
    const batcher = await connect(suite.db);
    try {
      // The batch takes (ka, fo-b), then waits for (km, fo-c), which the holder has.
      await holder.query("BEGIN");
      await holder.query(lockRow, ["fo-c", "km"]);
      const items = [
        { p: "fo-b", k: "ka", c: 1 },
        { p: "fo-c", k: "km", c: 1 },
        { p: "fo-a", k: "kz", c: 1 },
      ];
      const batch = batcher.query("SELECT admit_ratelimit_check_batch($1::jsonb, 20000) AS r", [JSON.stringify(items)]).then(
        (r) => ({ ok: r.rows[0].r as Array<{ allowed: boolean }> }),
        (err: Error) => ({ error: err.message }),
      );
      await waitingOnLock({ text: "admit_ratelimit_check_batch" });
      // The flush of deny-cache answers of (kz, fo-a) and (ka, fo-b) starts while the batch holds (ka, fo-b):
      // taken in (policy, key) order it would hold (kz, fo-a) and wait for the batch, which then waits for it.
      const tally = tallyOf();
      tally.denied("fo-a", "kz", null, Date.now(), 5);
      tally.denied("fo-b", "ka", null, Date.now(), 7);
      const flush = tally.flush();
      await waitingOnLock({ text: "admit_observe_flush" });
      await holder.query("ROLLBACK");
      const [b, f] = await Promise.all([batch, flush]);
      expect(b).toEqual({
        ok: [expect.objectContaining({ allowed: true }), expect.objectContaining({ allowed: true }), expect.objectContaining({ allowed: true })],
      });
      expect(f).toBe("landed");
      expect(tally.stats).toMatchObject({ kept: 0, lost: 0, hitsFlushed: 12 });
    } finally {
      await holder.end();
      await batcher.end();
    }
    expect(await counts("fo-a", "kz")).toEqual({ attempted: 2 + 5, rejected: 5 });
    expect(await counts("fo-b", "ka")).toEqual({ attempted: 2 + 7, rejected: 7 });
    expect(await counts("fo-c", "km")).toEqual({ attempted: 2, rejected: 0 });
  }, 120_000);
});

describe("a flush Postgres refused keeps its counts and sends them again", () => {
  it("a lock timeout (503): the counts arrive once the row is free, in the same chain, with no request after it", async () => {
    await putPolicy("fo-held");
    await counterRow("fo-held", "k");
    const errors: string[] = [];
    vi.spyOn(console, "error").mockImplementation((x: unknown) => void errors.push(String(x)));
    const holder = await connect(suite.db);
    const tally = tallyOf(300);
    let chain: Promise<void> | null;
    try {
      await holder.query("BEGIN");
      await holder.query(lockRow, ["fo-held", "k"]);
      tally.denied("fo-held", "k", null, Date.now(), 4);
      chain = tally.schedule(0);
      await until(async () => errors.some((e) => e.includes("flush not applied")), 30_000, "the flush to be refused");
    } finally {
      await holder.query("ROLLBACK").catch(() => {});
      await holder.end();
    }
    await chain;
    expect(await counts("fo-held", "k")).toEqual({ attempted: 1 + 4, rejected: 4 });
    expect(tally.stats).toMatchObject({ lost: 0, hitsFlushed: 4 });
    expect(tally.stats.kept).toBeGreaterThanOrEqual(1);
    expect(tally.idle).toBe(true);
  }, 120_000);

  it("a deadlock victim (409): the counts are kept and land when the other transaction has gone", async () => {
    await putPolicy("fo-dl");
    for (const k of ["a-first", "b-mid", "c-last"]) await counterRow("fo-dl", k);
    const errors: string[] = [];
    vi.spyOn(console, "error").mockImplementation((x: unknown) => void errors.push(String(x)));
    const other = await connect(suite.db); // locks c-last, then asks for a-first: the flush's first row
    const middle = await connect(suite.db); // holds b-mid until the other waits for the flush
    const tally = tallyOf();
    let chain: Promise<void> | null = null;
    try {
      await other.query("BEGIN");
      // Only the flush looks for the deadlock (after the default 1 s): it is the victim, every time.
      await other.query("SET LOCAL deadlock_timeout = '10min'");
      await other.query(lockRow, ["fo-dl", "c-last"]);
      await middle.query("BEGIN");
      await middle.query(lockRow, ["fo-dl", "b-mid"]);
      tally.denied("fo-dl", "a-first", null, Date.now(), 2);
      tally.denied("fo-dl", "b-mid", null, Date.now(), 3);
      tally.denied("fo-dl", "c-last", null, Date.now(), 4);
      chain = tally.schedule(0);
      await waitingOnLock({ text: "admit_observe_flush" }); // it holds a-first, waits for b-mid
      const otherPid = (await other.query("SELECT pg_backend_pid() AS pid")).rows[0].pid as number;
      const otherWaits = other.query(lockRow, ["fo-dl", "a-first"]);
      await waitingOnLock({ pid: otherPid });
      await middle.query("ROLLBACK");
      await otherWaits; // granted once the flush, the victim, rolled back
      await until(async () => errors.some((e) => e.startsWith("admit tally: flush")), 30_000, "the flush to be refused");
    } finally {
      await other.query("ROLLBACK").catch(() => {});
      await middle.query("ROLLBACK").catch(() => {});
      await other.end();
      await middle.end();
    }
    await chain;
    // It was the deadlock's victim (409 concurrent-conflict), and its counts were kept.
    expect(errors.find((e) => e.startsWith("admit tally: flush"))).toMatch(/^admit tally: flush not applied \(Another request changed the same data/);
    expect(await counts("fo-dl", "a-first")).toEqual({ attempted: 1 + 2, rejected: 2 });
    expect(await counts("fo-dl", "b-mid")).toEqual({ attempted: 1 + 3, rejected: 3 });
    expect(await counts("fo-dl", "c-last")).toEqual({ attempted: 1 + 4, rejected: 4 });
    expect(tally.stats).toMatchObject({ lost: 0, hitsFlushed: 9 });
    expect(tally.idle).toBe(true);
  }, 120_000);
});
