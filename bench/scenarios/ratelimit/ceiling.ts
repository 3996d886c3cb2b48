// The ceiling layer: pgbench sends the check's statement itself (admit_ratelimit_check), pooled and
// per request, and, outside a pooler profile, rate-limiter-flexible's upsert the same way, so the
// two designs also meet without any client in between.
import { type BenchContext, ceiling, rowKey } from "../../measure";
import type { Row } from "../../report";
import { excess, LOCK_TIMEOUT_MS, type PolicyFor, type Shape, WINDOW_MS } from "./common";

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

export async function ceilingRows(ctx: BenchContext, shape: Shape, policyFor: PolicyFor): Promise<(Row | null)[]> {
  const out: (Row | null)[] = [];
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
  return out;
}
