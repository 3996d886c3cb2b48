// Reservations against a sequential model (test/support/model.ts): random batches of simultaneous reserve,
// cancel and list requests on two resources; every batch's answers must be explained by some
// sequential order, and the database must hold exactly the state that order ends in.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { servedApp, sql } from "../support";
import { checkRun, type Model } from "../support/model";

const suite = servedApp("reservations_model");

interface Res {
  resource: string;
  start: number;
  end: number;
  active: boolean;
}
type State = Map<string, Res>;
type Op =
  | { kind: "reserve"; resource: string; start: number; len: number; holder: string }
  | { kind: "cancel"; pick: number; id?: string }
  | { kind: "list"; resource: string };

const HOUR = 3_600_000;
const BASE = Date.parse("2035-03-01T00:00:00Z");
const iso = (h: number) => new Date(BASE + h * HOUR).toISOString().replace(".000Z", "Z");
const UNKNOWN = "00000000-0000-4000-8000-000000000000";

const overlapping = (s: State, resource: string, start: number, end: number) =>
  [...s.entries()].filter(([, r]) => r.active && r.resource === resource && r.start < end && start < r.end).map(([id]) => id);

const model: Model<State, Op> = {
  step(s, op, { status, json }) {
    if (status === 503) return s; // a lock wait that timed out: nothing applied
    if (op.kind === "reserve") {
      const clash = overlapping(s, op.resource, op.start, op.start + op.len);
      if (status === 201 && clash.length === 0 && json?.id && !s.has(json.id)) {
        return new Map(s).set(json.id, { resource: op.resource, start: op.start, end: op.start + op.len, active: true });
      }
      if (status === 409 && clash.length > 0) {
        const named: string[] = (json?.conflicts ?? []).map((c: { id: string }) => c.id);
        return named.length === clash.length && named.every((id) => clash.includes(id)) ? s : undefined;
      }
      return undefined;
    }
    if (op.kind === "cancel") {
      const r = s.get(op.id!);
      if (status === 204 && r) return new Map(s).set(op.id!, { ...r, active: false });
      if (status === 404 && !r) return s;
      return undefined;
    }
    // list: exactly the active reservations of the resource, in start order
    if (status !== 200) return undefined;
    const want = [...s.entries()]
      .filter(([, r]) => r.active && r.resource === op.resource)
      .sort((a, b) => a[1].start - b[1].start)
      .map(([id]) => id);
    const got = (json?.items ?? []).map((i: { id: string }) => i.id);
    return JSON.stringify(want) === JSON.stringify(got) ? s : undefined;
  },
  same(a, b) {
    if (a.size !== b.size) return false;
    for (const [id, r] of a) {
      const o = b.get(id);
      if (!o || o.resource !== r.resource || o.start !== r.start || o.end !== r.end || o.active !== r.active) return false;
    }
    return true;
  },
};

const opArb = (resources: string[]) =>
  fc.oneof(
    {
      weight: 5,
      arbitrary: fc.record({
        kind: fc.constant("reserve" as const),
        resource: fc.constantFrom(...resources),
        start: fc.integer({ min: 0, max: 12 }),
        len: fc.integer({ min: 1, max: 4 }),
        holder: fc.constantFrom("h1", "h2"),
      }),
    },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant("cancel" as const), pick: fc.nat() }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant("list" as const), resource: fc.constantFrom(...resources) }) },
  );

describe("reservations: concurrent batches against a sequential model", () => {
  it("every batch is linearizable and the database holds the state it ends in", async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(opArb(["m/a", "m/b"]), { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 4 }), async (batches) => {
        // Each run has resources of its own, so runs never see each other's rows.
        const prefix = `run${++run}-${Math.random().toString(36).slice(2, 6)}/`;
        const rename = (op: Op): Op => ("resource" in op ? { ...op, resource: prefix + op.resource } : op);
        const failure = await checkRun<State, Op>({
          model,
          initial: new Map(),
          batches: batches.map((b) => b.map(rename)),
          resolve: (op, s) => {
            if (op.kind !== "cancel") return op;
            const ids = [...s.keys()].sort();
            // Mostly a known reservation (active or already cancelled), sometimes an unknown id.
            return { ...op, id: ids.length && op.pick % 4 !== 0 ? ids[op.pick % ids.length] : UNKNOWN };
          },
          send: async (op) => {
            if (op.kind === "reserve")
              return suite.api("POST", "/v1/reservations", { resource: op.resource, holder: op.holder, start: iso(op.start), end: iso(op.start + op.len) });
            if (op.kind === "cancel") return suite.api("DELETE", `/v1/reservations/${op.id}`);
            return suite.api("GET", `/v1/reservations?resource=${encodeURIComponent(op.resource)}`);
          },
          actual: async () => {
            const rows = await sql<{ id: string; resource: string; s: string; e: string; active: boolean }>(
              suite.db,
              "SELECT id, resource, lower(during)::text AS s, upper(during)::text AS e, cancelled_at IS NULL AS active FROM reservations WHERE starts_with(resource, $1)",
              [prefix],
            );
            const hours = (t: string) => Math.round((Date.parse(t.replace(" ", "T").replace(/\+00$/, "Z")) - BASE) / HOUR);
            return new Map(rows.map((r) => [r.id, { resource: r.resource, start: hours(r.s), end: hours(r.e), active: r.active }]));
          },
          show: (op) => JSON.stringify(op),
        });
        expect(failure, failure).toBeUndefined();
      }),
      { numRuns: 25 },
    );
  }, 180_000);

  it("the checker itself rejects answers no sequential order explains (a double booking)", async () => {
    const { linearizations } = await import("../support/model");
    const op = (start: number): Op => ({ kind: "reserve", resource: "x", start, len: 2, holder: "h" });
    const ends = linearizations(model, new Map(), [
      { op: op(0), observed: { status: 201, json: { id: "a" } } },
      { op: op(1), observed: { status: 201, json: { id: "b" } } },
    ]);
    expect(ends).toEqual([]);
  });
});
