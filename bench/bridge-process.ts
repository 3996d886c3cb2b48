// The WebSocket bridge (dev/bridge/) in a process of its own, so relaying bytes does not share
// the load generator's event loop (on Neon the proxy is another machine altogether). The parent
// asks for stats()/resetStats() over the IPC channel. Started by bench/stack.ts with `--import tsx`.
import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { BRIDGE_DEFAULTS, type BridgeStats, startBridge } from "../dev/bridge";

/** What the bench's bridge runs with: the bridge's own defaults, as `npm start` runs it. */
export const BENCH_BRIDGE = BRIDGE_DEFAULTS;

export interface BenchBridge {
  wsProxy: string;
  /** Its limits in words, for the log and the report's notes. */
  config: string;
  /** The bridge process's pid (for the CPU figures). */
  pid: number;
  stats(): Promise<BridgeStats>;
  resetStats(): Promise<void>;
  close(): Promise<void>;
}

type Request = { id: number; op: "stats" | "reset" | "close" };
type Reply = { id: number; stats?: BridgeStats } | { ready: string } | { failed: string };

/** Forks this file as a bridge process and talks to it; `rttMs` is the distance it adds (BridgeOptions.rttMs). */
export async function startBridgeProcess(rttMs = 0): Promise<BenchBridge> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ["--child", `--rtt-ms=${rttMs}`], {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const waiting = new Map<number, (r: Reply) => void>();
  let nextId = 1;
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    child.once("exit", () => {
      exited = true;
      resolve();
    }),
  );
  const wsProxy = await new Promise<string>((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`bridge process exited (${code}) before it was ready`)));
    child.on("message", (m: Reply) => {
      if ("ready" in m) resolve(m.ready);
      else if ("failed" in m) reject(new Error(m.failed));
      else {
        waiting.get(m.id)?.(m);
        waiting.delete(m.id);
      }
    });
  });
  const ask = (op: Request["op"]) =>
    new Promise<Reply>((resolve, reject) => {
      if (exited) return reject(new Error("bridge process is gone"));
      const id = nextId++;
      waiting.set(id, resolve);
      child.send({ id, op } satisfies Request);
    });
  const { poolSize, maxSessions, queueMs } = BENCH_BRIDGE;
  return {
    wsProxy,
    config: `bridge: its defaults — HTTP SQL (POST /sql) on a pool of ${poolSize} Postgres connections per database, at most ${maxSessions} WebSocket sessions at once, refusals (53300) after ${queueMs} ms in a queue${rttMs > 0 ? `; ${rttMs} ms added to every HTTP SQL request and WebSocket round trip` : ""}`,
    pid: child.pid!,
    stats: async () => ((await ask("stats")) as { stats: BridgeStats }).stats,
    resetStats: async () => void (await ask("reset")),
    close: async () => {
      if (exited) return;
      await ask("close").catch(() => {});
      const killer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exit;
      clearTimeout(killer);
    },
  };
}

if (process.argv.includes("--child") && process.send) {
  try {
    const rttMs = Number(process.argv.find((a) => a.startsWith("--rtt-ms="))?.slice("--rtt-ms=".length) ?? 0);
    const bridge = await startBridge({ ...BENCH_BRIDGE, rttMs });
    process.on("message", async (m: Request) => {
      if (m.op === "stats") process.send!({ id: m.id, stats: bridge.stats() } satisfies Reply);
      else if (m.op === "reset") {
        bridge.resetStats();
        process.send!({ id: m.id } satisfies Reply);
      } else if (m.op === "close") {
        await bridge.close();
        process.send!({ id: m.id } satisfies Reply, () => process.exit(0));
      }
    });
    process.on("disconnect", () => void bridge.close().then(() => process.exit(0)));
    process.send({ ready: bridge.wsProxy } satisfies Reply);
  } catch (err) {
    process.send({ failed: (err as Error).message } satisfies Reply, () => process.exit(1));
  }
}
