// Processes, listening sockets and CPU time from /proc (Linux only; elsewhere each reader returns
// null). Used to find wrangler's workerd processes and their ports (dev/wrangler.ts), Postgres's
// processes (test/across/faults.freeze.test.ts), where each bench row's machine time went (bench/cpu.ts),
// whether the processes `npm start` runs under are still alive (dev/lifeline.ts), and who holds a
// port that a start finds taken (dev/start.ts, dev/wrangler.ts, dev/postgres.ts).
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/** One process, from /proc/PID/stat. CPU times are in clock ticks (see TICK_US). */
export interface Proc {
  pid: number;
  /** The command name (field 2), at most 15 characters. */
  comm: string;
  /** Field 3: R running, S/D sleeping, T stopped (t: stopped by a tracer), Z zombie, … */
  state: string;
  ppid: number;
  /** Process group. */
  pgrp: number;
  /** utime + stime: the CPU this process has used so far. */
  ticks: number;
  /** cutime + cstime: the CPU of its children that exited and were reaped. */
  childTicks: number;
}

/**
 * µs per clock tick. /proc reports CPU times in USER_HZ ticks, which Linux fixes at 100 for user
 * space on every architecture Node runs on (`getconf CLK_TCK`).
 */
export const TICK_US = 10_000;

/** Parses one /proc/PID/stat line; the command may contain spaces and parentheses, so fields are counted after the last ")". */
export function parseStat(pid: number, stat: string): Proc {
  const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // f[0] is field 3 (state): ppid 4, pgrp 5, utime 14, stime 15, cutime 16, cstime 17.
  return { pid, comm, state: f[0], ppid: Number(f[1]), pgrp: Number(f[2]), ticks: Number(f[11]) + Number(f[12]), childTicks: Number(f[13]) + Number(f[14]) };
}

/** Every process this user may read; null without /proc. A process that exits while being read is left out. */
export function listProcesses(): Proc[] | null {
  let dirs: string[];
  try {
    dirs = readdirSync("/proc");
  } catch {
    return null;
  }
  const out: Proc[] = [];
  for (const d of dirs) {
    if (!/^\d+$/.test(d)) continue;
    try {
      out.push(parseStat(Number(d), readFileSync(`/proc/${d}/stat`, "utf8")));
    } catch {
      /* exited meanwhile */
    }
  }
  return out;
}

/** One process's state letter (Proc.state), or null once it has exited or without /proc. */
export function processState(pid: number): string | null {
  try {
    return parseStat(pid, readFileSync(`/proc/${pid}/stat`, "utf8")).state;
  } catch {
    return null;
  }
}

const stoppedOrGone = (pid: number) => {
  const state = processState(pid);
  return state === null || state === "T" || state === "t" || state === "Z" || state === "X";
};

/** Blocks this thread for `ms` (signalTree is synchronous: it must return with the tree stopped). */
const sleepSync = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * Sends `sig` to `root`, then to every child it has. With SIGSTOP it returns only once all of them
 * have stopped, and it lists the children only after `root` has stopped: a fork in flight when
 * the signal lands still completes (Linux stops the parent when fork returns), so children listed
 * any sooner can miss the newest one, which then runs on (a Postgres "frozen" that still answers).
 * Throws, naming the processes, when they have not stopped within `withinMs`.
 */
export function signalTree(root: number, sig: NodeJS.Signals, { withinMs = 5_000 }: { withinMs?: number } = {}): void {
  const send = (pid: number) => {
    try {
      process.kill(pid, sig);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ESRCH") throw err; // exited since it was listed
    }
  };
  const stopping = sig === "SIGSTOP";
  const deadline = Date.now() + withinMs;
  const waitFor = (pids: number[]) => {
    for (let left = pids.filter((p) => !stoppedOrGone(p)); left.length > 0; left = left.filter((p) => !stoppedOrGone(p))) {
      if (Date.now() > deadline) throw new Error(`signalTree: processes ${left.join(", ")} have not stopped within ${withinMs} ms of SIGSTOP`);
      sleepSync(2);
    }
  };
  send(root);
  if (stopping) waitFor([root]);
  const all = listProcesses();
  if (all === null) throw new Error("signalTree needs /proc (Linux) to find the children of a process");
  const children = all.filter((p) => p.ppid === root).map((p) => p.pid);
  for (const pid of children) send(pid);
  if (stopping) waitFor(children);
}

/** The whole machine's CPU time so far, in ticks summed over its cores: `idle` (idle + iowait) and `busy` (the rest, steal included). */
export function machineTicks(): { busy: number; idle: number } | null {
  try {
    const f = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal (guest time is already inside user).
    const idle = f[3] + (f[4] ?? 0);
    const busy = f.slice(0, 8).reduce((s, v) => s + (v || 0), 0) - idle;
    return { busy, idle };
  } catch {
    return null;
  }
}

/** The TCP ports the given processes listen on (IPv4 and IPv6); null without /proc. */
export function listeningPorts(pids: number[]): Set<number> | null {
  const byInode = new Map<string, number>(); // socket inode -> port
  try {
    for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
      for (const line of readFileSync(file, "utf8").split("\n").slice(1)) {
        const f = line.trim().split(/\s+/);
        if (f[3] === "0A") byInode.set(f[9], parseInt(f[1].split(":").pop()!, 16)); // 0A = LISTEN
      }
    }
  } catch {
    return null;
  }
  const ports = new Set<number>();
  for (const pid of pids) {
    try {
      for (const fd of readdirSync(`/proc/${pid}/fd`)) {
        const port = byInode.get(/^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1] ?? "");
        if (port) ports.add(port);
      }
    } catch {
      /* exited, or not ours to read */
    }
  }
  return ports;
}

/** A live process's identity from /proc/PID/stat: `start` (boot-relative start time) tells a reused pid apart. Null when it is gone, a zombie, or there is no /proc. */
export function liveProcess(pid: number): { pid: number; comm: string; ppid: number; pgrp: number; start: number } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (f[0] === "Z" || f[0] === "X") return null;
    const { comm, ppid, pgrp } = parseStat(pid, stat);
    return { pid, comm, ppid, pgrp, start: Number(f[19]) }; // field 22: starttime
  } catch {
    return null;
  }
}

/** A process listening on a TCP port. */
export interface PortHolder {
  pid: number;
  pgrp: number;
  /** Its command line, spaces between the arguments (the command name when that cannot be read). */
  command: string;
}

/**
 * Who listens on TCP `port` (any local address, IPv4 or IPv6): the reverse of listeningPorts, from
 * /proc/net/tcp{,6} (socket inodes) and /proc/PID/fd (which process holds them). Empty when the
 * listener is not visible to this user; null without /proc.
 */
export function portHolders(port: number): PortHolder[] | null {
  const inodes = new Set<string>();
  try {
    for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
      let text: string;
      try {
        text = readFileSync(file, "utf8");
      } catch (err) {
        if (file.endsWith("6")) continue; // IPv6 disabled
        throw err;
      }
      for (const line of text.split("\n").slice(1)) {
        const f = line.trim().split(/\s+/);
        if (f[3] === "0A" && parseInt(f[1].split(":").pop()!, 16) === port) inodes.add(f[9]);
      }
    }
  } catch {
    return null;
  }
  const holders: PortHolder[] = [];
  if (!inodes.size) return holders;
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    const pid = Number(d);
    try {
      const holds = readdirSync(`/proc/${d}/fd`).some((fd) => {
        try {
          return inodes.has(/^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${d}/fd/${fd}`))?.[1] ?? "");
        } catch {
          return false;
        }
      });
      if (!holds) continue;
      const proc = parseStat(pid, readFileSync(`/proc/${d}/stat`, "utf8"));
      let command = proc.comm;
      try {
        command = readFileSync(`/proc/${d}/cmdline`, "utf8").split("\0").filter(Boolean).join(" ").replace(/\s+/g, " ") || proc.comm;
      } catch {
        /* the name will do */
      }
      holders.push({ pid, pgrp: proc.pgrp, command });
    } catch {
      /* exited, or not ours to read */
    }
  }
  return holders;
}

/**
 * "port 8787 is held by pid 123 (workerd serve …), process group 120: stop it with `kill 123`, or
 * its whole group with `kill -- -120`", for a start that found its port taken.
 */
export function describePortHolders(port: number): string {
  const holders = portHolders(port);
  if (holders === null) return `port ${port} is already in use`;
  if (!holders.length) return `port ${port} is already in use, by a process this user cannot see (try: ss -ltnp 'sport = :${port}' as root)`;
  const short = (c: string) => (c.length > 120 ? c.slice(0, 117) + "…" : c);
  const who = holders.map((h) => `pid ${h.pid} (${short(h.command)}), process group ${h.pgrp}`).join("; ");
  const groups = [...new Set(holders.map((h) => h.pgrp))];
  const pids = holders.map((h) => h.pid);
  return `port ${port} is held by ${who}: stop it with "kill ${pids.join(" ")}", or its whole process group with "kill -- ${groups.map((g) => `-${g}`).join(" ")}"`;
}
