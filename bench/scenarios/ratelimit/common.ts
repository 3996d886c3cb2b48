// What every part of the rate-limit scenarios shares: the two shapes, each request's key, the
// policies the rows make, the handle a library row checks through, and the violations query.
import type { RequestDb } from "../../../functions/core/db";
import type { Query } from "../../load";
import { type BenchContext, rowKey } from "../../measure";

export const WINDOW_MS = 60_000;
export const LOCK_TIMEOUT_MS = 2000;

/** Admissions beyond the limit in any window of `$1`'s policy, from ratelimit_counters. */
export const EXCESS_ADMISSIONS = `
  SELECT coalesce(sum(greatest(0, c.admitted - p.quota)), 0)::int AS n
    FROM ratelimit_counters c JOIN ratelimit_policies p ON p.name = c.policy
   WHERE c.policy = $1`;

export interface Shape {
  name: "ratelimit-hot" | "ratelimit-10k-keys" | "ratelimit-hot-over";
  limit: number;
  keys: number;
}

/** Every call on one key, with a limit no row can reach: every call is an admitted write of one counter row. */
export const HOT: Shape = { name: "ratelimit-hot", limit: 1_000_000_000, keys: 1 };
/** Every call on one key over its limit (50 a minute): after the first 50, every call is a refusal. */
export const OVER: Shape = { name: "ratelimit-hot-over", limit: 50, keys: 1 };
/** Calls spread over 10 000 keys with a small limit: some keys run out and are refused. */
export const SPREAD: Shape = { name: "ratelimit-10k-keys", limit: 5, keys: 10_000 };

export const DRIVER_NOTE = "the driver alone: the same statement with no Admit code around it, on the same transport";

/** Request i's key: one key, or one of `keys` spread by a hash of i. */
export function keyOf(shape: { keys: number }, i: number): string {
  if (shape.keys === 1) return "hot";
  let h = Math.imul(i ^ 0x5bd1e995, 0x27d4eb2d);
  h ^= h >>> 15;
  return `k${1 + ((h >>> 0) % shape.keys)}`;
}

/**
 * The request's database handle as decideOne needs it, over the row's connection. With a
 * `coalesceKey`, checks in flight together on handles of that key share one statement (sent on the
 * carrier's own connection), each with 5 s of budget as a request would have; without, each check is
 * its own statement.
 */
export function dbOver(q: Query, coalesceKey?: string): RequestDb {
  const db = {
    query: async (text: string, params: unknown[]) => (await q(text, params)).rows,
    lockTimeoutMs: LOCK_TIMEOUT_MS,
    ...(coalesceKey === undefined ? {} : { coalesceKey, remainingMs: () => 5_000 }),
  };
  return db as unknown as RequestDb;
}

export async function makePolicy(ctx: BenchContext, name: string, limit: number, windowMs = WINDOW_MS): Promise<void> {
  await ctx.sql("SELECT admit_ratelimit_put_policy($1, 'fixed_window', $2::integer, $3::bigint, false, 604800000)", [name, limit, windowMs]);
}

/** The row's violations: admissions beyond the limit of `policy`, counted by the database afterwards. */
export function excess(ctx: BenchContext, policy: string) {
  return async () => (await ctx.sql<{ n: number }>(EXCESS_ADMISSIONS, [policy]))[0].n;
}

/** Makes a policy of its own for one row (named by the shape and the row) and returns its name. */
export type PolicyFor = (layer: string, impl: string, connection: string) => Promise<string>;

export function policiesOf(ctx: BenchContext, shape: Shape): PolicyFor {
  return async (layer, impl, connection) => {
    const name = `${shape.name}.${rowKey(ctx, layer, impl, connection)}`;
    await makePolicy(ctx, name, shape.limit);
    return name;
  };
}
