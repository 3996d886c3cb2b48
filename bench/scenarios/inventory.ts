// inventory-hot-night (seed 003): one-room bookings of ONE night of one item, by every client at
// once. In the rows there is room for every booking a row can make (so every layer measures the same
// contended take, and a refusal would be a false one); the sell-out itself — 2 000 bookings for
// 100 rooms — runs afterwards per design through the inventory work's hotNightBurst(), and must
// sell exactly 100. Admit ships seed 003's token rows claimed with FOR UPDATE SKIP LOCKED
// (admit_inventory_book); the peer is a guarded per-night counter row — both designs, their SQL and
// the peer loader come from bench/inventory-designs.ts (the inventory work's own comparison),
// measured here with the same loop, layers and database checks as every scenario.
//
// Violations = rooms sold beyond capacity, plus any disagreement between the design's own
// bookkeeping (counter / claimed tokens) and the booking rows, from the database afterwards.
import { hotNightBurst, INVENTORY_DESIGNS, type InventoryDesign, loadInventoryPeer } from "../inventory-designs";
import { type BenchContext, ceiling, edge, hasFunctions, lastRound, library, passLabel, rowKey, type Scenario } from "../measure";
import { COALESCE_OFF, type Row } from "../report";
import { noopBeside } from "./noop";

const NAME = "inventory-hot-night";
const NIGHT = "2030-03-29";
const NEXT = "2030-03-30";
const LOCK_TIMEOUT_MS = 2000;
/** What Admit ships (admit_inventory_book) and the design it is compared with, as bench/inventory-designs.ts names them. */
const ADMIT: InventoryDesign = "tokens";
const PEER: InventoryDesign = "counter";

/**
 * Rooms on the hot night, more than the row can book: the counter's capacity is one number, so
 * plenty; the token design needs a row per room, so the row's request bound for library and edge
 * rows (they stop there), and for pgbench rows (bounded by time only) 8 000 a second of the row.
 */
function capacityFor(ctx: BenchContext, design: InventoryDesign, layer: string): number {
  if (design === "counter") return 100_000_000;
  return layer === "ceiling" ? Math.ceil(ctx.seconds * 8_000) : ctx.requests;
}

const PGBENCH_SCRIPT = `SELECT admit_inventory_book(:item, '${NIGHT}'::date, '${NEXT}'::date, 1::integer, 'pgbench-' || :client_id, NULL::integer, ${LOCK_TIMEOUT_MS}::integer) AS r;\n`;

async function stocked(
  ctx: BenchContext,
  design: InventoryDesign,
  layer: string,
  impl: string,
  connection: string,
): Promise<{ item: string; capacity: number }> {
  const item = `${NAME}.${rowKey(ctx, layer, impl, connection)}`;
  const capacity = capacityFor(ctx, design, layer);
  await ctx.sql(INVENTORY_DESIGNS[design].stock, [item, NIGHT, capacity]);
  return { item, capacity };
}

function violations(ctx: BenchContext, design: InventoryDesign, { item, capacity }: { item: string; capacity: number }) {
  return async () => {
    const [r] = await ctx.sql<{ sold: number; stored: number; taken: number }>(INVENTORY_DESIGNS[design].check, [item, NIGHT]);
    return Math.max(0, r.sold - capacity) + Math.abs(r.taken - r.sold);
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
      const stock = await stocked(ctx, ADMIT, "ceiling", "pgbench", connection);
      out.push(
        await ceiling(ctx, {
          scenario: NAME,
          impl: "pgbench",
          connection,
          script: PGBENCH_SCRIPT,
          defines: { item: stock.item },
          violations: violations(ctx, ADMIT, stock),
          note,
        }),
      );
    }
    if (!ctx.profile) await loadInventoryPeer((text, params) => ctx.sql(text, params).then((rows) => ({ rows })));
    for (const [design, impl] of [
      [ADMIT, "admit"],
      [PEER, "guarded-counter"],
    ] as const) {
      for (const connection of ["pooled", "per-request"] as const) {
        if (ctx.profile && design !== ADMIT) continue;
        const stock = await stocked(ctx, design, "library", impl, connection);
        out.push(
          await library(ctx, {
            scenario: NAME,
            impl,
            connection,
            note,
            violations: violations(ctx, design, stock),
            op: async (q, i) => ((await q(INVENTORY_DESIGNS[design].book, [stock.item, NIGHT, `b${i}`])).rows[0].r.created ? "created" : "sold out"),
          }),
        );
      }
    }
    // At each edge concurrency, Admit's Worker (bookings in flight together coalesced: 000106) and its
    // COALESCE=off twin (each booking its own statement), one right after the other, the first of the
    // two alternating by round, each on a night of its own.
    const edgeRow = (concurrency: number, off: boolean) => async () => {
      const impl = off ? COALESCE_OFF : "admit";
      const stock = await stocked(ctx, ADMIT, "edge", off ? "admit-coalesce-off" : "admit", `http-c${concurrency}`);
      return edge(ctx, {
        scenario: NAME,
        impl,
        connection: "http",
        concurrency,
        ...(off ? { worker: ctx.coalesceOffWorker, note: `${note}; the same Worker with COALESCE=off: each booking its own statement` } : { note }),
        violations: violations(ctx, ADMIT, stock),
        op: async (call, i) =>
          String(
            (
              await call("POST", `/v1/inventory/${encodeURIComponent(stock.item)}/bookings`, {
                check_in: NIGHT,
                check_out: NEXT,
                quantity: 1,
                holder: `b${i}`,
              })
            ).status,
          ),
      });
    };
    for (const concurrency of ctx.edgeConcurrency) {
      out.push(await noopBeside(ctx, NAME, concurrency));
      const rows = [edgeRow(concurrency, false), ...(ctx.coalesceOffWorker ? [edgeRow(concurrency, true)] : [])];
      for (const row of ctx.round % 2 === 0 ? rows : rows.reverse()) out.push(await row());
    }
    if (!ctx.profile && lastRound(ctx)) await sellOut(ctx);
    return out;
  },
};

/** The sell-out, per design: 2 000 one-room bookings for 100 rooms must sell exactly 100 (figure). */
async function sellOut(ctx: BenchContext): Promise<void> {
  for (const design of [ADMIT, PEER]) {
    ctx.log(`  sell-out (${design}): 2000 bookings for 100 rooms …`);
    const r = await hotNightBurst({
      databaseUrl: ctx.db.url,
      wsProxy: ctx.db.wsProxy,
      admin: (text, params) => ctx.sql(text, params).then((rows) => ({ rows })),
      design,
      concurrency: ctx.concurrency,
      requests: 2000,
      capacity: 100,
      item: `${NAME}.${rowKey(ctx, "sellout", design)}`,
      night: NIGHT,
    });
    ctx.log(`    ${r.created} created, ${r.refused} refused, errors ${JSON.stringify(r.errors)}, sold ${r.sold}/${r.capacity}, ${r.perSecond} req/s`);
    ctx.figure({
      name: `inventory sell-out (${design === ADMIT ? "admit" : "guarded-counter"}): 2000 one-room bookings for 100 rooms → rooms sold${passLabel(ctx)}`,
      value: r.sold,
      max: 100,
      met: r.ok && r.sold === 100,
      detail: `${r.created} created, ${r.refused} refused${Object.keys(r.errors).length ? `, errors ${JSON.stringify(r.errors)}` : ""}; sold ${r.sold}, stored ${r.stored}, bookkeeping ${r.taken}; ${r.perSecond} req/s at concurrency ${ctx.concurrency}`,
    });
  }
}
