// burst-1000: through the edge (Admit's Worker, its own workerd socket), bounded bursts of 1000
// requests sent at once (1000 sockets, each sends one request), each on ONE contested thing:
// - rate limit, fixed window, limit 50, one key        → exactly 50 × 200, 950 × 429;
// - rate limit, token bucket, capacity 50, one key     → exactly 50 × 200, 950 × 429;
// - reservation, one resource, the same interval       → exactly 1 × 201, 999 × 409;
// - semaphore of 4 permits, claims outliving the burst → exactly 4 × 201 (slots 0–3), 996 × 429;
// - inventory sell-out, one night of 100 rooms, one-room bookings → exactly 100 × 201, 900 × 409;
// - the floor: GET / (no database, no Admit code past the router), through Admit's Worker only → 1000 × 200:
//   what a thousand connections at once cost workerd alone, the part of every burst's p99 that
//   coalescing cannot touch (its p99 is printed beside each burst's p99 target).
// Each row has the answers by status, `errors_5xx` (target 0), p50/p95/p99, and what the database
// held afterwards checked against the answers (`db_mismatch`, null when they agree).
// Each burst but the sell-out and the floor runs twice, on a thing of its own each time: through
// Admit's Worker (impl "admit", concurrent checks coalesced) and through its twin with COALESCE=off
// (impl "admit (COALESCE=off)"), one right after the other, the first alternating by burst; both are
// held to the same answers. In the neon profile every burst goes through the isolates round robin.
// Before each measured burst, an unmeasured one of the same kind on a thing of its own (WARMUP_SIZE).
// Run once per scenario (its last round), not in a pooler profile. Loopback only; every request
// times out after 60 s and each burst after 60 s.
import http from "node:http";
import { lockKey } from "../../functions/core/lock-keys";
import { httpRequest, runLoad } from "../load";
import { type BenchContext, hasFunctions, isolateUrl, lastRound, rowKey, type Scenario } from "../measure";
import { BURST_FLOOR, COALESCE_OFF, cpuPerDecision, type Row, round, summarize, tally } from "../report";
import { DUPLICATE_PERMITS } from "./permits";
import { EXCESS_ADMISSIONS } from "./ratelimit";
import { ADMIT_OVERLAPS } from "./reservation-burst";

export const BURST_SCENARIO = "burst-1000";
export const BURST_SIZE = 1000;
/**
 * Before each measured burst, one of this many requests at once on a thing of its own, unmeasured:
 * each Worker's first burst of a kind ran its isolate's code cold — in one run the first fixed-window
 * burst took 1 250 µs of Worker CPU per request and the same burst right after 610–670 — which is
 * what an isolate that has been serving traffic no longer pays.
 */
export const WARMUP_SIZE = 1000;
/** Long windows, so a burst never straddles two (fixed) and the bucket refills nothing meanwhile (~50 per week). */
const WEEK_MS = 604_800_000;
const HOUR_MS = 3_600_000;
const LOCK_TIMEOUT_MS = 2000;

interface Answer {
  status: number;
  json: any;
}

interface Burst {
  name: string;
  expected: Record<string, number>;
  /** GET, without a body or a token (the floor); default POST with a JSON body. */
  get?: true;
  /**
   * Through Admit's Worker only: the floor (nothing to coalesce); the sell-out (bookings with and
   * without coalescing are compared in inventory-hot-night's edge rows).
   */
  admitOnly?: true;
  /** In the neon profile only (bench/neon.ts): what a durable policy costs where commits wait. */
  neonOnly?: true;
  /** Makes the contested thing; returns the request to send (the same for every request but the holder). */
  setup(
    ctx: BenchContext,
    id: string,
  ): Promise<{ path: string; body: (i: number) => unknown; check: (answers: Answer[]) => Promise<{ mismatch: string | null; violations: number }> }>;
}

/** The counts that differ between what the database says and what the answers said, or null. */
export function mismatch(facts: [string, unknown, unknown][]): string | null {
  const wrong = facts.filter(([, db, answers]) => JSON.stringify(db) !== JSON.stringify(answers));
  return wrong.length ? wrong.map(([what, db, answers]) => `${what}: database ${JSON.stringify(db)}, answers ${JSON.stringify(answers)}`).join("; ") : null;
}

function rateLimit(algorithm: "fixed_window" | "token_bucket", durable = false): Burst {
  return {
    name: `ratelimit ${algorithm} limit 50${durable ? " durable" : ""}`,
    expected: { "200": 50, "429": 950 },
    ...(durable ? { neonOnly: true as const, admitOnly: true as const } : {}),
    async setup(ctx, id) {
      const policy = `burst.${algorithm}${durable ? ".durable" : ""}.${id}`;
      await ctx.sql("SELECT admit_ratelimit_put_policy($1, $2, 50, $3::bigint, false, $3::bigint, p_durable => $4)", [policy, algorithm, WEEK_MS, durable]);
      return {
        path: "/v1/ratelimits/check",
        body: () => ({ policy, key: "burst" }),
        async check(answers) {
          const [c] = await ctx.sql<{ admitted: number; windows: number }>(
            "SELECT coalesce(sum(admitted), 0)::int AS admitted, count(*)::int AS windows FROM ratelimit_counters WHERE policy = $1",
            [policy],
          );
          const [{ n }] = await ctx.sql<{ n: number }>(EXCESS_ADMISSIONS, [policy]);
          const allowed = answers.filter((a) => a.status === 200).length;
          return {
            mismatch: mismatch([
              ["admitted", c.admitted, allowed],
              ["counter rows", c.windows, 1],
            ]),
            violations: n,
          };
        },
      };
    },
  };
}

const reservation: Burst = {
  name: "reservation one interval",
  expected: { "201": 1, "409": 999 },
  async setup(ctx, id) {
    const resource = `burst/${id}`;
    const start = new Date(Date.UTC(2031, 0, 1, 10)).toISOString();
    const end = new Date(Date.UTC(2031, 0, 1, 12)).toISOString();
    return {
      path: "/v1/reservations",
      body: (i) => ({ resource, holder: `h${i}`, start, end }),
      async check(answers) {
        const stored = await ctx.sql<{ id: string }>("SELECT id::text FROM reservations WHERE resource = $1 AND cancelled_at IS NULL ORDER BY id", [resource]);
        const [{ n }] = await ctx.sql<{ n: number }>(ADMIT_OVERLAPS, [resource]);
        const created = answers
          .filter((a) => a.status === 201)
          .map((a) => String(a.json?.id))
          .sort();
        return { mismatch: mismatch([["reservation ids", stored.map((r) => r.id), created]]), violations: n };
      },
    };
  },
};

const semaphore: Burst = {
  name: "semaphore 4 permits",
  expected: { "201": 4, "429": 996 },
  async setup(ctx, id) {
    const name = `burst.${id}`;
    await ctx.sql("SELECT admit_semaphore_put($1::bigint, $2, 4, $3::integer, false, $4::integer)", [
      lockKey("semaphore", name),
      name,
      HOUR_MS,
      LOCK_TIMEOUT_MS,
    ]);
    return {
      path: `/v1/semaphores/${encodeURIComponent(name)}/acquire`,
      body: (i) => ({ holder: `h${i}`, ttl_ms: HOUR_MS }),
      async check(answers) {
        const held = await ctx.sql<{ id: string; slot: number }>(
          "SELECT id::text, slot FROM permits WHERE kind = 'semaphore' AND name = $1 AND released_at IS NULL AND timed_out_at IS NULL AND expires_at > now() ORDER BY slot",
          [name],
        );
        const [{ n }] = await ctx.sql<{ n: number }>(DUPLICATE_PERMITS, ["semaphore", name, 4]);
        const granted = answers.filter((a) => a.status === 201);
        return {
          mismatch: mismatch([
            ["permits held", held.map((p) => p.id).sort(), granted.map((a) => String(a.json?.permit_id)).sort()],
            ["slots", held.map((p) => p.slot), granted.map((a) => Number(a.json?.slot)).sort((x, y) => x - y)],
            ["slots 0–3", held.map((p) => p.slot), [0, 1, 2, 3]],
          ]),
          violations: n,
        };
      },
    };
  },
};

const SELLOUT_ROOMS = 100;
const NIGHT = "2031-02-01";
const NEXT = "2031-02-02";

const sellOut: Burst = {
  name: `inventory sell-out ${SELLOUT_ROOMS} rooms`,
  expected: { "201": SELLOUT_ROOMS, "409": BURST_SIZE - SELLOUT_ROOMS },
  admitOnly: true,
  async setup(ctx, id) {
    const item = `burst.${id}`;
    await ctx.sql("SELECT admit_inventory_set_stock($1, $2::date, $3::date, $4::integer, 2000)", [item, NIGHT, NEXT, SELLOUT_ROOMS]);
    return {
      path: `/v1/inventory/${encodeURIComponent(item)}/bookings`,
      body: (i) => ({ check_in: NIGHT, check_out: NEXT, quantity: 1, holder: `b${i}` }),
      async check(answers) {
        const booked = await ctx.sql<{ id: string }>("SELECT id::text FROM inventory_bookings WHERE item = $1 AND status = 'confirmed'", [item]);
        const [t] = await ctx.sql<{ taken: number; stored: number }>(
          `SELECT (SELECT count(*) FROM inventory_tokens WHERE item = $1 AND booking_id IS NOT NULL)::int AS taken,
                  (SELECT count(*) FROM inventory_bookings WHERE item = $1)::int AS stored`,
          [item],
        );
        const created = answers
          .filter((a) => a.status === 201)
          .map((a) => String(a.json?.booking_id))
          .sort();
        return {
          mismatch: mismatch([
            ["bookings", booked.map((b) => b.id).sort(), created],
            ["rooms taken", t.taken, created.length],
            ["bookings stored", t.stored, created.length],
          ]),
          // Rooms sold beyond the night's capacity.
          violations: Math.max(0, t.taken - SELLOUT_ROOMS),
        };
      },
    };
  },
};

const floor: Burst = {
  name: BURST_FLOOR,
  expected: { "200": 1000 },
  get: true,
  admitOnly: true,
  async setup() {
    return { path: "/", body: () => undefined, check: async () => ({ mismatch: null, violations: 0 }) };
  },
};

export const BURSTS: Burst[] = [rateLimit("fixed_window"), rateLimit("token_bucket"), rateLimit("fixed_window", true), reservation, semaphore, sellOut, floor];

/** Where a burst is sent: Admit's Worker ("admit") or another one, e.g. its COALESCE=off twin. */
interface Via {
  impl: string;
  worker: { url: string; token: string; urls?: string[] };
}

/** The burst's i-th request. */
function send(burst: Burst, to: Via, path: string, body: unknown, agent: http.Agent, i: number) {
  const { token } = to.worker;
  const url = isolateUrl(to.worker, i);
  return burst.get
    ? httpRequest(url + path, "GET", {}, undefined, agent)
    : httpRequest(url + path, "POST", { Authorization: `Bearer ${token}`, "Content-Type": "application/json" }, JSON.stringify(body), agent);
}

/** The warm-up: WARMUP_SIZE requests at once on a thing of its own, on sockets of their own, unmeasured and unchecked. */
async function warmUp(ctx: BenchContext, burst: Burst, to: Via): Promise<void> {
  const s = await burst.setup(
    ctx,
    rowKey(ctx, "warm", burst.name.split(" ")[0], burst.name.split(" ")[1], to.impl === "admit" ? "on" : "off", String(Date.now())),
  );
  const agent = new http.Agent({ keepAlive: true, maxSockets: WARMUP_SIZE });
  try {
    await runLoad({ concurrency: WARMUP_SIZE, requests: WARMUP_SIZE, timeLimitMs: 60_000 }, async (i) =>
      String((await send(burst, to, s.path, s.body(i), agent, i)).status),
    );
  } finally {
    agent.destroy();
  }
}

/** One burst: BURST_SIZE requests at once, each on a socket of its own, answers timed and checked. */
async function runBurst(ctx: BenchContext, burst: Burst, agent: http.Agent, to: Via): Promise<Row> {
  const id = rowKey(ctx, burst.name.split(" ")[0], burst.name.split(" ")[1], ...(to.impl === "admit" ? [] : ["off"]), String(Date.now()));
  const s = await burst.setup(ctx, id);
  const row: Row = {
    scenario: BURST_SCENARIO,
    burst: burst.name,
    layer: "edge",
    impl: to.impl,
    connection: "http",
    concurrency: BURST_SIZE,
    requests: 0,
    throughput_rps: null,
    p50_ms: null,
    p95_ms: null,
    p99_ms: null,
    violations: null,
    round_trips_per_decision: null,
    expected: burst.expected,
  };
  ctx.log(`  burst ${burst.name} (${to.impl}): ${BURST_SIZE} requests at once …`);
  const answers: Answer[] = [];
  await ctx.bridge.resetStats();
  const cpu = ctx.cpu ? ctx.cpu() : () => null;
  const load = await runLoad({ concurrency: BURST_SIZE, requests: BURST_SIZE, timeLimitMs: 60_000 }, async (i) => {
    const res = await send(burst, to, s.path, s.body(i), agent, i);
    let json: any;
    try {
      json = JSON.parse(res.text);
    } catch {
      json = undefined;
    }
    answers.push({ status: res.status, json });
    return String(res.status);
  });
  const cpuUs = cpu();
  const stats = await ctx.bridge.stats();
  const checked = await s.check(answers);
  row.requests = load.latencies.length;
  row.throughput_rps = load.elapsedMs > 0 ? round((load.latencies.length * 1000) / load.elapsedMs, 1) : null;
  Object.assign(row, summarize(load.latencies));
  row.outcomes = tally(load.outcomes);
  // A 5xx, or no HTTP answer at all (an "error:…" label), is an error of the burst.
  row.errors_5xx = load.outcomes.filter((o) => /^5\d\d$/.test(o) || o.startsWith("error")).length;
  row.violations = checked.violations;
  row.db_mismatch = checked.mismatch;
  row.http_requests_per_decision = load.latencies.length ? round(stats.httpRequests / load.latencies.length, 2) : null;
  row.round_trips_per_decision = load.latencies.length ? round(stats.clientMessages / load.latencies.length, 2) : null;
  row.cpu_us_per_decision = cpuPerDecision(cpuUs, row.requests);
  // What the 5xx answers said (their problem type and the first one's detail), to tell why.
  const failed = answers.filter((a) => a.status >= 500);
  const why = failed.length
    ? `; 5xx: ${Object.entries(tally(failed.map((a) => `${a.status} ${a.json?.type ?? "?"}`)))
        .map(([k, v]) => `${v}×${k}`)
        .join(", ")} (first: ${String(failed[0].json?.detail ?? failed[0].json?.title ?? "no detail").slice(0, 200)})`
    : "";
  row.note = `sent at once, ${round(load.elapsedMs, 0)} ms in all; database ${checked.mismatch ? "disagrees: " + checked.mismatch : "agrees with the answers"}${why}`;
  ctx.log(
    `    ${Object.entries(row.outcomes)
      .map(([k, v]) => `${v}×${k}`)
      .join(" ")}, 5xx ${row.errors_5xx}, p99 ${row.p99_ms} ms, http ${row.http_requests_per_decision}, database: ${checked.mismatch ?? "agrees"}${why}`,
  );
  return row;
}

export const burst1000: Scenario = {
  name: BURST_SCENARIO,
  async unavailable(ctx) {
    if (!ctx.worker) return "--no-edge";
    return (await hasFunctions(ctx, "admit_ratelimit_check", "admit_reserve", "admit_permit_acquire", "admit_semaphore_put", "admit_inventory_book"))
      ? null
      : "rate limits, reservations, semaphores or inventory not on this build";
  },
  async run(ctx) {
    // Once, in the last round, and not again through a pooler.
    if (ctx.profile || !lastRound(ctx)) return [];
    const rows: Row[] = [];
    const vias: Via[] = [{ impl: "admit", worker: ctx.worker! }, ...(ctx.coalesceOffWorker ? [{ impl: COALESCE_OFF, worker: ctx.coalesceOffWorker }] : [])];
    const bursts = BURSTS.filter((b) => !b.neonOnly || ctx.settings?.profile === "neon");
    for (const [n, b] of bursts.entries()) {
      for (const to of b.admitOnly ? vias.slice(0, 1) : n % 2 === 0 ? vias : [...vias].reverse()) {
        await warmUp(ctx, b, to);
        // Sockets of its own for each burst: a kept-alive socket the Worker closed while idle between
        // two bursts would be reset on reuse, an error of the bench rather than of the Worker.
        const agent = new http.Agent({ keepAlive: true, maxSockets: BURST_SIZE });
        try {
          rows.push(await runBurst(ctx, b, agent, to));
        } finally {
          agent.destroy();
        }
      }
    }
    return rows;
  },
};
