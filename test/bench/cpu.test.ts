// CPU per decision by part of the stack (Postgres, bridge, Worker, client, pgbench, wrangler), read
// from /proc, and what the ratio targets would be at the CPU each row's own parts used.
import { describe, expect, it } from "vitest";
import { classifier, cpuBetween, cpuMeter, cpuSample } from "../../bench/cpu";
import { atCeilingCost, atOwnCpu, cpuTable, DRIVER, evaluateTargets, mergeRounds, type RawFigures, type Row } from "../../bench/report";
import { type Proc, parseStat } from "../../dev/proc";
import { row } from "./fixtures";

describe("machine time per decision, by part of the stack", () => {
  const proc = (pid: number, over: Partial<Proc>): Proc => ({ pid, comm: "x", state: "S", ppid: 1, pgrp: pid, ticks: 0, childTicks: 0, ...over });

  it("reads /proc/PID/stat fields after the command, which may hold spaces and parentheses", () => {
    // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime …
    const p = parseStat(42, "42 (a (b) c) S 7 40 40 0 -1 4194560 10 0 0 0 123 45 6 7 20 0 1 0 100 0 0");
    expect(p).toEqual({ pid: 42, comm: "a (b) c", state: "S", ppid: 7, pgrp: 40, ticks: 168, childTicks: 13 });
  });

  it("splits an interval's CPU into parts, counting a backend that exited through the postmaster, pgbench through the bench", () => {
    const c = classifier({ postmaster: 100, bridge: 200, wranglers: [400], self: 300 });
    const a = cpuSample(
      [
        proc(100, { ticks: 50 }),
        proc(101, { ppid: 100, ticks: 30 }),
        proc(200, { ticks: 20 }),
        proc(300, { ticks: 10 }),
        proc(401, { comm: "workerd", pgrp: 400, ticks: 5 }),
        proc(999, { ticks: 70 }),
      ],
      { busy: 1000, idle: 500 },
      c,
    );
    const b = cpuSample(
      // 101 exited (45 ticks in all) and was reaped by the postmaster; 102 is a new backend; pgbench
      // (9 ticks) ran and was reaped by the bench; 999 is a neighbour.
      [
        proc(100, { ticks: 52, childTicks: 45 }),
        proc(102, { ppid: 100, ticks: 7 }),
        proc(200, { ticks: 25 }),
        proc(300, { ticks: 12, childTicks: 9 }),
        proc(401, { comm: "workerd", pgrp: 400, ticks: 5 }),
        proc(999, { ticks: 130 }),
      ],
      { busy: 1100, idle: 520 },
      c,
    );
    // ticks are 10 ms: postgres 52+45+7 − (50+30) = 24, bridge 5, client 2, pgbench 9, worker 0;
    // other = 100 busy − 40 known = 60; idle 20.
    expect(cpuBetween(a, b)).toEqual({ postgres: 240_000, bridge: 50_000, client: 20_000, pgbench: 90_000, worker: 0, other: 600_000, idle: 200_000 });
  });

  it("charges a wrangler dev instance's workerd to the Worker, and wrangler's own Node process and its esbuild watcher apart", () => {
    const c = classifier({ postmaster: null, bridge: null, wranglers: [400], self: 300 });
    const a = cpuSample(
      [proc(400, { comm: "node", ticks: 10 }), proc(401, { comm: "esbuild", pgrp: 400, ticks: 20 }), proc(402, { comm: "workerd", pgrp: 400, ticks: 30 })],
      { busy: 100, idle: 0 },
      c,
    );
    const b = cpuSample(
      [proc(400, { comm: "node", ticks: 11 }), proc(401, { comm: "esbuild", pgrp: 400, ticks: 29 }), proc(402, { comm: "workerd", pgrp: 400, ticks: 80 })],
      { busy: 160, idle: 0 },
      c,
    );
    // worker 50 ticks (workerd), wrangler 1 + 9 = 10; nothing else ran.
    expect(cpuBetween(a, b)).toEqual({ worker: 500_000, wrangler: 100_000, other: 0, idle: 0 });
  });

  it("measures this process's own CPU from /proc as the client's", async (t) => {
    if (process.platform !== "linux") return t.skip();
    const meter = cpuMeter({ postmaster: null, bridge: null, wranglers: [], self: process.pid });
    const before = process.cpuUsage();
    const stop = meter();
    let x = 0;
    // Busy until the kernel has charged this process 300 ms more CPU, however loaded the machine is.
    while (process.cpuUsage(before).user < 300_000) for (let i = 0; i < 10_000; i++) x += Math.sqrt(x + i);
    const used = stop()!;
    const spent = process.cpuUsage(before);
    expect(x).toBeGreaterThan(0);
    // /proc counts in 10 ms ticks: within a few ticks of what getrusage says.
    expect(Math.abs(used.client - (spent.user + spent.system))).toBeLessThanOrEqual(40_000);
    expect(used.postgres ?? 0).toBe(0);
  });

  it("rounds add their CPU up before dividing by all their decisions", () => {
    const raw = new Map<Row, RawFigures>();
    const r1 = row({ requests: 100 });
    const r2 = row({ requests: 300 });
    raw.set(r1, { latenciesMs: Array(100).fill(1), elapsedMs: 100, cpuUs: { postgres: 10_000, client: 4_000, idle: 0 } });
    raw.set(r2, { latenciesMs: Array(300).fill(1), elapsedMs: 300, cpuUs: { postgres: 30_000, client: 4_000, idle: 800 } });
    expect(mergeRounds([[r1], [r2]], (r) => raw.get(r))[0].cpu_us_per_decision).toEqual({ postgres: 100, client: 20, idle: 2 });
    raw.set(r2, { latenciesMs: Array(300).fill(1), elapsedMs: 300, cpuUs: null }); // a round without /proc: no figure
    expect(mergeRounds([[r1], [r2]], (r) => raw.get(r))[0].cpu_us_per_decision).toBeUndefined();
  });

  it("a table of the parts each row used, and what a ratio would be at the CPU its own parts used", () => {
    // wrangler's dev tooling idles through a library row (wrangler 4): not one of the library's own parts.
    const lib = row({ throughput_rps: 400, cpu_us_per_decision: { postgres: 300, bridge: 80, wrangler: 4, client: 100, other: 5, idle: 15 } });
    const ceil = row({ layer: "ceiling", impl: "pgbench", throughput_rps: 1000, cpu_us_per_decision: { postgres: 180, pgbench: 15, other: 0, idle: 5 } });
    const table = cpuTable([lib, ceil, row({ impl: "other" })]).split("\n");
    expect(table[0]).toBe("| scenario | layer | impl | connection | conc | postgres | bridge | client | pgbench | wrangler | other | idle | machine |");
    expect(table[2]).toBe("| ratelimit-hot | library | admit | pooled | 16 | 300 | 80 | 100 | 0 | 4 | 5 | 15 | 504 |");
    expect(table).toHaveLength(4); // the row without figures is left out
    // 200 µs of machine per ceiling decision ÷ (Postgres 180 + own parts 180) = 0.56
    const a = { scenario: "ratelimit-hot", layer: "library" as const, impl: "admit", connection: "pooled" as const };
    const b = { scenario: "ratelimit-hot", layer: "ceiling" as const, impl: "pgbench", connection: "pooled" as const };
    expect(atCeilingCost([lib, ceil], a, b)?.value).toBe(0.56);
    const t = evaluateTargets([lib, ceil]).find((x) => x.name === "ratelimit-hot: library pooled ÷ pgbench pooled (diagnostic)")!;
    expect(t).toMatchObject({ value: 0.4, at_ceiling_cost: 0.56, met: null });
    // An HTTP edge row's statements run on the bridge's pool: its Postgres cost is the pooled ceiling's.
    const edgeRow = row({
      layer: "edge",
      connection: "http",
      throughput_rps: 300,
      cpu_us_per_decision: { postgres: 300, bridge: 100, worker: 500, client: 100, other: 0, idle: 0 },
    });
    expect(atCeilingCost([edgeRow, ceil], { ...a, layer: "edge", connection: "http" }, b)?.value).toBe(0.23); // 200 ÷ (180 + 700)
    expect(t.detail).toContain("0.56 here at its own parts' cost");
    // Between two edge rows: what each one's own stack used per decision (neighbours, idle cores and
    // wrangler's dev tooling left out).
    const admitEdge = row({
      layer: "edge",
      connection: "http",
      throughput_rps: 400,
      cpu_us_per_decision: { postgres: 400, bridge: 400, worker: 1200, client: 200, wrangler: 300, other: 900, idle: 10 },
    });
    const bareEdge = row({
      layer: "edge",
      impl: DRIVER,
      connection: "http",
      throughput_rps: 500,
      cpu_us_per_decision: { postgres: 400, bridge: 350, worker: 900, client: 200, other: 100, idle: 0 },
    });
    const mA = { scenario: "ratelimit-hot", layer: "edge" as const, impl: "admit", connection: "http" as const };
    expect(atOwnCpu([admitEdge, bareEdge], mA, { ...mA, impl: DRIVER })?.value).toBe(0.84); // 1850 ÷ 2200
    const e = evaluateTargets([admitEdge, bareEdge]).find((x) => x.name === "ratelimit-hot c=16: edge admit ≥ 0.9× the bare HTTP Worker")!;
    expect(e).toMatchObject({ value: 0.8, at_own_cpu: 0.84 });
    expect(e).not.toHaveProperty("at_ceiling_cost");
    expect(e).not.toHaveProperty("driver_alone");
    // Without CPU figures there is no bound.
    expect(atCeilingCost([row({}), row({ layer: "ceiling", impl: "pgbench" })], a, b)).toBeNull();
  });
});
