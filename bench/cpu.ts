// Where a row's machine time went, from /proc: CPU per decision of each part of the stack (Postgres,
// the bridge, the Worker, the load generator, pgbench, PgBouncer), what the rest of the machine used
// ("other": neighbours, the kernel's own work, the hypervisor's steal) and what stayed idle. The parts
// add up to cores × elapsed time, so a row's figures say what a decision costs the machine and who
// pays for it — which is what limits a ratio on a machine whose cores everything shares.
import { listProcesses, machineTicks, type Proc, TICK_US } from "../dev/proc";

/** µs of CPU over an interval, by part of the stack, plus `other` and `idle`. */
export type CpuUs = Record<string, number>;

/** Names a process's part of the stack, or null when it is none of the bench's. */
export type Classify = (p: Proc) => string | null;

/** What the bench's own stack consists of. */
export interface StackPids {
  postmaster: number | null;
  bridge: number | null;
  /** Process groups of the wrangler dev instances (wrangler, its esbuild and its workerd processes). */
  wranglers: number[];
  /** The bench's own process: the load generator and the peers' clients. */
  self: number;
}

/**
 * The parts: `postgres` (the postmaster and its children), `bridge`, `worker` (the workerd processes
 * of the wrangler dev instances: the Workers themselves), `wrangler` (the rest of those instances:
 * wrangler's own Node process and its esbuild, which watches the sources by polling them — ~100 ms
 * of CPU a second for four instances with no request in flight; no request passes through either,
 * as the bench reaches each Worker's own socket), `client` (the bench's own process), `pgbench`
 * (while running, and once exited, inside the bench's reaped-children time), `pgbouncer`.
 */
export function classifier(s: StackPids): { classify: Classify; children: (p: Proc) => string | null } {
  const classify: Classify = (p) => {
    if (s.postmaster !== null && (p.pid === s.postmaster || p.ppid === s.postmaster)) return "postgres";
    if (p.pid === s.bridge) return "bridge";
    if (p.pid === s.self) return "client";
    if (s.wranglers.includes(p.pgrp)) return p.comm === "workerd" ? "worker" : "wrangler";
    if (p.comm === "pgbench") return "pgbench";
    if (p.comm === "pgbouncer") return "pgbouncer";
    return null;
  };
  // A process that exits and is reaped adds its whole CPU time to its parent's children's time:
  // backends (a new one per -C transaction) to the postmaster's, pgbench to the bench's (the only
  // child the bench starts and reaps while a row is timed).
  const children = (p: Proc) => (s.postmaster !== null && p.pid === s.postmaster ? "postgres" : p.pid === s.self ? "pgbench" : null);
  return { classify, children };
}

export interface Sample {
  parts: CpuUs;
  busy: number;
  idle: number;
}

/** The CPU each part has used so far, and the machine's busy and idle ticks. */
export function cpuSample(procs: Proc[], machine: { busy: number; idle: number }, c: ReturnType<typeof classifier>): Sample {
  const parts: CpuUs = {};
  const add = (k: string | null, ticks: number) => {
    if (k) parts[k] = (parts[k] ?? 0) + ticks;
  };
  for (const p of procs) {
    add(c.classify(p), p.ticks);
    add(c.children(p), p.childTicks);
  }
  return { parts, busy: machine.busy, idle: machine.idle };
}

/**
 * The difference of two samples, in µs. A process alive at the start that exited and was reaped by
 * the end is counted right: its time at the start was in its part, its whole time is at the end in
 * its parent's children's time, which belongs to the same part.
 */
export function cpuBetween(a: Sample, b: Sample): CpuUs {
  const out: CpuUs = {};
  let known = 0;
  for (const k of new Set([...Object.keys(a.parts), ...Object.keys(b.parts)])) {
    const d = Math.max(0, (b.parts[k] ?? 0) - (a.parts[k] ?? 0));
    out[k] = d * TICK_US;
    known += d;
  }
  out.other = Math.max(0, b.busy - a.busy - known) * TICK_US;
  out.idle = Math.max(0, b.idle - a.idle) * TICK_US;
  return out;
}

/** Starts measuring; the returned function ends it and gives the µs used by each part (null without /proc). */
export type CpuMeter = () => () => CpuUs | null;

export function cpuMeter(pids: StackPids): CpuMeter {
  const parts = classifier(pids);
  const take = (): Sample | null => {
    const procs = listProcesses();
    const machine = machineTicks();
    return procs && machine ? cpuSample(procs, machine, parts) : null;
  };
  return () => {
    const a = take();
    return () => {
      const b = take();
      return a && b ? cpuBetween(a, b) : null;
    };
  };
}
