// Leases and semaphores against a sequential model (test/support/model.ts): random batches of simultaneous
// acquire, renew and release on one key; every batch's answers must be explained by some sequential
// order — the lowest free slot granted, never more than N held, tokens strictly increasing in grant
// order, renew/release only by the current holder — and the database must hold the state that order
// ends in. TTLs are long, so nothing expires during a run.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { servedApp, sql } from "../support";
import { checkRun, type Model } from "../support/model";

const suite = servedApp("permits_model");

interface Claim {
  slot: number;
  token: number;
  active: boolean;
}
interface State {
  claims: Map<string, Claim>;
  maxToken: number;
}
type Op = { kind: "acquire"; holder: string } | { kind: "renew" | "release"; pick: number; id?: string };

const UNKNOWN = "00000000-0000-4000-8000-000000000000";

function modelFor(permits: number, busy: number, idField: string): Model<State, Op> {
  return {
    step(s, op, { status, json }) {
      if (status === 503) return s; // lock wait timed out: nothing applied
      const active = [...s.claims.values()].filter((c) => c.active);
      if (op.kind === "acquire") {
        if (status === busy) return active.length >= permits ? s : undefined;
        if (status !== 201 || active.length >= permits) return undefined;
        const taken = new Set(active.map((c) => c.slot));
        let lowest = 0;
        while (taken.has(lowest)) lowest++;
        const token = Number(json?.fencing_token);
        const slot = json?.slot ?? 0;
        if (slot !== lowest || !(token > s.maxToken) || s.claims.has(json?.[idField])) return undefined;
        return { claims: new Map(s.claims).set(json[idField], { slot, token, active: true }), maxToken: token };
      }
      const claim = s.claims.get(op.id!);
      const current = claim?.active === true;
      if (status === 409) return current ? undefined : s;
      if (!current) return undefined;
      if (op.kind === "renew") return status === 200 && Number(json?.fencing_token) === claim!.token ? s : undefined;
      return status === 204 ? { ...s, claims: new Map(s.claims).set(op.id!, { ...claim!, active: false }) } : undefined;
    },
    same(a, b) {
      if (a.claims.size !== b.claims.size) return false;
      for (const [id, c] of a.claims) {
        const o = b.claims.get(id);
        if (!o || o.slot !== c.slot || o.token !== c.token || o.active !== c.active) return false;
      }
      return true;
    },
  };
}

const opArb = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("acquire" as const), holder: fc.constantFrom("h1", "h2", "h3") }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("release" as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("renew" as const), pick: fc.nat() }) },
);

const flavours = [
  { name: "lease", kind: "lease", permits: 1, busy: 409, idField: "lease_id", base: (k: string) => `/v1/locks/${encodeURIComponent(k)}` },
  { name: "semaphore of 3", kind: "semaphore", permits: 3, busy: 429, idField: "permit_id", base: (k: string) => `/v1/semaphores/${encodeURIComponent(k)}` },
] as const;

describe.each(flavours)("$name: concurrent batches against a sequential model", (f) => {
  it("every batch is linearizable and the database holds the state it ends in", async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(opArb, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 4 }), async (batches) => {
        const key = `model-${f.kind}-${++run}-${Math.random().toString(36).slice(2, 6)}`;
        if (f.kind === "semaphore") expect((await suite.api("PUT", f.base(key), { permits: f.permits, default_ttl_ms: 600_000 })).status).toBe(201);
        const failure = await checkRun<State, Op>({
          model: modelFor(f.permits, f.busy, f.idField),
          initial: { claims: new Map(), maxToken: 0 },
          batches,
          resolve: (op, s) => {
            if (op.kind === "acquire") return op;
            const ids = [...s.claims.keys()].sort();
            return { ...op, id: ids.length && op.pick % 5 !== 0 ? ids[op.pick % ids.length] : UNKNOWN };
          },
          send: (op) =>
            op.kind === "acquire"
              ? suite.api("POST", `${f.base(key)}/acquire`, { holder: op.holder, ttl_ms: 600_000 })
              : suite.api("POST", `${f.base(key)}/${op.kind}`, { [f.idField]: op.id }),
          actual: async () => {
            const rows = await sql<{ id: string; slot: number; token: string; active: boolean }>(
              suite.db,
              "SELECT id, slot, fencing_token::text AS token, released_at IS NULL AND timed_out_at IS NULL AS active FROM permits WHERE kind = $1 AND name = $2",
              [f.kind, key],
            );
            const claims = new Map(rows.map((r) => [r.id, { slot: r.slot, token: Number(r.token), active: r.active }]));
            return { claims, maxToken: Math.max(0, ...[...claims.values()].map((c) => c.token)) };
          },
          show: (op) => JSON.stringify(op),
        });
        expect(failure, failure).toBeUndefined();
      }),
      { numRuns: 20 },
    );
  }, 180_000);
});
