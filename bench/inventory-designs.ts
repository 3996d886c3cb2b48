// Which inventory mechanism? The same burst on ONE hot night against both designs:
//   tokens  — schema/000030_inventory.sql: seed 003's token rows claimed with FOR UPDATE SKIP LOCKED (what Admit ships)
//   counter — bench/peers/inventory_counter.sql: a guarded per-night counter row, updated in date order
// Every booking is 1 room for the same night, sent with the Neon driver through the WebSocket bridge
// (as the Worker does), at a few concurrency levels; afterwards the database is checked for oversell
// and for every success being stored. Prints throughput and latency percentiles per design and level.
//
//   npx tsx bench/inventory-designs.ts [--requests 2000] [--levels 1,4,16,64] [--rounds 2] [--per-request] [--sellout] [--durable]
//
// --sellout sets capacity to half the requests (the 409 path gets measured too; sold must equal capacity).
// --durable runs Postgres with fsync and synchronous_commit on (the default cluster has them off, like
// the test cluster): every commit waits for the disk, as a Neon commit waits for its safekeepers.
//
// --per-request opens a new connection for every booking (as a Worker invocation does) instead of
// one connection per concurrent client; connection setup then dominates both designs alike.
// The burst function, the designs and the peer loader are exported for the bench harness.
import "../dev/node-ws";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { startBridge } from "../dev/bridge";
import { startPostgres } from "../dev/postgres";
import { createClient, sqlState } from "../functions/core/db";
import { migrate } from "../tools/migrate";

export const INVENTORY_COUNTER_PEER = join(dirname(fileURLToPath(import.meta.url)), "peers", "inventory_counter.sql");

type Query = (text: string, params?: unknown[]) => Promise<{ rows: any[] }>;

/** Loads the counter peer into a migrated database (idempotent). */
export async function loadInventoryPeer(query: Query): Promise<void> {
  await query(readFileSync(INVENTORY_COUNTER_PEER, "utf8"));
}

export type InventoryDesign = "counter" | "tokens";

interface DesignSql {
  /** Stock for [night, night + 1). Params: item, night, capacity. */
  stock: string;
  /** One booking of 1 room for [night, night + 1), answering {created, …}. Params: item, night, holder. */
  book: string;
  /** After the burst: rooms sold per the booking rows, bookings stored, and what the design's own bookkeeping says was taken. Params: item, night. */
  check: string;
}

export const INVENTORY_DESIGNS: Record<InventoryDesign, DesignSql> = {
  counter: {
    stock: "SELECT peer_counter_set_stock($1, $2::date, $2::date + 1, $3::integer, 2000)",
    book: "SELECT peer_counter_book($1, $2::date, $2::date + 1, 1, $3, NULL, 2000) AS r",
    check: `SELECT (SELECT coalesce(sum(quantity), 0) FROM peer_counter_bookings WHERE item = $1 AND check_in <= $2::date AND check_out > $2::date AND status = 'confirmed')::int AS sold,
                   (SELECT count(*) FROM peer_counter_bookings WHERE item = $1)::int AS stored,
                   (SELECT booked + held FROM peer_counter_nights WHERE item = $1 AND night = $2::date)::int AS taken`,
  },
  tokens: {
    stock: "SELECT admit_inventory_set_stock($1, $2::date, $2::date + 1, $3::integer, 2000)",
    book: "SELECT admit_inventory_book($1, $2::date, $2::date + 1, 1, $3, NULL, 2000) AS r",
    check: `SELECT (SELECT coalesce(sum(quantity), 0) FROM inventory_bookings WHERE item = $1 AND check_in <= $2::date AND check_out > $2::date AND status = 'confirmed')::int AS sold,
                   (SELECT count(*) FROM inventory_bookings WHERE item = $1)::int AS stored,
                   (SELECT count(*) FROM inventory_tokens WHERE item = $1 AND night = $2::date AND booking_id IS NOT NULL)::int AS taken`,
  },
};

export interface HotNightBurstOptions {
  /** Postgres URL and the bridge ("127.0.0.1:PORT/v1") the Neon driver goes through. */
  databaseUrl: string;
  wsProxy?: string;
  /** Setup and checks (plain TCP is best, so they do not load the bridge). */
  admin: Query;
  design: InventoryDesign;
  concurrency: number;
  requests: number;
  /** Rooms on the hot night; default = requests (every booking should win: a 409 is a false refusal). */
  capacity?: number;
  /** A fresh connection per booking (Worker-like) instead of one per concurrent client. */
  perRequest?: boolean;
  /** Default: a new item per call. */
  item?: string;
  night?: string;
}

export interface HotNightBurstResult {
  design: InventoryDesign;
  concurrency: number;
  requests: number;
  capacity: number;
  created: number;
  refused: number;
  /** Failures by SQLSTATE (or "network"): a deadlock or lock timeout would show here. */
  errors: Record<string, number>;
  seconds: number;
  perSecond: number;
  p50ms: number;
  p95ms: number;
  p99ms: number;
  /** From the database afterwards. */
  sold: number;
  stored: number;
  taken: number;
  /** sold ≤ capacity, every success stored and nothing else, bookkeeping agrees with the rows. */
  ok: boolean;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

const round1 = (n: number) => Math.round(n * 10) / 10;

/** Fires `requests` one-room bookings of one night at `concurrency`, then checks the database. */
export async function hotNightBurst(o: HotNightBurstOptions): Promise<HotNightBurstResult> {
  const sqlOf = INVENTORY_DESIGNS[o.design];
  const capacity = o.capacity ?? o.requests;
  const item = o.item ?? `hot/${o.design}/${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const night = o.night ?? "2030-03-29";
  await o.admin(sqlOf.stock, [item, night, capacity]);

  const open = async () => {
    const c = createClient({ DATABASE_URL: o.databaseUrl, NEON_WS_PROXY: o.wsProxy });
    await c.connect();
    return c;
  };
  const pool = o.perRequest ? [] : await Promise.all(Array.from({ length: o.concurrency }, open));

  const latencies: number[] = [];
  const errors: Record<string, number> = {};
  let created = 0;
  let refused = 0;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: o.concurrency }, async (_, w) => {
      while (next < o.requests) {
        const i = next++;
        const t0 = performance.now();
        try {
          const c = o.perRequest ? await open() : pool[w];
          try {
            const { rows } = await c.query(sqlOf.book, [item, night, `b${i}`]);
            if (rows[0].r.created) created++;
            else refused++;
          } finally {
            if (o.perRequest) await c.end();
          }
        } catch (err) {
          const k = sqlState(err) ?? "network";
          errors[k] = (errors[k] ?? 0) + 1;
        }
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await Promise.all(pool.map((c) => c.end()));

  const { rows } = await o.admin(sqlOf.check, [item, night]);
  const { sold, stored, taken } = rows[0] as { sold: number; stored: number; taken: number };
  latencies.sort((a, b) => a - b);
  return {
    design: o.design,
    concurrency: o.concurrency,
    requests: o.requests,
    capacity,
    created,
    refused,
    errors,
    seconds: round1(seconds),
    perSecond: Math.round(o.requests / seconds),
    p50ms: round1(percentile(latencies, 50)),
    p95ms: round1(percentile(latencies, 95)),
    p99ms: round1(percentile(latencies, 99)),
    sold,
    stored,
    taken,
    ok: sold <= capacity && stored === created && taken === sold,
  };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** One line per design and concurrency: median req/s, p50 and p95 over the rounds, and whether every round passed its checks. */
export function summarize(results: HotNightBurstResult[]): string[] {
  const lines = ["design   conc    req/s    p50ms   p95ms  rounds  all checks"];
  const levels = [...new Set(results.map((r) => r.concurrency))];
  for (const concurrency of levels) {
    for (const design of Object.keys(INVENTORY_DESIGNS) as InventoryDesign[]) {
      const rs = results.filter((r) => r.design === design && r.concurrency === concurrency);
      if (!rs.length) continue;
      lines.push(
        [
          design.padEnd(8),
          String(concurrency).padStart(4),
          String(Math.round(median(rs.map((r) => r.perSecond)))).padStart(8),
          String(round1(median(rs.map((r) => r.p50ms)))).padStart(8),
          String(round1(median(rs.map((r) => r.p95ms)))).padStart(7),
          String(rs.length).padStart(7),
          rs.every((r) => r.ok) ? "  ok" : "  FAILED",
        ].join(" "),
      );
    }
  }
  return lines;
}

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

async function main(): Promise<void> {
  const requests = Number(arg("requests", "2000"));
  const levels = arg("levels", "1,4,16,64").split(",").map(Number);
  const rounds = Number(arg("rounds", "2"));
  const perRequest = process.argv.includes("--per-request");
  const capacity = process.argv.includes("--sellout") ? Math.floor(requests / 2) : requests;

  const dataDir = await mkdtemp(join(tmpdir(), "admit-inventory-bench-"));
  const durable = process.argv.includes("--durable");
  // persistent: true keeps fsync/synchronous_commit at Postgres's defaults (on); the directory is removed below.
  const pgh = await startPostgres({ dataDir, persistent: durable, database: "admit_inventory_bench" });
  const bridge = await startBridge();
  const admin = new pg.Client({ connectionString: pgh.url });
  try {
    await migrate({ databaseUrl: pgh.url, wsProxy: bridge.wsProxy });
    await admin.connect();
    const query: Query = (text, params) => admin.query(text, params as unknown[]);
    await loadInventoryPeer(query);
    console.log(
      `one hot night, ${requests} one-room bookings per row, capacity ${capacity}, Neon driver via the bridge, ${perRequest ? "a new connection per booking" : "one connection per concurrent client"}, ${durable ? "durable commits (fsync, synchronous_commit on)" : "fsync and synchronous_commit off"}; ${rounds} round(s), designs alternating`,
    );
    console.log("design   conc  created refused errors        req/s    p50ms   p95ms   p99ms  sold/cap   check");
    const results: HotNightBurstResult[] = [];
    for (let r = 0; r < rounds; r++) {
      for (const concurrency of levels) {
        for (const design of (r % 2 ? ["tokens", "counter"] : ["counter", "tokens"]) as InventoryDesign[]) {
          const res = await hotNightBurst({ databaseUrl: pgh.url, wsProxy: bridge.wsProxy, admin: query, design, concurrency, requests, capacity, perRequest });
          results.push(res);
          console.log(
            [
              design.padEnd(8),
              String(concurrency).padStart(4),
              String(res.created).padStart(8),
              String(res.refused).padStart(7),
              (JSON.stringify(res.errors) === "{}" ? "-" : JSON.stringify(res.errors)).padEnd(12),
              String(res.perSecond).padStart(7),
              String(res.p50ms).padStart(8),
              String(res.p95ms).padStart(7),
              String(res.p99ms).padStart(7),
              `${res.sold}/${res.capacity}`.padStart(9),
              res.ok ? "   ok" : "   OVERSOLD/MISMATCH",
            ].join(" "),
          );
        }
      }
    }
    console.log(`\nmedian over ${rounds} round(s):`);
    console.log(summarize(results).join("\n"));
    if (results.some((r) => !r.ok)) process.exitCode = 1;
  } finally {
    await admin.end().catch(() => {});
    await bridge.close();
    await pgh.stop();
    if (durable) await rm(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main().catch((err) => {
    console.error(err);
    process.exitCode = 1;
  });
}
