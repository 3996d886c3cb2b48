// inventory-hot-night (seed 003): one-room bookings of ONE night of one item, by every client at
// once. In the rows there is room for every booking a row can make (so every layer measures the same
// contended take, and a refusal would be a false one); the sell-out itself — 2 000 bookings for
// 100 rooms — runs afterwards per design through the inventory work's hotNightBurst(), and must
// sell exactly 100. Admit's guarded per-night counter
// (admit_inventory_book) against the seed's token rows claimed with FOR UPDATE SKIP LOCKED — both
// designs, their SQL and the peer loader come from bench/inventory-designs.ts (the inventory work's
// own comparison), measured here with the same loop, layers and database checks as every scenario.
//
// Violations = rooms sold beyond capacity, plus any disagreement between the design's own
// bookkeeping (counter / claimed tokens) and the booking rows, from the database afterwards.
import { hotNightBurst, INVENTORY_DESIGNS, loadInventoryPeer, type InventoryDesign } from "../inventory-designs";
import { ceiling, edge, hasFunctions, lastRound, library, rowKey, type BenchContext, type Scenario } from "../measure";
import type { Connection, Row } from "../report";

const NAME = "inventory-hot-night";
const NIGHT = "2030-03-29";
const NEXT = "2030-03-30";
const LOCK_TIMEOUT_MS = 2000;

/**
 * Rooms on the hot night, more than the row can book: the counter's capacity is one number, so
 * plenty (pgbench rows are bounded by time, not count); the token design needs a row per room, so
 * the row's request bound (library rows stop there).
 */
function capacityFor(ctx: BenchContext, design: InventoryDesign): number {
  return design === "counter" ? 100_000_000 : ctx.requests;
}

const PGBENCH_SCRIPT = `SELECT admit_inventory_book(:item, '${NIGHT}'::date, '${NEXT}'::date, 1::integer, 'pgbench-' || :client_id, NULL::integer, ${LOCK_TIMEOUT_MS}::integer) AS r;\n`;

async function stocked(ctx: BenchContext, design: InventoryDesign, layer: string, impl: string, connection: Connection): Promise<string> {
  const item = `${NAME}.${rowKey(ctx, layer, impl, connection)}`;
  await ctx.sql(INVENTORY_DESIGNS[design].stock, [item, NIGHT, capacityFor(ctx, design)]);
  return item;
}

function violations(ctx: BenchContext, design: InventoryDesign, item: string) {
  return async () => {
    const [r] = await ctx.sql<{ sold: number; stored: number; taken: number }>(INVENTORY_DESIGNS[design].check, [item, NIGHT]);
    return Math.max(0, r.sold - capacityFor(ctx, design)) + Math.abs(r.taken - r.sold);
  };
}

export const inventoryHotNight: Scenario = {
  name: NAME,
  async unavailable(ctx) {
    return (await hasFunctions(ctx, "admit_inventory_book", "admit_inventory_set_stock")) ? null : "inventory (admit_inventory_book) not on this build";
  },
  async run(ctx) {
    const out: (Row | null)[] = [];
    const note = "one room per booking, room for all";
    for (const connection of ["pooled", "per-request"] as const) {
      const item = await stocked(ctx, "counter", "ceiling", "pgbench", connection);
      out.push(await ceiling(ctx, { scenario: NAME, impl: "pgbench", connection, script: PGBENCH_SCRIPT, defines: { item }, violations: violations(ctx, "counter", item), note }));
    }
    if (!ctx.profile) await loadInventoryPeer((text, params) => ctx.sql(text, params).then((rows) => ({ rows })));
    for (const [design, impl] of [["counter", "admit"], ["tokens", "seed003-tokens"]] as const) {
      for (const connection of ["pooled", "per-request"] as const) {
        if (ctx.profile && design !== "counter") continue;
        const item = await stocked(ctx, design, "library", impl, connection);
        out.push(
          await library(ctx, {
            scenario: NAME,
            impl,
            connection,
            note,
            violations: violations(ctx, design, item),
            op: async (q, i) => ((await q(INVENTORY_DESIGNS[design].book, [item, NIGHT, `b${i}`])).rows[0].r.created ? "created" : "sold out"),
          }),
        );
      }
    }
    {
      const item = await stocked(ctx, "counter", "edge", "admit", "per-request");
      out.push(
        await edge(ctx, {
          scenario: NAME,
          impl: "admit",
          note,
          violations: violations(ctx, "counter", item),
          op: async (call, i) => String((await call("POST", `/v1/inventory/${encodeURIComponent(item)}/bookings`, { check_in: NIGHT, check_out: NEXT, quantity: 1, holder: `b${i}` })).status),
        }),
      );
    }
    if (!ctx.profile && lastRound(ctx)) await sellOut(ctx);
    return out;
  },
};

/** The sell-out, per design: 2 000 one-room bookings for 100 rooms must sell exactly 100 (figure). */
async function sellOut(ctx: BenchContext): Promise<void> {
  for (const design of ["counter", "tokens"] as const) {
    ctx.log(`  sell-out (${design}): 2000 bookings for 100 rooms …`);
    const r = await hotNightBurst({
      databaseUrl: ctx.db.url,
      wsProxy: ctx.db.wsProxy,
      admin: (text, params) => ctx.sql(text, params).then((rows) => ({ rows })),
      design,
      concurrency: ctx.concurrency,
      requests: 2000,
      capacity: 100,
      item: `${NAME}.sellout-${design}`,
      night: NIGHT,
    });
    ctx.log(`    ${r.created} created, ${r.refused} refused, errors ${JSON.stringify(r.errors)}, sold ${r.sold}/${r.capacity}, ${r.perSecond} req/s`);
    ctx.figure({
      name: `inventory sell-out (${design === "counter" ? "admit" : "seed003-tokens"}): 2000 one-room bookings for 100 rooms → rooms sold`,
      value: r.sold,
      max: 100,
      met: r.ok && r.sold === 100,
      detail: `${r.created} created, ${r.refused} refused${Object.keys(r.errors).length ? `, errors ${JSON.stringify(r.errors)}` : ""}; sold ${r.sold}, stored ${r.stored}, bookkeeping ${r.taken}; ${r.perSecond} req/s at concurrency ${ctx.concurrency}`,
    });
  }
}
