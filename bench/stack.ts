// Everything the bench needs, started by the bench itself on loopback: a throwaway embedded
// Postgres, the WebSocket bridge (own process), the migrations, and the Workers in wrangler dev:
// Admit's, its twins with METRICS=off and with COALESCE=off, and the driver-alone Worker.
import { randomBytes } from "node:crypto";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { type PgHandle, postmasterPid, startPostgres } from "../dev/postgres";
import { ownSocket, startWranglerDev, type WranglerDev } from "../dev/wrangler";
import { migrate } from "../tools/migrate";
import { type BenchBridge, startBridgeProcess } from "./bridge-process";
import type { StackPids } from "./cpu";
import { installCommitLatency, LOCAL, NEON_CLUSTER, type Settings } from "./neon";
import { type Pgbouncer, type PgbouncerBin, startPgbouncer } from "./pgbouncer";

export interface Stack {
  pg: PgHandle;
  bridge: BenchBridge;
  /** The Worker under wrangler dev; null with --no-edge. */
  worker: WranglerDev | null;
  /** Neon profile: every isolate of Admit's Worker (the first is `worker`) and of the driver-alone Worker, each its own wrangler dev. */
  isolates: { admit: WranglerDev[]; driver: WranglerDev[] };
  /** The "driver alone" Worker (bench/peers/driver-worker): the check's statement and nothing else; null with --no-edge. */
  driverWorker: WranglerDev | null;
  /** Admit's Worker again with METRICS=off (no counting, no flushes): the rate-limit rows run on both in the same run; null with --no-edge. */
  metricsOffWorker: WranglerDev | null;
  /** Admit's Worker again with COALESCE=off (each check its own statement): the rate-limit and burst rows run on both in the same run; null with --no-edge. */
  coalesceOffWorker: WranglerDev | null;
  token: string;
  /** One admin connection over plain TCP (node-postgres), so setup and counting never show up in the bridge's figures. */
  admin: pg.Client;
  /** The pooled profile, when PgBouncer is installed: PgBouncer and a Worker whose DATABASE_URL points at it. */
  pooler: { bouncer: Pgbouncer; worker: WranglerDev | null } | null;
  /** Its processes, for the CPU figures. */
  pids: StackPids;
  stop(): Promise<void>;
}

/** The driver-alone Worker's wrangler config, from the repository root. */
export const DRIVER_WORKER = "bench/peers/driver-worker/wrangler.toml";

export interface StackOptions {
  edge: boolean;
  pgbouncer: PgbouncerBin | null;
  poolSize: number;
  log: (line: string) => void;
  /** The profile: today's (local, the default), or neon's (bench/neon.ts): synchronous commits that wait, isolates, distance. */
  settings?: Settings;
}

function edgeVia(w: WranglerDev): string {
  return w.directUrl
    ? `edge rows go to the Worker's own workerd socket ${w.directUrl}, past wrangler's dev proxy`
    : "edge rows go through wrangler's dev proxy (the Worker's own socket was not found), a second workerd hop per request";
}

export async function startStack(opts: StackOptions): Promise<Stack> {
  const stops: (() => Promise<unknown>)[] = [];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch(() => {});
    stops.length = 0;
  };
  try {
    const dataDir = await mkdtemp(join(tmpdir(), "admit-bench-pg-"));
    const settings = opts.settings ?? LOCAL;
    const neon = settings.profile === "neon";
    const pgh = await startPostgres({ dataDir, persistent: false, database: "admit_bench", ...(neon ? { settings: { ...NEON_CLUSTER } } : {}) });
    stops.push(() => pgh.stop());
    opts.log(`postgres on ${pgh.host}:${pgh.port} (throwaway cluster, fsync off${neon ? ", synchronous_commit on" : ""})`);
    const bridge = await startBridgeProcess(settings.rtt_ms);
    stops.push(() => bridge.close());
    opts.log(`bridge on ${bridge.wsProxy} (its own process); ${bridge.config}`);
    const { applied } = await migrate({ databaseUrl: pgh.url, wsProxy: bridge.wsProxy });
    opts.log(`migrated: ${applied.join(", ")}`);
    const admin = new pg.Client({ connectionString: pgh.url });
    admin.on("error", () => {});
    await admin.connect();
    stops.push(() => admin.end());
    if (neon) {
      const n = await installCommitLatency(async (text, params) => (await admin.query(text, params as unknown[])).rows);
      opts.log(`commit latency emulated on ${n} tables (a deferred trigger sleeping once per synchronous commit)`);
    }
    const token = "bench_" + randomBytes(12).toString("base64url");
    let worker: WranglerDev | null = null;
    let driverWorker: WranglerDev | null = null;
    let metricsOffWorker: WranglerDev | null = null;
    let coalesceOffWorker: WranglerDev | null = null;
    const isolates: Stack["isolates"] = { admit: [], driver: [] };
    if (opts.edge && neon) {
      const vars = { DATABASE_URL: pgh.url, NEON_WS_PROXY: bridge.wsProxy };
      const n = settings.isolates;
      opts.log(`starting ${n} isolates of Admit's Worker and ${n} of the driver-alone Worker, each its own wrangler dev…`);
      // A few at a time: each start bundles the Worker and boots a workerd.
      for (let i = 0; i < n; i += 4) {
        const batch = Array.from({ length: Math.min(4, n - i) }, () => [
          startWranglerDev({ vars: { ...vars, API_TOKEN: token, COALESCE: "on" }, readyTimeoutMs: 180_000, devtools: false, direct: true }),
          startWranglerDev({ config: DRIVER_WORKER, vars, readyTimeoutMs: 180_000, devtools: false, direct: true }),
        ]).flat();
        const started = await Promise.allSettled(batch);
        for (const s of started) if (s.status === "fulfilled") stops.push(() => s.value.stop());
        for (const s of started) if (s.status === "rejected") throw s.reason;
        const up = started.map((s) => (s as PromiseFulfilledResult<WranglerDev>).value);
        isolates.admit.push(...up.filter((_, k) => k % 2 === 0));
        isolates.driver.push(...up.filter((_, k) => k % 2 === 1));
      }
      worker = isolates.admit[0];
      driverWorker = isolates.driver[0];
      opts.log(`Admit's isolates on ${isolates.admit.map(ownSocket).join(" ")}`);
    } else if (opts.edge) {
      opts.log("starting wrangler dev (Admit's Worker, again with METRICS=off and with COALESCE=off, and the driver-alone Worker)…");
      const vars = { DATABASE_URL: pgh.url, NEON_WS_PROXY: bridge.wsProxy };
      const started = await Promise.allSettled([
        // Coalescing is off by default (wrangler.toml); the bench's Admit rows run it on, beside the twin without it.
        startWranglerDev({ vars: { ...vars, API_TOKEN: token, COALESCE: "on" }, readyTimeoutMs: 90_000, devtools: false, direct: true }),
        startWranglerDev({ config: DRIVER_WORKER, vars, readyTimeoutMs: 90_000, devtools: false, direct: true }),
        startWranglerDev({ vars: { ...vars, API_TOKEN: token, METRICS: "off", COALESCE: "on" }, readyTimeoutMs: 90_000, devtools: false, direct: true }),
        startWranglerDev({ vars: { ...vars, API_TOKEN: token, COALESCE: "off" }, readyTimeoutMs: 90_000, devtools: false, direct: true }),
      ]);
      for (const s of started) if (s.status === "fulfilled") stops.push(() => s.value.stop());
      for (const s of started) if (s.status === "rejected") throw s.reason;
      [worker, driverWorker, metricsOffWorker, coalesceOffWorker] = started.map((s) => (s as PromiseFulfilledResult<WranglerDev>).value);
      opts.log(`wrangler dev on ${worker.url}; ${edgeVia(worker)}`);
      opts.log(`driver-alone Worker on ${ownSocket(driverWorker)}`);
      opts.log(`Admit's Worker with METRICS=off on ${ownSocket(metricsOffWorker)}`);
      opts.log(`Admit's Worker with COALESCE=off on ${ownSocket(coalesceOffWorker)}`);
    }
    let pooler: Stack["pooler"] = null;
    if (opts.pgbouncer) {
      const bouncer = await startPgbouncer(opts.pgbouncer, pgh, opts.poolSize);
      stops.push(() => bouncer.stop());
      opts.log(`pgbouncer (transaction mode, pool ${opts.poolSize}) on ${bouncer.host}:${bouncer.port}`);
      let pooledWorker: WranglerDev | null = null;
      if (opts.edge) {
        pooledWorker = await startWranglerDev({
          vars: { DATABASE_URL: bouncer.url, NEON_WS_PROXY: bridge.wsProxy, API_TOKEN: token, COALESCE: "on" },
          readyTimeoutMs: 90_000,
          devtools: false,
          direct: true,
        });
        const w = pooledWorker;
        stops.push(() => w.stop());
        opts.log(`wrangler dev through pgbouncer on ${pooledWorker.url}; ${edgeVia(pooledWorker)}`);
      }
      pooler = { bouncer, worker: pooledWorker };
    }
    const pids: StackPids = {
      postmaster: postmasterPid(pgh.dataDir),
      bridge: bridge.pid,
      wranglers: [...new Set([worker, driverWorker, metricsOffWorker, coalesceOffWorker, pooler?.worker, ...isolates.admit, ...isolates.driver])].flatMap(
        (w) => (w ? [w.pgid] : []),
      ),
      self: process.pid,
    };
    return { pg: pgh, bridge, worker, isolates, driverWorker, metricsOffWorker, coalesceOffWorker, token, admin, pooler, pids, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
