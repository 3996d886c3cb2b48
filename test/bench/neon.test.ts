// The neon profile (bench/neon.ts): its options, its targets, and the commit-latency emulation on a
// real Postgres: a synchronous commit waits at COMMIT with its row locks held; an asynchronous one
// does not wait at all.
import { describe, expect, it } from "vitest";
import { commitPasses, installCommitLatency, LOCAL, NEON_DEFAULTS, neonTargets, parseProfile, passOrder, setCommitMs } from "../../bench/neon";
import type { Row } from "../../bench/report";
import { parseArgs } from "../../bench/run";
import { connect, freshDatabase, sql, until } from "../support";

describe("the neon profile's options", () => {
  it("defaults to commit 3 ms, 8 isolates, RTT 10 ms, measured at commit 0 and at 3 ms", () => {
    expect(parseArgs(["--profile=neon"]).settings).toEqual(NEON_DEFAULTS);
    expect(parseArgs(["--profile=neon"]).pgbouncer).toBe(false);
    expect(parseArgs(["--quick", "--profile=neon", "--commit-ms=5", "--isolates=2", "--rtt-ms=0"])).toMatchObject({
      quick: true,
      settings: { profile: "neon", commit_ms: 5, isolates: 2, rtt_ms: 0 },
    });
    expect(parseArgs([]).settings).toEqual(LOCAL);
    expect(commitPasses(NEON_DEFAULTS)).toEqual([0, 3]);
    expect(commitPasses(LOCAL)).toEqual([0]);
    expect(() => parseArgs(["--commit-ms=3"])).toThrow(/needs --profile=neon/);
    expect(() => parseArgs(["--profile=neon", "--isolates=0"])).toThrow(/--isolates/);
    expect(() => parseArgs(["--profile=aws"])).toThrow(/--profile/);
    expect(() => parseProfile(() => undefined)).not.toThrow();
  });

  it("runs the two latencies in turns within each round, which first alternating by round and scenario", () => {
    expect([0, 1, 2].map((round) => passOrder([0, 3], round, false))).toEqual([
      [0, 3],
      [3, 0],
      [0, 3],
    ]);
    expect([0, 1].map((round) => passOrder([0, 3], round, true))).toEqual([
      [3, 0],
      [0, 3],
    ]);
    expect(passOrder([0], 1, true)).toEqual([0]);
  });

  it("judges each row at the commit latency against the same row at commit 0", () => {
    const row = (commit: number, scenario: string, rps: number, extra: Partial<Row> = {}): Row => ({
      scenario,
      layer: "edge",
      impl: "admit",
      connection: "http",
      concurrency: 64,
      requests: 100,
      throughput_rps: rps,
      p50_ms: 1,
      p95_ms: 1,
      p99_ms: 1,
      violations: 0,
      round_trips_per_decision: null,
      settings: { ...NEON_DEFAULTS, commit_ms: commit },
      ...extra,
    });
    const burst = (commit: number, p99: number): Row =>
      row(commit, "burst-1000", 100, {
        burst: "ratelimit fixed_window limit 50",
        concurrency: 1000,
        p99_ms: p99,
        errors_5xx: 0,
        expected: { "200": 50, "429": 950 },
        outcomes: { "200": 50, "429": 950 },
      });
    // A burst other than a rate limit's: exact at both, its p99 beside commit 0's and not judged.
    const sellOut = (commit: number, p99: number): Row =>
      row(commit, "burst-1000", 100, {
        burst: "inventory sell-out 100 rooms",
        concurrency: 1000,
        p99_ms: p99,
        errors_5xx: 0,
        expected: { "201": 100, "409": 900 },
        outcomes: { "201": 100, "409": 900 },
      });
    const targets = neonTargets(
      [
        row(0, "ratelimit-hot", 1000),
        row(3, "ratelimit-hot", 650),
        row(0, "ratelimit-hot-over", 1000),
        row(3, "ratelimit-hot-over", 950),
        burst(0, 100),
        burst(3, 160),
        sellOut(0, 200),
        sellOut(3, 300),
        // A seed's naive design beside Admit's: its violations are what it is there to show.
        row(0, "reservation-burst", 100, { impl: "seed000-naive", violations: 38 }),
      ],
      NEON_DEFAULTS,
    );
    const find = (part: string) => targets.find((t) => t.name.includes(part));
    expect(find("no violation in any Admit row")).toMatchObject({ value: 0, met: true });
    expect(find("ratelimit-hot c=64")).toMatchObject({ value: 0.65, met: false });
    expect(find("ratelimit-hot-over c=64")).toMatchObject({ value: 0.95, met: true });
    expect(find("ratelimit-10k-keys c=64")).toMatchObject({ value: null, met: null });
    expect(find("p99 at commit 3 ms ≤ 1.5×")).toMatchObject({ value: 1.6, met: false });
    expect(targets.filter((t) => t.name.includes("exactly 50×200")).map((t) => t.met)).toEqual([true, true]);
    expect(find("inventory sell-out 100 rooms: p99 at commit 3 ms ≤ commit 0's")).toMatchObject({ value: 1.5, met: null });
    expect(targets.filter((t) => t.name.includes("exactly 100×201, 900×409")).map((t) => t.met)).toEqual([true, true]);
    const withAdmitViolation = neonTargets([row(3, "reservation-burst", 100, { violations: 2 })], NEON_DEFAULTS);
    expect(withAdmitViolation.find((t) => t.name.includes("no violation"))).toMatchObject({ value: 2, met: false });
  });
});

describe("the commit-latency emulation", () => {
  it("holds a synchronous commit at COMMIT with its row locks, and lets an asynchronous one through", async () => {
    const db = await freshDatabase("bench_neon");
    const run = (text: string, params: unknown[] = []) => sql(db, text, params);
    expect(await installCommitLatency(run)).toBeGreaterThan(10);
    // Long enough that a commit which waited would outlast the test's budget.
    await setCommitMs(run, 600_000);
    await run("SELECT admit_ratelimit_put_policy('p', 'fixed_window', 5, 60000::bigint, false, 60000::bigint)");

    // Asynchronous: COMMIT returns (the test cluster's own synchronous_commit is off; it is set per transaction here).
    const a = await connect(db);
    try {
      await a.query("BEGIN");
      await a.query("SET LOCAL synchronous_commit = off");
      await a.query("UPDATE ratelimit_policies SET quota = 6 WHERE name = 'p'");
      await a.query("COMMIT");
      expect(await run("SELECT quota FROM ratelimit_policies WHERE name = 'p'")).toEqual([{ quota: 6 }]);

      // Synchronous: COMMIT waits in the trigger's sleep, its row lock still held, its write not yet visible.
      const pid = (await a.query("SELECT pg_backend_pid() AS pid")).rows[0].pid;
      await a.query("BEGIN");
      await a.query("SET LOCAL synchronous_commit = on");
      await a.query("UPDATE ratelimit_policies SET quota = 7 WHERE name = 'p'");
      const committing = a.query("COMMIT").then(
        () => "committed",
        (err: { code?: string }) => err.code,
      );
      await until(
        async () => (await run("SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND query = 'COMMIT' AND wait_event = 'PgSleep'", [pid])).length === 1,
        30_000,
        "the COMMIT sleeping in the emulated wait",
      );
      await expect(
        run("DO $$ BEGIN PERFORM set_config('lock_timeout', '200ms', true); PERFORM 1 FROM ratelimit_policies WHERE name = 'p' FOR UPDATE; END $$"),
      ).rejects.toMatchObject({ code: "55P03" });
      expect(await run("SELECT quota FROM ratelimit_policies WHERE name = 'p'")).toEqual([{ quota: 6 }]);
      await run("SELECT pg_cancel_backend($1)", [pid]);
      expect(await committing).toBe("57014");
      expect(await run("SELECT quota FROM ratelimit_policies WHERE name = 'p'")).toEqual([{ quota: 6 }]);
    } finally {
      await a.end();
    }
  }, 60_000);
});
