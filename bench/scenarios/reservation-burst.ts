// reservation-burst: everyone wants the same server at once (seed 000). Every request of a row goes
// to ONE resource, for 1–3 hour-slots out of a few hundred, so most requests collide; the calendar
// fills within the first few hundred decisions and the rest are refusals.
// Violations = pairs of stored reservations of the row's resource that overlap.
import { lockKey } from "../../functions/core/lock-keys";
import { RESERVE_SQL } from "../../functions/reservations/sql";
import { type BenchContext, ceiling, edge, hasFunctions, library, rowKey, type Scenario } from "../measure";
import { peerSql } from "../peers";
import type { Row } from "../report";
import { noopBeside } from "./noop";

const NAME = "reservation-burst";
const SLOTS = 400;
const HOUR_S = 3600;
const BASE_S = Date.UTC(2030, 0, 1) / 1000;
/** The statement the route runs (functions/reservations/sql.ts). */
export const RESERVE = RESERVE_SQL;
const LOCK_TIMEOUT_MS = 2000;

/** Request i's interval: deterministic, so every layer sees the same sequence. */
export function slotOf(i: number): { start: string; end: string } {
  let h = Math.imul(i + 0x9e3779b9, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  const u = h >>> 0;
  const slot = u % SLOTS;
  const len = 1 + ((u >>> 16) % 3);
  const s = BASE_S + slot * HOUR_S;
  return { start: new Date(s * 1000).toISOString(), end: new Date((s + len * HOUR_S) * 1000).toISOString() };
}

/** Overlapping pairs among a resource's active reservations (Admit's table). */
export const ADMIT_OVERLAPS = `
  SELECT count(*)::int AS n FROM reservations a
    JOIN reservations b ON a.resource = b.resource AND a.id < b.id AND a.during && b.during
   WHERE a.resource = $1 AND a.cancelled_at IS NULL AND b.cancelled_at IS NULL`;

/** Overlapping pairs among a resource's rows in the peers' table. */
export const PEER_OVERLAPS = `
  SELECT count(*)::int AS n FROM bench_reserved_servers a
    JOIN bench_reserved_servers b ON a.resource = b.resource AND a.id < b.id
     AND a.start_at < b.end_at AND b.start_at < a.end_at
   WHERE a.resource = $1`;

const PGBENCH_SCRIPT = `
\\set slot random(0, ${SLOTS - 1})
\\set len random(1, 3)
\\set s ${BASE_S} + :slot * ${HOUR_S}
\\set e :s + :len * ${HOUR_S}
SELECT admit_reserve(:key::bigint, :resource, 'pgbench-' || :client_id, to_timestamp(:s::double precision), to_timestamp(:e::double precision), NULL::jsonb, ${LOCK_TIMEOUT_MS}) AS r;
`;

function resourceFor(ctx: BenchContext, layer: string, impl: string, connection: string): string {
  return `rb/${rowKey(ctx, layer, impl, connection)}`;
}

function count(ctx: BenchContext, query: string, resource: string) {
  return async () => (await ctx.sql<{ n: number }>(query, [resource]))[0].n;
}

export const reservationBurst: Scenario = {
  name: NAME,
  async unavailable(ctx) {
    return (await hasFunctions(ctx, "admit_reserve")) ? null : "admit_reserve() not in the schema";
  },
  async run(ctx) {
    const rows: (Row | null)[] = [];
    for (const connection of ["pooled", "per-request"] as const) {
      const resource = resourceFor(ctx, "ceiling", "pgbench", connection);
      rows.push(
        await ceiling(ctx, {
          scenario: NAME,
          impl: "pgbench",
          connection,
          script: PGBENCH_SCRIPT,
          defines: { key: lockKey("reservation", resource), resource },
          violations: count(ctx, ADMIT_OVERLAPS, resource),
        }),
      );
    }
    for (const connection of ["pooled", "per-request"] as const) {
      const resource = resourceFor(ctx, "library", "admit", connection);
      const key = lockKey("reservation", resource);
      rows.push(
        await library(ctx, {
          scenario: NAME,
          impl: "admit",
          connection,
          violations: count(ctx, ADMIT_OVERLAPS, resource),
          op: async (q, i) => {
            const { start, end } = slotOf(i);
            const { rows } = await q(RESERVE, [key, resource, `h${i}`, start, end, null, LOCK_TIMEOUT_MS]);
            return rows[0].r.created ? "created" : "conflict";
          },
        }),
      );
    }
    for (const concurrency of ctx.edgeConcurrency) {
      rows.push(await noopBeside(ctx, NAME, concurrency));
      const resource = resourceFor(ctx, "edge", "admit", `http-c${concurrency}`);
      rows.push(
        await edge(ctx, {
          scenario: NAME,
          impl: "admit",
          connection: "http",
          concurrency,
          violations: count(ctx, ADMIT_OVERLAPS, resource),
          op: async (call, i) => {
            const { start, end } = slotOf(i);
            return String((await call("POST", "/v1/reservations", { resource, holder: `h${i}`, start, end })).status);
          },
        }),
      );
    }

    // Peers: seed 000's check-then-insert without and with the advisory lock, as transactions of
    // separate statements (the article's shape), on a table of their own without the EXCLUDE guard.
    if (ctx.profile) return rows;
    const naive = await peerSql("seed000-naive.sql");
    const advisory = await peerSql("seed000-advisory.sql");
    await ctx.sql(naive.setup);
    for (const [impl, stmts] of [
      ["seed000-naive", naive],
      ["seed000-advisory-lock", advisory],
    ] as const) {
      for (const connection of ["pooled", "per-request"] as const) {
        const resource = resourceFor(ctx, "library", impl, connection);
        const key = lockKey("reservation", resource);
        rows.push(
          await library(ctx, {
            scenario: NAME,
            impl,
            connection,
            violations: count(ctx, PEER_OVERLAPS, resource),
            op: async (q, i) => {
              const { start, end } = slotOf(i);
              await q("BEGIN");
              try {
                if (stmts.lock) await q(stmts.lock, [key]);
                const taken = (await q(stmts.check, [resource, start, end])).rows.length > 0;
                if (!taken) await q(stmts.insert, [resource, start, end, `h${i}`]);
                await q("COMMIT");
                return taken ? "conflict" : "created";
              } catch (err) {
                await q("ROLLBACK").catch(() => {});
                throw err;
              }
            },
          }),
        );
      }
    }
    return rows;
  },
};
