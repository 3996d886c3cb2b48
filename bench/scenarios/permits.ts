// Permits (seeds 002 and 004): `semaphore-churn` (a 4-permit semaphore, acquire then release at
// once, by more clients than permits) and `lock-contention` (a lease — a semaphore of one permit —
// wanted by every client at once). One decision = one acquire, plus the release when it was granted;
// a refused acquire answers at once (429/409), it never queues.
//
// Violations = duplicate permits, from the permits history afterwards: a claim whose slot was still
// held by an earlier claim (overlapping [claimed_at, end) on one slot), a slot beyond the size, and
// fencing tokens that do not increase in grant order.
import type { RequestDb } from "../../functions/core/db";
import { lockKey } from "../../functions/core/lock-keys";
import { acquirePermit, type PermitKind, releasePermit } from "../../functions/permits";
import type { Query } from "../load";
import { atEdgeConcurrencies, type BenchContext, ceiling, edge, hasFunctions, library, rowKey, type Scenario } from "../measure";
import type { Row } from "../report";

const LOCK_TIMEOUT_MS = 2000;
const TTL_MS = 60_000;

/** Claims whose slot was still held by an earlier claim, slots out of range, tokens out of order. */
export const DUPLICATE_PERMITS = `
  WITH p AS (
    SELECT slot, claimed_at, fencing_token,
           coalesce(released_at, timed_out_at, expires_at) AS ended_at,
           max(coalesce(released_at, timed_out_at, expires_at)) OVER (
             PARTITION BY slot ORDER BY claimed_at, fencing_token ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS held_until,
           lag(fencing_token) OVER (ORDER BY claimed_at, fencing_token) AS previous_token
      FROM permits WHERE kind = $1 AND name = $2)
  SELECT (count(*) FILTER (WHERE claimed_at < held_until)
        + count(*) FILTER (WHERE slot < 0 OR slot >= $3)
        + count(*) FILTER (WHERE fencing_token <= previous_token))::int AS n
    FROM p`;

interface Shape {
  name: "semaphore-churn" | "lock-contention";
  kind: PermitKind;
  permits: number;
}

const SEMAPHORE: Shape = { name: "semaphore-churn", kind: "semaphore", permits: 4 };
const LEASE: Shape = { name: "lock-contention", kind: "lease", permits: 1 };

function dbOver(q: Query): RequestDb {
  const db = { query: async (text: string, params: unknown[]) => (await q(text, params)).rows, lockTimeoutMs: LOCK_TIMEOUT_MS };
  return db as unknown as RequestDb;
}

/**
 * One cycle as pgbench runs it, one statement per transaction as the edge sends one HTTP request per
 * statement (so -C opens a connection for each): acquire; and in the client's next transaction, if
 * it was granted, its release. pgbench keeps a client's variables across transactions, which carries
 * `held` and `pid` over; `t` counts the client's transactions as pgbench's log numbers them (from 1)
 * and goes into the holder, so `releases` can tell afterwards which transactions were releases.
 */
export function pgbenchScript(kind: PermitKind): string {
  const id = kind === "lease" ? "lease_id" : "permit_id";
  const ttl = kind === "lease" ? `${TTL_MS}::integer` : "NULL::integer";
  return [
    "\\set t :t + 1",
    "\\if :held",
    `SELECT admit_permit_release(:key::bigint, '${kind}', :name, :pid::uuid, ${LOCK_TIMEOUT_MS}::integer);`,
    "\\set held 0",
    "\\else",
    `SELECT pid, (pid <> '')::integer AS held FROM (SELECT coalesce(admit_permit_acquire(:key::bigint, '${kind}', :name, 'pgbench-' || :client_id || '-' || :t, ${ttl}, ${LOCK_TIMEOUT_MS}::integer)->'permit'->>'${id}', '') AS pid) a \\gset`,
    "\\endif",
    "",
  ].join("\n");
}

/** The pgbench transactions that released a claim ("client:tx"): each follows a granted acquire. */
export async function releases(sql: BenchContext["sql"], kind: PermitKind, name: string): Promise<Set<string>> {
  const rows = await sql<{ holder: string }>("SELECT holder FROM permits WHERE kind = $1 AND name = $2 AND holder LIKE 'pgbench-%'", [kind, name]);
  return new Set(
    rows.map((r) => {
      const [, client, t] = r.holder.split("-");
      return `${client}:${Number(t) + 1}`;
    }),
  );
}

async function rows(ctx: BenchContext, shape: Shape): Promise<(Row | null)[]> {
  const out: (Row | null)[] = [];
  const nameFor = async (layer: string, impl: string, connection: string) => {
    const name = `${shape.name}.${rowKey(ctx, layer, impl, connection)}`;
    if (shape.kind === "semaphore") {
      await ctx.sql("SELECT admit_semaphore_put($1::bigint, $2, $3::integer, $4::integer, false, $5::integer)", [
        lockKey("semaphore", name),
        name,
        shape.permits,
        TTL_MS,
        LOCK_TIMEOUT_MS,
      ]);
    }
    return name;
  };
  const violations = (name: string) => async () => (await ctx.sql<{ n: number }>(DUPLICATE_PERMITS, [shape.kind, name, shape.permits]))[0].n;

  for (const connection of ["pooled", "per-request"] as const) {
    const name = await nameFor("ceiling", "pgbench", connection);
    out.push(
      await ceiling(ctx, {
        scenario: shape.name,
        impl: "pgbench",
        connection,
        script: pgbenchScript(shape.kind),
        defines: { key: lockKey(shape.kind, name), name, held: "0", t: "0" },
        continuations: () => releases(ctx.sql, shape.kind, name),
        violations: violations(name),
        note: "a decision = acquire, + release when granted (each its own transaction)",
      }),
    );
  }
  for (const connection of ["pooled", "per-request"] as const) {
    const name = await nameFor("library", "admit", connection);
    out.push(
      await library(ctx, {
        scenario: shape.name,
        impl: "admit",
        connection,
        violations: violations(name),
        note: "a decision = acquire, + release when granted",
        connectionPerStatement: true,
        op: async (q, i) => {
          const db = dbOver(q);
          const r = await acquirePermit<{ permit_id?: string; lease_id?: string }>(db, shape.kind, name, `h${i}`, shape.kind === "lease" ? TTL_MS : undefined);
          if (r.status !== "acquired") return r.status;
          const released = await releasePermit(db, shape.kind, name, (r.permit.permit_id ?? r.permit.lease_id)!);
          return released.status === "released" ? "acquired+released" : `acquired+${released.status}`;
        },
      }),
    );
  }
  out.push(
    ...(await atEdgeConcurrencies(ctx, async (concurrency) => {
      const name = await nameFor("edge", "admit", `http-c${concurrency}`);
      const base = shape.kind === "lease" ? `/v1/locks/${encodeURIComponent(name)}` : `/v1/semaphores/${encodeURIComponent(name)}`;
      return edge(ctx, {
        scenario: shape.name,
        impl: "admit",
        connection: "http",
        concurrency,
        statementsPerDecision: 2,
        violations: violations(name),
        note: "a decision = acquire, + release when granted (two HTTP requests)",
        op: async (call, i) => {
          const a = await call("POST", `${base}/acquire`, shape.kind === "lease" ? { holder: `h${i}`, ttl_ms: TTL_MS } : { holder: `h${i}` });
          if (a.status !== 201) return String(a.status);
          const id = shape.kind === "lease" ? { lease_id: a.json.lease_id } : { permit_id: a.json.permit_id };
          const r = await call("POST", `${base}/release`, id);
          return `201+${r.status}`;
        },
      });
    })),
  );
  return out;
}

function scenario(shape: Shape): Scenario {
  return {
    name: shape.name,
    async unavailable(ctx) {
      return (await hasFunctions(ctx, "admit_permit_acquire", "admit_permit_release", "admit_semaphore_put"))
        ? null
        : "locks and semaphores (admit_permit_acquire) not on this build";
    },
    run: (ctx) => rows(ctx, shape),
  };
}

export const semaphoreChurn = scenario(SEMAPHORE);
export const lockContention = scenario(LEASE);

/** The holders `semaphore-holders` keeps in its large semaphore while it measures. */
export const MANY_HOLDERS = 5_000;

/**
 * `semaphore-holders`: acquire + release on a semaphore of 10 000 permits that already holds
 * MANY_HOLDERS claims, beside the same on one that holds 4 (issue 28, item 7): an acquire's cost
 * must not grow with the holders (it walked all of them, twice, and found the lowest free slot with
 * a self-join over them). Library layer, pooled connections: the SQL function's own cost.
 */
export const semaphoreHolders: Scenario = {
  name: "semaphore-holders",
  async unavailable(ctx) {
    return (await hasFunctions(ctx, "admit_permit_acquire", "admit_permit_release", "admit_semaphore_put"))
      ? null
      : "semaphores (admit_permit_acquire) not on this build";
  },
  async run(ctx) {
    const out: (Row | null)[] = [];
    for (const held of [4, MANY_HOLDERS]) {
      const name = `semaphore-holders.${rowKey(ctx, "library", `held${held}`)}`;
      await ctx.sql("SELECT admit_semaphore_put($1::bigint, $2, 10000, $3::integer, false, $4::integer)", [
        lockKey("semaphore", name),
        name,
        3_600_000,
        LOCK_TIMEOUT_MS,
      ]);
      await ctx.sql(
        `INSERT INTO permits (kind, name, slot, holder, fencing_token, ttl_ms, claimed_at, expires_at)
         SELECT 'semaphore', $1, i, 'held-' || i, nextval('admit_fencing_token'), 3600000, now(), now() + interval '1 hour'
           FROM generate_series(0, $2::integer - 1) i`,
        [name, held],
      );
      out.push(
        await library(ctx, {
          scenario: "semaphore-holders",
          impl: `admit, ${held} held`,
          connection: "pooled",
          violations: async () => (await ctx.sql<{ n: number }>(DUPLICATE_PERMITS, ["semaphore", name, 10_000]))[0].n,
          note: `a decision = acquire, + release when granted, on a semaphore of 10 000 permits holding ${held} claims`,
          op: async (q, i) => {
            const db = dbOver(q);
            const r = await acquirePermit<{ permit_id: string }>(db, "semaphore", name, `h${i}`, undefined);
            if (r.status !== "acquired") return r.status;
            const released = await releasePermit(db, "semaphore", name, r.permit.permit_id);
            return released.status === "released" ? "acquired+released" : `acquired+${released.status}`;
          },
        }),
      );
    }
    return out;
  },
};
