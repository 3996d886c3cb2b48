// The deny-cache burst: 10 000 calls (2 000 with --quick) on one fresh key with limit 100, in the
// library and through the Worker. The database's own `attempted` count (library; at the edge, the
// answers with Admit-Cache: miss, since the Worker also counts its cache's answers in `attempted`)
// says how many reached Postgres, `admitted` that no more than the limit got through.
import { DenyCache, decideOne } from "../../../functions/ratelimits";
import { httpRequest, pooledConnections, runLoad } from "../../load";
import { type BenchContext, passLabel, rowKey } from "../../measure";
import { dbOver, makePolicy } from "./common";

export async function denyCacheBurst(ctx: BenchContext): Promise<void> {
  const limit = 100;
  const burst = ctx.quick ? 2_000 : 10_000;
  for (const layer of ["library", "edge"] as const) {
    if (layer === "edge" && !ctx.worker) continue;
    const policy = `ratelimit-burst.${rowKey(ctx, layer)}`;
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
            const d = await decideOne(dbOver(q), { policy, key: "burst" }, cache);
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
      name: `deny-cache burst (${layer}): ${burst} calls on one key, limit ${limit} → database decisions${passLabel(ctx)}`,
      value: decided,
      max: bound,
      met: decided <= bound && c.excess === 0,
      detail:
        `${answered} answered, ${decided} reached Postgres (${layer === "edge" ? "answers with Admit-Cache: miss" : "the database's own attempted count"}), ${c.admitted} admitted` +
        `${windows > 1 ? ` over ${windows} windows` : ""}, ${c.excess} beyond the limit; bound ${bound} = (limit + in-flight ${ctx.concurrency} + 1 per isolate)${windows > 1 ? ` × ${windows} windows` : ""}`,
    });
  }
}
