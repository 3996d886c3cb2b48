// The ceiling rows' tools: pgbench (its arguments, its logs, decisions of several transactions, run
// for real against Postgres when installed) and the pgbouncer profile's configuration.
import { describe, expect, it } from "vitest";
import { type BenchContext, ceiling, pgbenchMissing } from "../../bench/measure";
import { decisionLatencies, findPgbench, parsePgbenchLog, parsePgbenchSummary, pgbenchArgs, runPgbench } from "../../bench/pgbench";
import { pgbouncerIni } from "../../bench/pgbouncer";
import { DUPLICATE_PERMITS, pgbenchScript, releases } from "../../bench/scenarios/permits";
import { PGBENCH_SCRIPT } from "../../bench/scenarios/webhooks";
import { freshDatabase, sql } from "../support";

describe("pgbench", () => {
  it("runs the statement with extended protocol (unnamed statements), -C per request", () => {
    const r = {
      script: "",
      clients: 16,
      seconds: 5,
      connectPerTransaction: true,
      defines: { resource: "rb/x" },
      host: "127.0.0.1",
      port: 5432,
      user: "u",
      password: "p",
      database: "d",
    };
    const args = pgbenchArgs(r, "/tmp/s.sql", "/tmp/log");
    expect(args.join(" ")).toBe("-n -M extended -c 16 -j 2 -T 5 -C -D resource=rb/x -l --log-prefix=/tmp/log -f /tmp/s.sql -h 127.0.0.1 -p 5432 -U u d");
    expect(pgbenchArgs({ ...r, connectPerTransaction: false }, "s", "l")).not.toContain("-C");
  });

  it("without pgbench the ceiling rows are marked skipped, and the install command is given", async () => {
    const lines: string[] = [];
    const ctx = { concurrency: 16, profile: null, pgbench: null, log: (l: string) => lines.push(l) } as unknown as BenchContext;
    const r = await ceiling(ctx, { scenario: "reservation-burst", impl: "pgbench", connection: "per-request", script: "SELECT 1;" });
    expect(r).toMatchObject({ layer: "ceiling", impl: "pgbench", connection: "per-request", skipped: "pgbench not installed", throughput_rps: null });
    expect(lines.join("\n")).toContain("skipped (pgbench not installed)");
    expect(pgbenchMissing).toContain("apt-get install -y postgresql-contrib");
  });

  it("parses per-transaction logs (µs) and the summary", () => {
    const log = "0 0 1500 0 1700000000 1\n1 0 2500 0 1700000000 2\n1 1 failed 0 1700000000 3\n\n";
    expect(parsePgbenchLog(log)).toEqual({
      logged: [
        { client: 0, tx: 0, ms: 1.5 },
        { client: 1, tx: 0, ms: 2.5 },
      ],
      failed: 1,
    });
    const out = "number of transactions actually processed: 10206\nlatency average = 3.1 ms\ntps = 5236.123 (without initial connection time)\n";
    expect(parsePgbenchSummary(out)).toEqual({ tps: 5236.123, transactions: 10206 });
  });
});

describe("decisions of several pgbench transactions (permits: acquire, then release)", () => {
  it("a continuing transaction adds to its client's decision before it, and only to that one", () => {
    const logged = [
      { client: 1, tx: 2, ms: 4 },
      { client: 0, tx: 1, ms: 1 },
      { client: 0, tx: 2, ms: 2 },
      { client: 1, tx: 1, ms: 3 },
      { client: 0, tx: 3, ms: 5 },
    ];
    // client 0: tx 1 granted, tx 2 its release; tx 3 refused. client 1: tx 1 refused, tx 2 refused.
    expect(decisionLatencies(logged, new Set(["0:2"]))).toEqual([3, 5, 3, 4]);
    expect(decisionLatencies(logged, new Set())).toEqual([1, 2, 5, 3, 4]);
    // A continuation with no decision before it (the run's first transaction) stands alone.
    expect(decisionLatencies([{ client: 2, tx: 1, ms: 7 }], new Set(["2:1"]))).toEqual([7]);
  });

  const pgbench = findPgbench();
  it("under pgbench -C each statement is its own transaction, and every release is paired with its grant", async (t) => {
    const bin = await pgbench;
    if (!bin) return t.skip("pgbench not installed (apt-get install -y postgresql-contrib)");
    const db = await freshDatabase("bench_permit_script");
    const key = "9001";
    await sql(db, "SELECT admit_semaphore_put($1::bigint, 's', 2, 60000, false, 2000)", [key]);
    const u = new URL(db);
    const r = await runPgbench(bin, {
      script: pgbenchScript("semaphore"),
      clients: 4,
      seconds: 1,
      connectPerTransaction: true,
      defines: { key, name: "s", held: "0", t: "0" },
      host: u.hostname,
      port: Number(u.port),
      user: decodeURIComponent(u.username),
      password: decodeURIComponent(u.password),
      database: u.pathname.slice(1),
    });
    expect(r.failed).toBe(0);
    const [claims] = await sql<{ granted: number; released: number }>(
      db,
      "SELECT count(*)::int AS granted, count(released_at)::int AS released FROM permits WHERE name = 's'",
    );
    expect(claims.released).toBeGreaterThan(0);
    const continuing = await releases((text, params) => sql(db, text, params), "semaphore", "s");
    expect(continuing.size).toBe(claims.granted);
    // Each released claim's release is the logged transaction right after its grant; a claim still
    // held when the run ended has none.
    const paired = r.logged.filter((x) => continuing.has(`${x.client}:${x.tx}`)).length;
    expect(paired).toBe(claims.released);
    expect(decisionLatencies(r.logged, continuing)).toHaveLength(r.logged.length - paired);
    expect(await sql(db, DUPLICATE_PERMITS, ["semaphore", "s", 2])).toEqual([{ n: 0 }]);
  });
});

describe("the scenarios' pgbench scripts", () => {
  it("the webhook scenario's statements call the schema's functions as they are", async () => {
    const db = await freshDatabase("bench_webhook_script");
    await sql(db, "SELECT admit_webhook_put_source('s', 'standard-webhooks', $1, NULL, 300, NULL, NULL, NULL, NULL, NULL, NULL)", [
      "whsec_" + Buffer.alloc(32, 7).toString("base64"),
    ]);
    const vars: Record<string, string> = { source: "'s'", n: "7", ts: String(Math.floor(Date.now() / 1000)) };
    const statements = PGBENCH_SCRIPT.split("\n").filter((l) => l.startsWith("SELECT"));
    expect(statements).toHaveLength(2);
    for (let i = 0; i < 2; i++) {
      for (const text of statements)
        await sql(
          db,
          text.replace(/(?<!:):([a-z_]+)/g, (m, v: string) => vars[v] ?? m),
        );
    }
    expect(await sql(db, "SELECT webhook_id FROM webhook_events WHERE source = 's'")).toEqual([{ webhook_id: "evt_7" }]);
  });
});

describe("pgbouncer profile", () => {
  it("transaction pooling, cleartext auth for the Neon driver's pipelined password, loopback only", () => {
    const ini = pgbouncerIni({ host: "127.0.0.1", port: 5432, user: "postgres", password: "p", database: "admit_bench" }, 6432, "/tmp/x", 20);
    expect(ini).toContain("admit_bench = host=127.0.0.1 port=5432 dbname=admit_bench");
    expect(ini).toMatch(/^pool_mode = transaction$/m);
    expect(ini).toMatch(/^auth_type = plain$/m);
    expect(ini).toMatch(/^listen_addr = 127\.0\.0\.1$/m);
    expect(ini).toMatch(/^listen_port = 6432$/m);
  });
});
