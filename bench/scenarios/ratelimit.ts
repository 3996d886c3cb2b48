// Rate-limit checks (seed 001): `ratelimit-hot` (every call on ONE key) and `ratelimit-10k-keys`
// (calls spread over 10 000 keys), plus the deny-cache burst figure.
//
// - ratelimit-hot uses a limit no row can reach, so every call is an admitted write of the same
//   counter row: the statement's own cost under row-lock contention, which is what the ceiling
//   (pgbench running admit_ratelimit_check) and rate-limiter-flexible's upsert are compared on.
// - ratelimit-10k-keys uses a small limit, so some keys run out and are refused (and then answered
//   by the deny cache without Postgres).
// - On the hot key, the driver alone (impl "@neondatabase/serverless") sends the same statement with
//   none of Admit's code around it, pooled in Node and per request from a bare Worker
//   (bench/peers/driver-worker): what the transport allows, against which Admit's rows are read.
// - Coalescing (functions/core/coalesce.ts, issue 33): Admit's Worker coalesces concurrent checks;
//   its twin with COALESCE=off sends each check as its own statement. At each edge concurrency the
//   two run one right after the other (with the METRICS=off twin on Admit's other side), and on the
//   hot key a short one-client pair of the two ("never slower alone"). In the library layer, the row
//   "admit (coalesced)" runs the same check on a handle with a coalesceKey, so the row's concurrent
//   checks share statements, each batch on its carrier's own pooled connection; the "admit" rows'
//   handles have none (each check its own statement).
// - The burst: 10 000 calls on one fresh key with limit 100 through the Worker; the database's own
//   `attempted` count (library; at the edge, the answers with Admit-Cache: miss, since the Worker also
//   counts its cache's answers in `attempted`) says how many reached Postgres, `admitted` that no more
//   than 100 got through.
//
// Violations = admissions beyond the limit in any window, from ratelimit_counters afterwards.
// rate-limiter-flexible's table keeps attempts, not admissions, so its figure is counted from its
// answers (calls it allowed beyond the limit per key).
import { Pool as NeonPool, neonConfig } from "@neondatabase/serverless";
import pg from "pg";
import { RateLimiterPostgres, RateLimiterRes } from "rate-limiter-flexible";
import { coalescedWebSocket, type RequestDb } from "../../functions/core/db";
import { checkRateLimit, DenyCache } from "../../functions/ratelimits";
import { CHECK_SQL, checkCoalescing } from "../../functions/ratelimits/sql";
import { httpRequest, pooledConnections, type Query, runLoad } from "../load";
import { type BenchContext, ceiling, edge, hasFunctions, lastRound, library, peer, rowKey, type Scenario } from "../measure";
import { ALONE, AUTHZ, COALESCE_OFF, COALESCED, DRIVER, METRICS_OFF, type Row, round } from "../report";
import { noopBeside } from "./noop";

const WINDOW_MS = 60_000;
const LOCK_TIMEOUT_MS = 2000;

export const EXCESS_ADMISSIONS = `
  SELECT coalesce(sum(greatest(0, c.admitted - p.quota)), 0)::int AS n
    FROM ratelimit_counters c JOIN ratelimit_policies p ON p.name = c.policy
   WHERE c.policy = $1`;

interface Shape {
  name: "ratelimit-hot" | "ratelimit-10k-keys";
  limit: number;
  keys: number;
}

const DRIVER_NOTE = "the driver alone: the same statement with no Admit code around it, on the same transport";
const METRICS_OFF_NOTE = "the same Worker with METRICS=off: no decision counts, no deny-cache counting, no flushes";
const COALESCE_OFF_NOTE = "the same Worker with COALESCE=off: each check its own statement";
/** The one-client pair's decisions: at most this many (and the row's seconds), a short row. */
const ALONE_REQUESTS = 2_000;

const HOT: Shape = { name: "ratelimit-hot", limit: 1_000_000_000, keys: 1 };
const SPREAD: Shape = { name: "ratelimit-10k-keys", limit: 5, keys: 10_000 };

/** Request i's key: one key, or one of `keys` spread by a hash of i. */
export function keyOf(shape: { keys: number }, i: number): string {
  if (shape.keys === 1) return "hot";
  let h = Math.imul(i ^ 0x5bd1e995, 0x27d4eb2d);
  h ^= h >>> 15;
  return `k${1 + ((h >>> 0) % shape.keys)}`;
}

/**
 * The request's database handle as checkRateLimit needs it, over the row's connection. With a
 * `coalesceKey`, checks in flight together on handles of that key share one statement (sent on the
 * carrier's own connection), each with 5 s of budget as a request would have; without, each check is
 * its own statement.
 */
function dbOver(q: Query, coalesceKey?: string): RequestDb {
  const db = {
    query: async (text: string, params: unknown[]) => (await q(text, params)).rows,
    lockTimeoutMs: LOCK_TIMEOUT_MS,
    ...(coalesceKey === undefined ? {} : { coalesceKey, remainingMs: () => 5_000 }),
  };
  return db as unknown as RequestDb;
}

async function makePolicy(ctx: BenchContext, name: string, limit: number, windowMs = WINDOW_MS): Promise<void> {
  await ctx.sql("SELECT admit_ratelimit_put_policy($1, 'fixed_window', $2::integer, $3::bigint, false, 604800000)", [name, limit, windowMs]);
}

function excess(ctx: BenchContext, policy: string) {
  return async () => (await ctx.sql<{ n: number }>(EXCESS_ADMISSIONS, [policy]))[0].n;
}

function pgbenchScript(shape: Shape): string {
  const key = shape.keys === 1 ? "'hot'" : "'k' || :k";
  return `${shape.keys === 1 ? "" : `\\set k random(1, ${shape.keys})\n`}SELECT admit_ratelimit_check(:policy, ${key}, 1::integer, NULL::jsonb, ${LOCK_TIMEOUT_MS}::integer) AS r;\n`;
}

/** rate-limiter-flexible's upsert (lib/RateLimiterPostgres.js `_upsert`, points 1, no forced expiry), for pgbench. */
function rlfPgbenchScript(shape: Shape): string {
  const key = shape.keys === 1 ? ":prefix || 'hot'" : ":prefix || 'k' || :k";
  return `${shape.keys === 1 ? "" : `\\set k random(1, ${shape.keys})\n`}INSERT INTO bench_rlflx VALUES (${key}, 1, :exp::bigint)
  ON CONFLICT(key) DO UPDATE SET
    points = CASE WHEN (bench_rlflx.expire <= :now::bigint OR 1=0) THEN 1 ELSE bench_rlflx.points + (1) END,
    expire = CASE WHEN bench_rlflx.expire <= :now::bigint THEN :exp::bigint ELSE bench_rlflx.expire END
  RETURNING points, expire;
`;
}

async function rows(ctx: BenchContext, shape: Shape): Promise<(Row | null)[]> {
  const out: (Row | null)[] = [];
  // The driver-alone rows: the hot key only, and not re-run in a pooler profile (they are no Admit rows).
  const driverAlone = shape === HOT && !ctx.profile;
  const policyFor = async (layer: string, impl: string, connection: string) => {
    const name = `${shape.name}.${rowKey(ctx, layer, impl, connection)}`;
    await makePolicy(ctx, name, shape.limit);
    return name;
  };
  for (const connection of ["pooled", "per-request"] as const) {
    const policy = await policyFor("ceiling", "pgbench", connection);
    out.push(
      await ceiling(ctx, {
        scenario: shape.name,
        impl: "pgbench",
        connection,
        script: pgbenchScript(shape),
        defines: { policy },
        violations: excess(ctx, policy),
      }),
    );
  }
  if (!ctx.profile) {
    // The peer's own statement at the ceiling too, so the two designs also meet without any client in between.
    const prefix = `${shape.name}.${rowKey(ctx, "rlf-pgbench")}`;
    const now = Date.now();
    out.push(
      await ceiling(ctx, {
        scenario: shape.name,
        impl: "rate-limiter-flexible",
        connection: "pooled",
        script: rlfPgbenchScript(shape),
        defines: { prefix: `${prefix}:`, now: String(now), exp: String(now + WINDOW_MS) },
        note: "its upsert, as RateLimiterPostgres sends it",
      }),
    );
  }
  // Admit's check, each its own statement (impl "admit", pooled and per request) and coalesced
  // (COALESCED, pooled: the handle has a coalesceKey of its own row). The two pooled rows run one
  // right after the other, the first alternating by round.
  const libraryRow = async (connection: "pooled" | "per-request", coalesced: boolean) => {
    const policy = await policyFor("library", coalesced ? "coalesced" : "admit", connection);
    const coalesceKey = coalesced ? `bench-${shape.name}.${rowKey(ctx, "library", "coalesced")}` : undefined;
    const cache = new DenyCache(); // one isolate's
    let before = { ...checkCoalescing };
    const row = await library(ctx, {
      scenario: shape.name,
      impl: coalesced ? COALESCED : "admit",
      connection,
      violations: excess(ctx, policy),
      onTimed: () => void (before = { ...checkCoalescing }),
      op: async (q, i) => {
        const d = await checkRateLimit(dbOver(q, coalesceKey), { policy, key: keyOf(shape, i) }, cache);
        if (!d) throw new Error(`policy ${policy} missing`);
        return d.result.allowed ? "allowed" : d.cached ? "denied (cache)" : "denied";
      },
    });
    if (row) {
      const notes = [`deny cache: ${cache.hits} hits, ${cache.dbCalls} database calls`];
      if (coalesced) {
        // The coalescer's counters over the timed decisions (this process runs no other checks meanwhile).
        const [alone, batches, batched, fallbacks] = (["alone", "batches", "batched", "fallbacks"] as const).map((k) => checkCoalescing[k] - before[k]);
        notes.unshift(
          `coalesced: ${batched} checks in ${batches} batch statements (${batches ? round(batched / batches, 1) : 0} per batch), ${alone} alone` +
            `${fallbacks ? `, ${fallbacks} batches sent again one by one` : ""}; ${alone + batches ? round((alone + batched) / (alone + batches), 1) : 0} checks per statement`,
        );
        ctx.log(`    ${notes[0]}`);
      }
      row.note = notes.join("; ");
    }
    return row;
  };
  for (const coalesced of ctx.round % 2 === 0 ? [false, true] : [true, false]) out.push(await libraryRow("pooled", coalesced));
  out.push(await libraryRow("per-request", false));
  if (driverAlone) {
    // The same statement through the bare driver on the same pooled connections and bridge, with no
    // Admit code around it: the most any TypeScript library on this transport gets from it here.
    const policy = await policyFor("library", "driver", "pooled");
    out.push(
      await library(ctx, {
        scenario: shape.name,
        impl: DRIVER,
        connection: "pooled",
        note: DRIVER_NOTE,
        violations: excess(ctx, policy),
        op: async (q, i) => ((await q(CHECK_SQL, [policy, keyOf(shape, i), 1, null, LOCK_TIMEOUT_MS])).rows[0].r.allowed ? "allowed" : "denied"),
      }),
    );
  }
  // At each edge concurrency, Admit's Worker and (hot key) the bare Worker over HTTP one right after
  // the other, the first of the two alternating by round, so their ratio shares the machine's moment
  // and neither always follows the same row; then the bare Worker over a WebSocket Client per request
  // at each concurrency, last, so the backends its connections start and end are not in the way of
  // the HTTP rows' figures.
  // Admit's Worker as it runs by default ("admit"), and its twins with METRICS=off and COALESCE=off.
  const twins = {
    admit: { impl: "admit", policy: "admit" },
    "metrics-off": { impl: METRICS_OFF, policy: "admit-metrics-off", worker: ctx.metricsOffWorker, note: METRICS_OFF_NOTE },
    "coalesce-off": { impl: COALESCE_OFF, policy: "admit-coalesce-off", worker: ctx.coalesceOffWorker, note: COALESCE_OFF_NOTE },
  };
  type Twin = keyof typeof twins;
  const admitRow = async (concurrency: number, twin: Twin = "admit", requests?: number) => {
    const t = twins[twin];
    const policy = await policyFor("edge", t.policy, `http-c${concurrency}`);
    return edge(ctx, {
      scenario: shape.name,
      impl: t.impl,
      connection: "http",
      concurrency,
      ...(requests === undefined ? {} : { requests }),
      ...("worker" in t ? { worker: t.worker, note: t.note } : {}),
      violations: excess(ctx, policy),
      op: async (call, i) => String((await call("POST", "/v1/ratelimits/check", { policy, key: keyOf(shape, i) })).status),
    });
  };
  // Admit as it runs by default between its twins, each one right after or right before it at each
  // concurrency, which of the two alternating by round: "nothing added to the hot path" (metrics on
  // vs METRICS=off) and what coalescing gives (vs COALESCE=off) are read from rows of the same run
  // that share the machine's moment. A twin whose Worker is not running (pooler profile) is left out.
  const admitRowsOnOff = async (concurrency: number) => {
    const order: Twin[] = ctx.round % 2 === 0 ? ["metrics-off", "admit", "coalesce-off"] : ["coalesce-off", "admit", "metrics-off"];
    const out: (Row | null)[] = [];
    for (const t of order) if (t === "admit" || twins[t].worker) out.push(await admitRow(concurrency, t));
    return out;
  };
  // One client, coalescing on and off (the hot key, short rows, the first alternating by round): with
  // nothing in flight beside it a check goes at once as its own statement, so no slower than off.
  const aloneRows = async () => {
    const out: (Row | null)[] = [];
    const requests = Math.min(ALONE_REQUESTS, ctx.requests);
    const order: Twin[] = ctx.round % 2 === 0 ? ["admit", "coalesce-off"] : ["coalesce-off", "admit"];
    for (const t of order) out.push(await admitRow(ALONE, t, requests));
    return out;
  };
  // A Worker that is only `neon()` (or a WebSocket Client) and this statement (bench/peers/driver-worker).
  const bareRow = async (concurrency: number, connection: "http" | "websocket") => {
    const policy = await policyFor("edge", "driver", `${connection}-c${concurrency}`);
    return edge(ctx, {
      scenario: shape.name,
      impl: DRIVER,
      connection,
      concurrency,
      worker: ctx.driverWorker,
      note: DRIVER_NOTE,
      violations: excess(ctx, policy),
      op: async (call, i) => String((await call("POST", `/check/${connection}`, { policy, key: keyOf(shape, i) })).status),
    });
  };
  // The same check with a scoped key (ratelimits:decide, bounded to this scenario's policies)
  // instead of the root token, right after the root token's row at each concurrency: the key is
  // verified through the isolate's key cache, so the two rows should be level (issue 29: ≥ 0.95×).
  const scopedSecret = shape === HOT && ctx.worker ? await scopedKey(ctx, `${shape.name}.*`) : undefined;
  const scopedRow = async (concurrency: number) => {
    const policy = await policyFor("edge", SCOPED, `http-c${concurrency}`);
    return edge(ctx, {
      scenario: shape.name,
      impl: SCOPED,
      connection: "http",
      concurrency,
      worker: { url: ctx.worker!.url, token: scopedSecret },
      note: "a key with ratelimits:decide on this scenario's policies, beside the root token's row",
      violations: excess(ctx, policy),
      op: async (call, i) => String((await call("POST", "/v1/ratelimits/check", { policy, key: keyOf(shape, i) })).status),
    });
  };
  // The root token's row and the scoped key's, one right after the other, their order alternating by round.
  const admitRows = async (concurrency: number) => {
    const scopedRows = async (c: number) => [await scopedRow(c)];
    const rows = !scopedSecret ? [admitRowsOnOff] : ctx.round % 2 === 0 ? [admitRowsOnOff, scopedRows] : [scopedRows, admitRowsOnOff];
    const got: (Row | null)[] = [];
    for (const row of rows) got.push(...(await row(concurrency)));
    return got;
  };
  // The same check as a gateway's forward-auth asks it (GET /v1/authz, the key in a header): the
  // hot-key shape only, beside the check route's row (docs/gateways.md).
  const authzRow = async (concurrency: number) => {
    const policy = await policyFor("edge", "admit", `authz-c${concurrency}`);
    return edge(ctx, {
      scenario: shape.name,
      impl: AUTHZ,
      connection: "http",
      concurrency,
      note: "GET /v1/authz?policy=…&key=header:X-Api-Key (forward-auth)",
      violations: excess(ctx, policy),
      op: async (call, i) => String((await call("GET", `/v1/authz?policy=${policy}&key=header:X-Api-Key`, undefined, { "X-Api-Key": keyOf(shape, i) })).status),
    });
  };
  for (const concurrency of ctx.edgeConcurrency) {
    out.push(await noopBeside(ctx, shape.name, concurrency));
    // Rows that are compared run one right after the other, the first rotating by round.
    const group: Array<() => Promise<(Row | null)[]>> = [
      () => admitRows(concurrency),
      ...(driverAlone ? [async () => [await bareRow(concurrency, "http")]] : []),
      ...(shape === HOT ? [async () => [await authzRow(concurrency)]] : []),
    ];
    const first = ctx.round % group.length;
    for (const rows of [...group.slice(first), ...group.slice(0, first)]) out.push(...(await rows()));
  }
  // The one-client pair, on the hot key, where the edge rows did not already run at one client.
  if (shape === HOT && !ctx.profile && ctx.coalesceOffWorker && !ctx.edgeConcurrency.includes(ALONE)) out.push(...(await aloneRows()));
  if (driverAlone) for (const concurrency of ctx.edgeConcurrency) out.push(await bareRow(concurrency, "websocket"));
  if (!ctx.profile) {
    out.push(await rateLimiterFlexible(ctx, shape, "tcp"));
    out.push(await rateLimiterFlexible(ctx, shape, "neon-bridge"));
  }
  return out;
}

const SCOPED = "admit-scoped-key";

/** A key of Admit's Worker with ratelimits:decide on policies matching `pattern` (POST /v1/keys with the root token). */
async function scopedKey(ctx: BenchContext, pattern: string): Promise<string> {
  const { url, token } = ctx.worker!;
  const res = await httpRequest(
    `${url}/v1/keys`,
    "POST",
    { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    JSON.stringify({ name: `bench ${pattern}`, scopes: ["ratelimits:decide"], names: [pattern] }),
  );
  if (res.status !== 201) throw new Error(`POST /v1/keys answered ${res.status}: ${res.text}`);
  return JSON.parse(res.text).secret;
}

/**
 * The peer as its users run it: RateLimiterPostgres on a `pg` Pool (plain TCP, named prepared
 * statements) with as many connections as the other rows' concurrency, on the same database.
 * With `via = "neon-bridge"` the same peer runs on the Neon driver's pg-compatible Pool through the
 * same WebSocket bridge as Admit's rows (the only way it could reach Postgres from a Worker), shown
 * as its own row "via neon-bridge".
 */
async function rateLimiterFlexible(ctx: BenchContext, shape: Shape, via: "tcp" | "neon-bridge"): Promise<Row | null> {
  const pool =
    via === "tcp"
      ? new pg.Pool({ connectionString: ctx.db.url, max: ctx.concurrency })
      : (() => {
          // The Pool's clients take the global defaults: the same settings createClient() gives Admit's,
          // write coalescing included (one frame per statement, no 1 ms timer).
          Object.assign(neonConfig, {
            wsProxy: ctx.db.wsProxy,
            useSecureWebSocket: false,
            pipelineTLS: false,
            pipelineConnect: "password",
            webSocketConstructor: coalescedWebSocket(neonConfig.webSocketConstructor!),
            coalesceWrites: false,
          });
          return new NeonPool({ connectionString: ctx.db.url, max: ctx.concurrency });
        })();
  pool.on("error", () => {});
  try {
    // Open every connection before timing, as the Admit pooled row does.
    const held = await Promise.all(Array.from({ length: ctx.concurrency }, () => pool.connect()));
    for (const c of held) c.release();
    const prefix = `${shape.name}.${rowKey(ctx, "rlf", via)}`;
    const limiter = await new Promise<RateLimiterPostgres>((resolve, reject) => {
      const l: RateLimiterPostgres = new RateLimiterPostgres(
        {
          storeClient: pool,
          storeType: "pool",
          tableName: "bench_rlflx",
          keyPrefix: prefix,
          points: shape.limit,
          duration: WINDOW_MS / 1000,
          clearExpiredByTimeout: false,
        },
        (err?: Error) => (err ? reject(err) : resolve(l)),
      );
    });
    const allowed = new Map<string, number>();
    const row = await peer(ctx, {
      scenario: shape.name,
      impl: "rate-limiter-flexible",
      connection: "pooled",
      note:
        via === "tcp"
          ? "pg Pool over TCP (not through the bridge), named prepared statements"
          : "Neon driver Pool through the same WebSocket bridge as Admit, named prepared statements",
      violations: async () => [...allowed.values()].reduce((s, n) => s + Math.max(0, n - shape.limit), 0),
      op: async (i) => {
        const key = keyOf(shape, i);
        try {
          await limiter.consume(key);
          allowed.set(key, (allowed.get(key) ?? 0) + 1);
          return "allowed";
        } catch (err) {
          if (err instanceof RateLimiterRes) return "denied";
          throw err;
        }
      },
    });
    // A transport profile of its own, so the report keeps it apart from the TCP row.
    if (row && via !== "tcp") row.profile = via;
    return row;
  } finally {
    await pool.end().catch(() => {});
  }
}

/** 10 000 calls (2 000 with --quick) on one fresh key with limit 100: how many reached Postgres? */
async function denyCacheBurst(ctx: BenchContext): Promise<void> {
  const limit = 100;
  const burst = ctx.quick ? 2_000 : 10_000;
  for (const layer of ["library", "edge"] as const) {
    if (layer === "edge" && !ctx.worker) continue;
    const policy = `ratelimit-burst.${layer}`;
    // An hour-long window (aligned to the epoch), so the burst almost always falls in one window;
    // if it straddles two, each window may admit `limit` and the bound doubles.
    await makePolicy(ctx, policy, limit, 3_600_000);
    ctx.log(`  deny-cache burst (${layer}): ${burst} calls on one key, limit ${limit} …`);
    let load: Awaited<ReturnType<typeof runLoad>>;
    if (layer === "edge") {
      const { url, token } = ctx.worker!;
      load = await runLoad({ concurrency: ctx.concurrency, requests: burst, timeLimitMs: 60_000 }, async () => {
        const res = await httpRequest(
          `${url}/v1/ratelimits/check`,
          "POST",
          { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
          JSON.stringify({ policy, key: "burst" }),
        );
        return `${res.status} ${res.headers["admit-cache"] ?? ""}`.trim();
      });
    } else {
      const conns = await pooledConnections(ctx.db, ctx.concurrency);
      const cache = new DenyCache();
      try {
        load = await runLoad({ concurrency: ctx.concurrency, requests: burst, timeLimitMs: 60_000 }, (_i, w) =>
          conns.use(w, async (q) => {
            const d = await checkRateLimit(dbOver(q), { policy, key: "burst" }, cache);
            return d!.result.allowed ? "allowed" : d!.cached ? "denied (cache)" : "denied";
          }),
        );
      } finally {
        await conns.close();
      }
    }
    const [c] = await ctx.sql<{ attempted: number; admitted: number; windows: number; excess: number }>(
      `SELECT coalesce(sum(attempted), 0)::int AS attempted, coalesce(sum(admitted), 0)::int AS admitted,
              count(*)::int AS windows, coalesce(sum(greatest(0, admitted - $2)), 0)::int AS excess
         FROM ratelimit_counters WHERE policy = $1`,
      [policy, limit],
    );
    const answered = load.outcomes.length;
    const allowedSeen = load.outcomes.filter((o) => o.startsWith("200") || o === "allowed").length;
    // The Worker counts the calls its deny cache answered in `attempted` too (after the response, in
    // its flush: docs/observability.md), so at the edge the database's decisions are the answers with
    // Admit-Cache: miss; the library rows run without a tally, where `attempted` is exactly those.
    const decided = layer === "edge" ? load.outcomes.filter((o) => o.endsWith("miss")).length : c.attempted;
    ctx.log(`    ${answered} answered, ${decided} reached Postgres, ${c.admitted} admitted (${allowedSeen} allowed answers)`);
    // At most `limit` admitted, plus the calls already in flight when the limit was reached, plus one per isolate.
    const windows = Math.max(1, c.windows);
    const bound = (limit + ctx.concurrency + 1) * windows;
    ctx.figure({
      name: `deny-cache burst (${layer}): ${burst} calls on one key, limit ${limit} → database decisions`,
      value: decided,
      max: bound,
      met: decided <= bound && c.excess === 0,
      detail:
        `${answered} answered, ${decided} reached Postgres (${layer === "edge" ? "answers with Admit-Cache: miss" : "the database's own attempted count"}), ${c.admitted} admitted` +
        `${windows > 1 ? ` over ${windows} windows` : ""}, ${c.excess} beyond the limit; bound ${bound} = (limit + in-flight ${ctx.concurrency} + 1 per isolate)${windows > 1 ? ` × ${windows} windows` : ""}`,
    });
  }
}

function scenario(shape: Shape): Scenario {
  return {
    name: shape.name,
    async unavailable(ctx) {
      return (await hasFunctions(ctx, "admit_ratelimit_check", "admit_ratelimit_put_policy")) ? null : "rate limits (admit_ratelimit_check) not on this build";
    },
    async run(ctx) {
      await ctx.sql("CREATE TABLE IF NOT EXISTS bench_rlflx (key varchar(255) PRIMARY KEY, points integer NOT NULL DEFAULT 0, expire bigint)");
      const out = await rows(ctx, shape);
      if (shape === HOT && !ctx.profile && lastRound(ctx)) await denyCacheBurst(ctx);
      return out;
    },
  };
}

export const ratelimitHot = scenario(HOT);
export const ratelimit10kKeys = scenario(SPREAD);
