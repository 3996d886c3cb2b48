// Inventory against a sequential model (test/support/model.ts): random batches of simultaneous bookings
// (1–2 nights, 1–2 rooms) and cancellations on an item with 2 rooms a night; every batch's answers
// must be explained by some sequential order — all or nothing, never more rooms than stocked, a
// refusal naming nights that are short, with the rooms left there — and the database must hold that
// order's state.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { servedApp, sql } from "../support";
import { checkRun, type Model } from "../support/model";

const suite = servedApp("inventory_model");
const CAPACITY = 2;
const NIGHTS = 4;
const day = (n: number) => new Date(Date.parse("2042-05-01T00:00:00Z") + n * 86_400_000).toISOString().slice(0, 10);
const UNKNOWN = "00000000-0000-4000-8000-000000000000";

interface Booking {
  first: number;
  nights: number;
  quantity: number;
  active: boolean;
}
type State = Map<string, Booking>;
type Op = { kind: "book"; first: number; nights: number; quantity: number } | { kind: "cancel"; pick: number; id?: string };

const taken = (s: State, n: number) => [...s.values()].filter((b) => b.active && n >= b.first && n < b.first + b.nights).reduce((t, b) => t + b.quantity, 0);

const model: Model<State, Op> = {
  step(s, op, { status, json }) {
    if (status === 503) return s;
    if (op.kind === "book") {
      const nights = Array.from({ length: op.nights }, (_, i) => op.first + i);
      const short = nights.filter((n) => CAPACITY - taken(s, n) < op.quantity);
      if (status === 201 && short.length === 0 && json?.booking_id && !s.has(json.booking_id)) {
        return new Map(s).set(json.booking_id, { first: op.first, nights: op.nights, quantity: op.quantity, active: true });
      }
      if (status === 409 && short.length > 0) {
        // Each night named in `short` is short, with exactly the rooms left there. Under contention
        // the list can leave out other nights that are short too (only the nights the first,
        // SKIP LOCKED, claim came up short on are rechecked under lock), so it is not required to be all.
        const named: Array<{ date: string; available: number }> = json?.short ?? [];
        const want = new Map(short.map((n) => [day(n), CAPACITY - taken(s, n)]));
        return named.length > 0 && named.every((x) => want.get(x.date) === x.available) ? s : undefined;
      }
      return undefined;
    }
    const b = s.get(op.id!);
    if (status === 204 && b) return new Map(s).set(op.id!, { ...b, active: false });
    if (status === 404 && !b) return s;
    return undefined;
  },
  same(a, b) {
    if (a.size !== b.size) return false;
    for (const [id, x] of a) {
      const y = b.get(id);
      if (!y || x.first !== y.first || x.nights !== y.nights || x.quantity !== y.quantity || x.active !== y.active) return false;
    }
    return true;
  },
};

const opArb = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant("book" as const),
      first: fc.integer({ min: 0, max: NIGHTS - 2 }),
      nights: fc.integer({ min: 1, max: 2 }),
      quantity: fc.integer({ min: 1, max: 2 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("cancel" as const), pick: fc.nat() }) },
);

describe("inventory: concurrent batches against a sequential model", () => {
  it("every batch is linearizable and the database holds the state it ends in", async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(opArb, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 4 }), async (batches) => {
        const item = `model-${++run}-${Math.random().toString(36).slice(2, 6)}`;
        const path = `/v1/inventory/${encodeURIComponent(item)}`;
        expect((await suite.api("PUT", `${path}/stock`, { from: day(0), to: day(NIGHTS), quantity: CAPACITY })).status).toBe(200);
        const failure = await checkRun<State, Op>({
          model,
          initial: new Map(),
          batches,
          resolve: (op, s) => {
            if (op.kind !== "cancel") return op;
            const ids = [...s.keys()].sort();
            return { ...op, id: ids.length && op.pick % 4 !== 0 ? ids[op.pick % ids.length] : UNKNOWN };
          },
          send: (op) =>
            op.kind === "book"
              ? suite.api("POST", `${path}/bookings`, { check_in: day(op.first), check_out: day(op.first + op.nights), quantity: op.quantity, holder: "m" })
              : suite.api("DELETE", `${path}/bookings/${op.id}`),
          actual: async () => {
            const rows = await sql<{ id: string; first: string; nights: number; quantity: number; active: boolean }>(
              suite.db,
              "SELECT id, check_in::text AS first, check_out - check_in AS nights, quantity, status <> 'cancelled' AS active FROM inventory_bookings WHERE item = $1",
              [item],
            );
            const index = (d: string) => Math.round((Date.parse(d + "T00:00:00Z") - Date.parse(day(0) + "T00:00:00Z")) / 86_400_000);
            return new Map(rows.map((r) => [r.id, { first: index(r.first), nights: r.nights, quantity: r.quantity, active: r.active }]));
          },
          show: (op) => JSON.stringify(op),
        });
        expect(failure, failure).toBeUndefined();
      }),
      { numRuns: 20 },
    );
  }, 180_000);
});
