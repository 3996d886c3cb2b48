// Rate-limit checks: `ratelimit-hot` (every call on ONE key, a limit no row can reach, so every call
// is an admitted write of the same counter row: the statement's own cost under row-lock contention,
// which is what the ceiling and rate-limiter-flexible's upsert are compared on) and `ratelimit-10k-keys` (calls spread over 10 000 keys with a small limit, so some keys run out
// and are refused, then answered by the deny cache without Postgres); on the hot key, the
// deny-cache burst too. A round's rows, in order, by layer:
//   ceiling.ts   pgbench sending admit_ratelimit_check, and rate-limiter-flexible's upsert
//   library.ts   Admit's check in this process, each its own statement and coalesced; the bare driver
//   edge.ts      Admit's Worker beside its METRICS=off and COALESCE=off twins, a scoped key,
//                GET /v1/authz, the bare driver Worker, the one-client pair
//   peers.ts     rate-limiter-flexible on `pg` and on the Neon driver's Pool
//   burst.ts     the deny-cache burst (hot key, last round)
// Violations = admissions beyond the limit in any window, from ratelimit_counters afterwards
// (EXCESS_ADMISSIONS); the peer's are counted from its answers.
import { hasFunctions, lastRound, type Scenario } from "../../measure";
import type { Row } from "../../report";
import { denyCacheBurst } from "./burst";
import { ceilingRows } from "./ceiling";
import { HOT, OVER, policiesOf, type Shape, SPREAD } from "./common";
import { edgeRows } from "./edge";
import { libraryRows } from "./library";
import { RLF_TABLE, rateLimiterFlexible } from "./peers";

export { EXCESS_ADMISSIONS, keyOf } from "./common";

function scenario(shape: Shape): Scenario {
  return {
    name: shape.name,
    async unavailable(ctx) {
      return (await hasFunctions(ctx, "admit_ratelimit_check", "admit_ratelimit_put_policy")) ? null : "rate limits (admit_ratelimit_check) not on this build";
    },
    async run(ctx) {
      await ctx.sql(RLF_TABLE);
      const policyFor = policiesOf(ctx, shape);
      // The driver-alone rows: the hot key only, and not re-run in a pooler profile (they are no Admit rows).
      const driverAlone = shape === HOT && !ctx.profile;
      const out: (Row | null)[] = [];
      out.push(...(await ceilingRows(ctx, shape, policyFor)));
      out.push(...(await libraryRows(ctx, shape, policyFor, driverAlone)));
      out.push(...(await edgeRows(ctx, shape, policyFor, driverAlone)));
      if (!ctx.profile) {
        out.push(await rateLimiterFlexible(ctx, shape, "tcp"));
        out.push(await rateLimiterFlexible(ctx, shape, "neon-bridge"));
      }
      if (shape === HOT && !ctx.profile && lastRound(ctx)) await denyCacheBurst(ctx);
      return out;
    },
  };
}

export const ratelimitHot = scenario(HOT);

/**
 * `ratelimit-hot-over` (neon profile only): the hot key over its limit, edge rows only — what refusals
 * cost when every synchronous commit waits, beside the same rows at commit 0.
 */
export const ratelimitHotOver: Scenario = {
  name: OVER.name,
  async unavailable(ctx) {
    if (ctx.settings?.profile !== "neon") return "the neon profile's scenario (--profile=neon)";
    return ctx.worker ? null : "--no-edge";
  },
  async run(ctx) {
    return edgeRows(ctx, OVER, policiesOf(ctx, OVER), false);
  },
};
export const ratelimit10kKeys = scenario(SPREAD);
