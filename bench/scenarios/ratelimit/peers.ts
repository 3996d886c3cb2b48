// rate-limiter-flexible (RateLimiterPostgres) as its users run it, on the same database as Admit's
// rows. Its table keeps attempts, not admissions, so its violations are counted from its answers:
// calls it allowed beyond the limit per key.
import { Pool as NeonPool, neonConfig } from "@neondatabase/serverless";
import pg from "pg";
import { RateLimiterPostgres, RateLimiterRes } from "rate-limiter-flexible";
import { coalescedWebSocket } from "../../../functions/core/db";
import { type BenchContext, peer, rowKey } from "../../measure";
import type { Row } from "../../report";
import { keyOf, type Shape, WINDOW_MS } from "./common";

/** The table RateLimiterPostgres would create, made before the scenario's rows. */
export const RLF_TABLE = "CREATE TABLE IF NOT EXISTS bench_rlflx (key varchar(255) PRIMARY KEY, points integer NOT NULL DEFAULT 0, expire bigint)";

/**
 * The peer on a `pg` Pool (plain TCP, named prepared statements) with as many connections as the
 * other rows' concurrency. With `via = "neon-bridge"` the same peer runs on the Neon driver's
 * pg-compatible Pool through the same WebSocket bridge as Admit's rows (the only way it could reach
 * Postgres from a Worker), shown as its own row "via neon-bridge".
 */
export async function rateLimiterFlexible(ctx: BenchContext, shape: Shape, via: "tcp" | "neon-bridge"): Promise<Row | null> {
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
