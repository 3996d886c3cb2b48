// Nothing outlives `npm start`: whatever kills it — SIGKILL of npm, of the node process
// running dev/start.ts, or of npm's whole process group — wrangler, its workerd processes and the
// embedded postmaster go too, and the Worker's port is free again. A start that finds its port held
// names the holder. Real processes on free loopback ports with a throwaway ADMIT_DATA_DIR; bounds
// are for a broken run, not timing assertions.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { canBind, ROOT } from "../../dev/local";
import { distinctFreePorts, freeStartPorts, type StartPorts, spawnNpmStart, throwawayDataDir } from "../../dev/npm-start";
import { listProcesses, liveProcess } from "../../dev/proc";

const STOP_BOUND_MS = 20_000; // the guard's own worst case is 20 s (SIGKILL after 5 s for wrangler, 15 s for Postgres)

interface Tracked {
  pid: number;
  start: number;
  pgrp: number;
  command: string;
}

const cleanups: (() => void)[] = [];
afterAll(() => {
  for (const c of cleanups.reverse()) {
    try {
      c();
    } catch {
      /* best effort */
    }
  }
});

function kill(target: number, signal: NodeJS.Signals): void {
  try {
    process.kill(target, signal);
  } catch {
    /* gone */
  }
}

function command(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
  } catch {
    return "?";
  }
}

/** Every live descendant of `root` (root included), with its start time so a reused pid is not mistaken for it. */
function descendants(root: number): Tracked[] {
  const procs = listProcesses() ?? [];
  const children = new Map<number, number[]>();
  for (const p of procs) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p.pid]);
  const out: Tracked[] = [];
  const queue = [root];
  while (queue.length) {
    const pid = queue.shift()!;
    const live = liveProcess(pid);
    if (live) out.push({ pid, start: live.start, pgrp: live.pgrp, command: command(pid) });
    queue.push(...(children.get(pid) ?? []));
  }
  return out;
}

const alive = (t: Tracked) => liveProcess(t.pid)?.start === t.start;

/** Kills whatever of `tracked` still runs (afterAll, or a failed test): their process groups, then each one. */
function killTracked(tracked: Tracked[]): void {
  for (const t of tracked.filter(alive)) if (t.pgrp !== process.pid && t.pgrp > 1) kill(-t.pgrp, "SIGKILL");
  for (const t of tracked.filter(alive)) kill(t.pid, "SIGKILL");
}

/** A throwaway ADMIT_DATA_DIR, removed after the suite. */
function ownDataDir(): string {
  const dir = throwawayDataDir("admit-lifecycle-");
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

interface Stack {
  npm: ChildProcess;
  port: number;
  output: string[];
  exited: Promise<number | null>;
}

/** `npm start` in a process group of its own (as from a shell), on free ports and a throwaway data dir. */
async function npmStart(ports?: StartPorts, dataDir = ownDataDir()): Promise<Stack & { dataDir: string }> {
  const on = ports ?? (await freeStartPorts());
  const npm = spawnNpmStart(on, dataDir, { API_TOKEN: "lifecycle-test" });
  const output: string[] = [];
  const onData = (chunk: Buffer) => output.push(chunk.toString());
  npm.stdout!.on("data", onData);
  npm.stderr!.on("data", onData);
  const exited = new Promise<number | null>((resolve) => npm.once("exit", (code) => resolve(code)));
  // Whatever this run started, stopped even if the test fails half-way.
  let tracked: Tracked[] = [];
  const track = setInterval(() => {
    const now = descendants(npm.pid!);
    tracked = [...tracked, ...now.filter((n) => !tracked.some((t) => t.pid === n.pid && t.start === n.start))];
  }, 200);
  cleanups.push(() => {
    clearInterval(track);
    kill(-npm.pid!, "SIGKILL");
    killTracked(tracked);
  });
  return { npm, port: on.port, output, exited, dataDir };
}

async function untilHealthy(stack: Stack, ms = 120_000): Promise<void> {
  const end = Date.now() + ms;
  let gone = false;
  void stack.exited.then(() => (gone = true));
  while (Date.now() < end) {
    if (gone) throw new Error(`npm start exited before serving /health:\n${stack.output.join("")}`);
    try {
      const res = await fetch(`http://127.0.0.1:${stack.port}/health`, { signal: AbortSignal.timeout(2_000) });
      if (res.status === 200) return;
    } catch {
      /* not yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`npm start did not serve /health within ${ms} ms:\n${stack.output.join("")}`);
}

/** After the kill: within the bound, none of the run's processes is left and the Worker's port is free. */
async function expectAllGone(stack: Stack, tracked: Tracked[]): Promise<void> {
  const end = Date.now() + STOP_BOUND_MS;
  let left = tracked.filter(alive);
  let portFree = false;
  while (Date.now() < end) {
    left = tracked.filter(alive);
    portFree = await canBind(stack.port);
    if (!left.length && portFree) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  expect(
    left.map((t) => `${t.pid} ${t.command.slice(0, 100)}`),
    `processes left:\n${stack.output.join("")}`,
  ).toEqual([]);
  expect(portFree).toBe(true);
}

/** The run's processes once it serves: workerd (wrangler's group), the postmaster and the guard among them. */
function snapshot(stack: Stack): Tracked[] {
  const tracked = descendants(stack.npm.pid!);
  const names = tracked.map((t) => t.command).join("\n");
  expect(names).toMatch(/workerd/);
  expect(names).toMatch(/bin\/postgres -D/);
  expect(names).toMatch(/dev\/guard\.mjs/);
  return tracked;
}

describe.skipIf(process.platform !== "linux")("npm start leaves nothing behind", () => {
  it("SIGKILL of the npm process: dev/start.ts notices and stops everything", async () => {
    const stack = await npmStart();
    await untilHealthy(stack);
    const tracked = snapshot(stack);
    kill(stack.npm.pid!, "SIGKILL");
    await expectAllGone(stack, tracked);
  }, 180_000);

  it("SIGKILL of the node process running dev/start.ts: the guard stops wrangler and Postgres", async () => {
    const stack = await npmStart();
    await untilHealthy(stack);
    const tracked = snapshot(stack);
    const starts = tracked.filter((t) => /dev\/start\.ts/.test(t.command));
    const main = starts[starts.length - 1]; // the node process itself (npm runs it through sh)
    expect(main.command).toMatch(/--import|--loader/);
    kill(main.pid, "SIGKILL");
    await expectAllGone(stack, tracked);
  }, 180_000);

  it("SIGKILL of npm's whole process group (postmaster included): the guard stops wrangler, and the next start on the same data dir works", async () => {
    const [port, pgport, bridgePort] = await distinctFreePorts(3);
    const stack = await npmStart({ port, pgport, bridgePort });
    await untilHealthy(stack);
    const tracked = snapshot(stack);
    kill(-stack.npm.pid!, "SIGKILL");
    await expectAllGone(stack, tracked);
    // What a leftover process breaks is the next start: "Address already in use", or Postgres "still running".
    const again = await npmStart({ port, pgport, bridgePort }, stack.dataDir);
    await untilHealthy(again);
    kill(-again.npm.pid!, "SIGINT"); // Ctrl-C
    const code = await Promise.race([again.exited, new Promise<"running">((r) => setTimeout(() => r("running"), 30_000))]);
    expect(code, again.output.join("")).not.toBe("running");
    expect(again.output.join("")).toContain("[admit] stopped");
  }, 240_000);

  it("a start whose port is held names the holder (pid, command, process group) and how to stop it", async () => {
    const [port, pgport, bridgePort] = await distinctFreePorts(3);
    const holder = spawn(process.execPath, ["-e", `require("net").createServer().listen(${port}, "127.0.0.1", () => console.log("listening"))`], {
      detached: true,
      stdio: ["ignore", "pipe", "ignore"],
    });
    cleanups.push(() => kill(-holder.pid!, "SIGKILL"));
    await new Promise<void>((resolve, reject) => {
      holder.stdout!.on("data", () => resolve());
      holder.once("exit", () => reject(new Error("the holder exited")));
    });
    const stack = await npmStart({ port, pgport, bridgePort });
    const code = await Promise.race([stack.exited, new Promise<"running">((r) => setTimeout(() => r("running"), 60_000))]);
    const out = stack.output.join("");
    expect(code, out).not.toBe("running");
    expect(code).not.toBe(0);
    expect(out).toContain("could not start");
    expect(out).toContain(`port ${port} is held by pid ${holder.pid}`);
    expect(out).toContain(`process group ${holder.pid}`); // detached: its own group
    expect(out).toContain(`kill -- -${holder.pid}`);
    expect(out).toContain("set PORT to another port");
  }, 120_000);
});

describe.skipIf(process.platform !== "linux")("startWranglerDev's callers (tests, bench)", () => {
  it("a process that started wrangler dev and is SIGKILLed (a vitest worker, the bench) leaves no workerd behind", async () => {
    const dir = mkdtempSync(join(tmpdir(), "admit-lifecycle-wrangler-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const script = join(dir, "worker.mts");
    writeFileSync(
      script,
      `import { startWranglerDev } from ${JSON.stringify(join(ROOT, "dev", "wrangler.ts"))};
       const w = await startWranglerDev({ vars: { DATABASE_URL: "postgres://nobody:x@127.0.0.1:1/none", NEON_WS_PROXY: "127.0.0.1:1/v1", API_TOKEN: "lifecycle-test" } });
       console.log(JSON.stringify({ pgid: w.pgid, port: w.port }));
       setInterval(() => {}, 1_000);`,
    );
    const child = spawn(process.execPath, ["--import", "tsx", script], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
    let tracked: Tracked[] = [];
    cleanups.push(() => {
      kill(child.pid!, "SIGKILL");
      killTracked(tracked);
    });
    let out = "";
    child.stderr!.on("data", (c: Buffer) => (out += c.toString()));
    const started = await new Promise<{ pgid: number; port: number }>((resolve, reject) => {
      child.stdout!.on("data", (c: Buffer) => {
        out += c.toString();
        const line = /\{"pgid".*\}/.exec(out)?.[0];
        if (line) resolve(JSON.parse(line));
      });
      child.once("exit", () => reject(new Error(`exited before wrangler was ready:\n${out}`)));
    });
    tracked = descendants(child.pid!);
    expect(tracked.filter((t) => t.pgrp === started.pgid && /workerd/.test(t.command)).length).toBeGreaterThan(0);
    kill(child.pid!, "SIGKILL");
    await expectAllGone({ npm: child, port: started.port, output: [out], exited: Promise.resolve(null) }, tracked);
  }, 120_000);
});
