// The two inventory mechanisms the bench compares (bench/inventory-designs.ts): the shipped tokens
// (schema/000030_inventory.sql) and the counter peer (bench/peers/inventory_counter.sql) load side by
// side and neither oversells a hot night. Correctness only; speed is measured by the bench, never here.
import { beforeAll, describe, expect, inject, it } from "vitest";
import { hotNightBurst, type InventoryDesign, loadInventoryPeer } from "../../bench/inventory-designs";
import { connect, freshDatabase } from "../support";

let db: string;
const admin = async (text: string, params: unknown[] = []) => {
  const c = await connect(db);
  try {
    return await c.query(text, params);
  } finally {
    await c.end();
  }
};

beforeAll(async () => {
  db = await freshDatabase("inventory_designs");
  await loadInventoryPeer(admin);
  await loadInventoryPeer(admin); // loadable twice, next to the schema
});

describe("hot-night burst, both designs", () => {
  it.each(["tokens", "counter"] as InventoryDesign[])(
    "%s: 120 one-room bookings at 12 at once for 60 rooms → exactly 60 sold, all stored, no errors",
    async (design) => {
      const r = await hotNightBurst({ databaseUrl: db, wsProxy: inject("wsProxy"), admin, design, concurrency: 12, requests: 120, capacity: 60 });
      expect(r.errors).toEqual({});
      expect([r.created, r.refused, r.sold, r.stored, r.taken]).toEqual([60, 60, 60, 60, 60]);
      expect(r.ok).toBe(true);
    },
  );
});
