// The library layer: Admit's check called in this process on the row's connections, each check its
// own statement (impl "admit", pooled and per request) and coalesced (COALESCED, pooled: the handle
// has a coalesceKey of its own row, so the row's concurrent checks share statements, each batch on
// its carrier's own pooled connection). On the hot key outside a pooler profile, the bare driver
// sends the same statement with none of Admit's code around it.
import { DenyCache, decideOne } from "../../../functions/ratelimits";
import { CHECK_SQL, checkCoalescing } from "../../../functions/ratelimits/sql";
import { type BenchContext, hasFunctions, library, rowKey } from "../../measure";
import { COALESCED, DRIVER, type Row, round } from "../../report";
import { DRIVER_NOTE, dbOver, excess, keyOf, LOCK_TIMEOUT_MS, type PolicyFor, type Shape } from "./common";

export async function libraryRows(ctx: BenchContext, shape: Shape, policyFor: PolicyFor, driverAlone: boolean): Promise<(Row | null)[]> {
  const out: (Row | null)[] = [];
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
        const d = await decideOne(dbOver(q, coalesceKey), { policy, key: keyOf(shape, i) }, cache);
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
  // The two pooled rows run one right after the other, the first alternating by round.
  for (const coalesced of ctx.round % 2 === 0 ? [false, true] : [true, false]) out.push(await libraryRow("pooled", coalesced));
  if (shape.keys === 1 && !ctx.profile && (await hasFunctions(ctx, "admit_ratelimit_glob_overlap"))) out.push(await patternRow(ctx, shape, policyFor));
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
  return out;
}

export const PATTERNS = "admit-1000-patterns";

/**
 * The hot key's pooled row on a policy with 1 000 pattern overrides: 999 of other keys (`tenant-N:*`,
 * four prefix lengths) and `h*`, which matches the key with the policy's own limit. Right after the
 * pooled `admit` row, to be read against it: the override look-up stays one index scan.
 */
async function patternRow(ctx: BenchContext, shape: Shape, policyFor: PolicyFor): Promise<Row | null> {
  const policy = await policyFor("library", PATTERNS, "pooled");
  await ctx.sql("SELECT admit_ratelimit_put_override($1, 'tenant-' || i || ':*', 1, now(), NULL) FROM generate_series(1, 999) i", [policy]);
  await ctx.sql("SELECT admit_ratelimit_put_override($1, 'h*', $2::integer, now(), NULL)", [policy, shape.limit]);
  const cache = new DenyCache();
  return library(ctx, {
    scenario: shape.name,
    impl: PATTERNS,
    connection: "pooled",
    note: "999 overrides `tenant-N:*` and `h*` (matching, the policy's limit) on the policy; compare with the pooled admit row",
    violations: excess(ctx, policy),
    op: async (q, i) => {
      const d = await decideOne(dbOver(q), { policy, key: keyOf(shape, i) }, cache);
      if (!d) throw new Error(`policy ${policy} missing`);
      return d.result.allowed ? "allowed" : "denied";
    },
  });
}
