// Nothing a dev process starts outlives it. Two halves:
// - guard*: the processes it spawns that live in a process group or session of their own (wrangler
//   and its workerd) or outlive their parent on their own (the embedded postmaster) are handed to
//   dev/guard.mjs, a small process that stops them when this process dies, SIGKILL included
//   (Node has no PR_SET_PDEATHSIG). One guard per process, started on first use.
// - watchAncestors: `npm start` runs npm → sh → node dev/start.ts (tsx loaded with --import); when npm is
//   SIGKILLed, the process running dev/start.ts is not, and would run on as an orphan.
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { ROOT } from "./local";
import { liveProcess } from "./proc";

let guard: ChildProcess | null | undefined;
let nextId = 1;

function send(msg: object): void {
  if (guard === undefined) {
    try {
      guard = spawn(process.execPath, [join(ROOT, "dev", "guard.mjs")], {
        detached: true, // a session of its own: Ctrl-C or a kill of our process group does not reach it
        stdio: ["pipe", "ignore", "ignore"],
      });
      guard.on("error", () => {});
      guard.stdin!.on("error", () => {});
      // Neither the guard nor its pipe keep this process alive; its exit closes the pipe (EOF).
      guard.unref();
      (guard.stdin as unknown as { unref?: () => void }).unref?.();
    } catch {
      guard = null;
    }
  }
  if (guard?.stdin?.writable) guard.stdin.write(JSON.stringify(msg) + "\n");
}

/** Until the returned release() is called, process group `pgid` is killed (SIGTERM, SIGKILL after 5 s) if this process dies. */
export function guardProcessGroup(pgid: number): () => void {
  const id = nextId++;
  send({ op: "add", id, kind: "group", pgid });
  return () => send({ op: "del", id });
}

/**
 * Until release(), the postmaster of `dataDir` (from its postmaster.pid) is stopped if this process
 * dies: SIGINT (fast shutdown), SIGQUIT after 10 s, SIGKILL after 15 s; with `remove`, dataDir is
 * deleted afterwards (a throwaway cluster).
 */
export function guardPostgres(dataDir: string, remove: boolean): () => void {
  const id = nextId++;
  send({ op: "add", id, kind: "postgres", dataDir, remove });
  return () => send({ op: "del", id });
}

/** The guard's pid (tests), or null before first use or when it could not be started. */
export function guardPid(): number | null {
  return guard?.pid ?? null;
}

/**
 * Calls `onGone` once when a process this one runs under exits: the ancestors in this process's
 * own process group (the job: npm and sh under `npm start`), each known by pid and start time,
 * or, without /proc, the parent. Ancestors outside the group (the user's shell) are not watched, so
 * `nohup npm start &` keeps running after its shell exits. Returns a function that stops watching.
 */
export function watchAncestors(onGone: (why: string) => void, everyMs = 500): () => void {
  const self = liveProcess(process.pid);
  const chain: { pid: number; start: number; comm: string }[] = [];
  if (self) {
    for (let p = liveProcess(process.ppid); p && p.pid > 1 && p.pgrp === self.pgrp; p = liveProcess(p.ppid)) {
      chain.push({ pid: p.pid, start: p.start, comm: p.comm });
    }
  }
  const ppid = process.ppid;
  const timer = setInterval(() => {
    let why: string | null = null;
    if (self) {
      const gone = chain.find((a) => liveProcess(a.pid)?.start !== a.start);
      if (gone) why = `${gone.comm} (pid ${gone.pid}) exited`;
    } else if (process.ppid !== ppid) {
      why = `the parent process (pid ${ppid}) exited`;
    }
    if (why !== null) {
      clearInterval(timer);
      onGone(why);
    }
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
