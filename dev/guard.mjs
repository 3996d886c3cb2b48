// The guard: stops what a dev process started (wrangler's process group, an embedded Postgres)
// when that process dies, however it dies — SIGKILL included, which it cannot catch itself. Node
// has no prctl(PR_SET_PDEATHSIG), so the parent spawns this (dev/lifeline.ts) in a session of its
// own with a pipe on stdin that only the parent holds: EOF on it means the parent is gone.
//
// Plain JavaScript (no tsx) so that it starts in milliseconds and needs nothing but Node.
// stdin carries one JSON object per line:
//   {"op":"add","id":N,"kind":"group","pgid":P}                 kill process group P (SIGTERM, then SIGKILL)
//   {"op":"add","id":N,"kind":"postgres","dataDir":D,"remove":B} stop the postmaster of D (SIGINT = fast
//                                                               shutdown, then SIGQUIT, then SIGKILL); B: rm -r D after
//   {"op":"del","id":N}                                         the parent stopped it itself: forget it
// Terminal and kill signals other than SIGKILL are ignored: the guard's one trigger is its parent's death.
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";

const GROUP_GRACE_MS = 5_000; // SIGTERM → SIGKILL for wrangler's group (as WranglerDev.stop)
const PG_QUIT_MS = 10_000; // SIGINT → SIGQUIT for the postmaster (as PgHandle.stop)
const PG_KILL_MS = 15_000; // → SIGKILL
const GIVE_UP_MS = 20_000;

for (const signal of ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGPIPE"]) process.on(signal, () => {});

/** @type {Map<number, {kind: "group", pgid: number} | {kind: "postgres", dataDir: string, remove: boolean}>} */
const watched = new Map();
let pending = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  pending += chunk;
  let nl;
  while ((nl = pending.indexOf("\n")) >= 0) {
    const line = pending.slice(0, nl);
    pending = pending.slice(nl + 1);
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      continue;
    }
    if (msg.op === "add")
      watched.set(msg.id, msg.kind === "group" ? { kind: "group", pgid: msg.pgid } : { kind: "postgres", dataDir: msg.dataDir, remove: !!msg.remove });
    else if (msg.op === "del") watched.delete(msg.id);
  }
});
process.stdin.on("error", () => void cleanUp());
process.stdin.on("end", () => void cleanUp());

/** state and process group of a live process; null when it is gone or a zombie (nobody may reap an orphan in a container). */
function stat(pid) {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = s.slice(s.lastIndexOf(")") + 2).split(" ");
    return f[0] === "Z" || f[0] === "X" ? null : { pgrp: Number(f[2]) };
  } catch {
    if (process.platform === "linux") return null;
    try {
      process.kill(pid, 0);
      return { pgrp: NaN };
    } catch {
      return null;
    }
  }
}

function groupAlive(pgid) {
  let dirs;
  try {
    dirs = readdirSync("/proc");
  } catch {
    try {
      process.kill(-pgid, 0);
      return true;
    } catch {
      return false;
    }
  }
  return dirs.some((d) => /^\d+$/.test(d) && stat(Number(d))?.pgrp === pgid);
}

/** The postmaster running on dataDir, from its postmaster.pid, if that pid is still a postgres. */
function postmaster(dataDir) {
  let pid;
  try {
    pid = Number.parseInt(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0], 10);
  } catch {
    return null;
  }
  if (!(pid > 0) || !stat(pid)) return null;
  try {
    if (!readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("postgres")) return null; // a reused pid
  } catch {
    /* no /proc: trust the pid file */
  }
  return pid;
}

function signal(target, sig) {
  try {
    process.kill(target, sig);
  } catch {
    /* gone already */
  }
}

let cleaning = false;
async function cleanUp() {
  if (cleaning) return;
  cleaning = true;
  const groups = [];
  const clusters = [];
  for (const w of watched.values()) {
    if (w.kind === "group") {
      if (!groupAlive(w.pgid)) continue;
      signal(-w.pgid, "SIGTERM");
      groups.push(w.pgid);
    } else {
      const pid = postmaster(w.dataDir);
      if (pid !== null) signal(pid, "SIGINT");
      clusters.push({ ...w, pid });
    }
  }
  const started = Date.now();
  while (true) {
    const elapsed = Date.now() - started;
    const liveGroups = groups.filter(groupAlive);
    const livePms = clusters.filter((c) => c.pid !== null && stat(c.pid));
    if (!liveGroups.length && !livePms.length) break;
    if (elapsed >= GIVE_UP_MS) break;
    if (elapsed >= GROUP_GRACE_MS) for (const g of liveGroups) signal(-g, "SIGKILL");
    for (const c of livePms) {
      if (elapsed >= PG_KILL_MS) signal(c.pid, "SIGKILL");
      else if (elapsed >= PG_QUIT_MS) signal(c.pid, "SIGQUIT");
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  for (const c of clusters) {
    if (c.remove && (c.pid === null || !stat(c.pid))) {
      try {
        rmSync(c.dataDir, { recursive: true, force: true });
      } catch {
        /* nothing more to do */
      }
    }
  }
  process.exit(0);
}
