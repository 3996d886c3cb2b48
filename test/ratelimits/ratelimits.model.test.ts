// Rate limits (fixed window) against a sequential model (test/support/model.ts): random batches of
// simultaneous checks, refunds and usage reads on two keys; every batch's answers must be explained
// by some sequential order — a check admitted iff its cost fits, `remaining` exact, a refund giving
// back at most what was consumed, a denial consuming nothing — and the counters in the database must
// be the state that order ends in. The window is 366 days, so no run crosses one. The Worker's deny
// cache stays on: an answer it gives (`Admit-Cache: hit`) must be one the model allows too, and it is
// counted like a database denial — after the isolate's flush, so a usage read in the same batch may
// not see it yet (`unflushed`), and the counters are read once the tally is idle. The tally flushes at
// once (METRICS_FLUSH_MS 0): at its 2 s default every batch waited out the schedule before its
// counters could be read, ~150 s of this test's ~160.
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { tallyFor } from "../../functions/core/tally";
import { bindings, servedApp, sql, until } from "../support";
import { checkRun, type Model } from "../support/model";

const suite = servedApp("ratelimits_model", { METRICS_FLUSH_MS: "0" });
const POLICY = "model-fixed";
const LIMIT = 5;

interface Usage {
  consumed: number;
  admitted: number;
  attempted: number;
  rejected: number;
  /** Cache answers counted in attempted/rejected that a usage read may not see yet (not compared with the database). */
  unflushed: number;
}
type State = Map<string, Usage>;
type Op = { kind: "check" | "refund"; key: string; cost: number } | { kind: "usage"; key: string };

const zero: Usage = { consumed: 0, admitted: 0, attempted: 0, rejected: 0, unflushed: 0 };

const model: Model<State, Op> = {
  step(s, op, { status, json, headers }) {
    if (status === 503) return s;
    const u = s.get(op.key) ?? zero;
    const set = (v: Usage) => new Map(s).set(op.key, v);
    if (op.kind === "check") {
      const fits = u.consumed + op.cost <= LIMIT;
      if (status === 200 && fits && json?.remaining === LIMIT - u.consumed - op.cost) {
        return set({ ...u, consumed: u.consumed + op.cost, admitted: u.admitted + 1, attempted: u.attempted + 1 });
      }
      if (status === 429 && !fits) {
        // Answered from the isolate's deny cache: Postgres was not asked; counted by the next flush.
        const cached = headers?.get("admit-cache") === "hit" ? 1 : 0;
        return set({ ...u, attempted: u.attempted + 1, rejected: u.rejected + 1, unflushed: u.unflushed + cached });
      }
      return undefined;
    }
    if (op.kind === "refund") {
      const back = Math.min(op.cost, u.consumed);
      return status === 200 && json?.refunded === back ? set({ ...u, consumed: u.consumed - back }) : undefined;
    }
    if (status !== 200) return undefined;
    // Some of the cache's answers may not have been flushed yet: attempted and rejected lag alike, by at most that many.
    const lag = u.attempted - json?.attempted;
    return json?.consumed === u.consumed && json?.admitted === u.admitted && lag >= 0 && lag <= u.unflushed && u.rejected - json?.rejected === lag
      ? s
      : undefined;
  },
  same(a, b) {
    const keys = new Set([...a.keys(), ...b.keys()]);
    for (const k of keys) {
      const x = a.get(k) ?? zero;
      const y = b.get(k) ?? zero;
      if (x.consumed !== y.consumed || x.admitted !== y.admitted || x.attempted !== y.attempted || x.rejected !== y.rejected) return false;
    }
    return true;
  },
};

beforeAll(async () => {
  const put = await suite.api("PUT", `/v1/ratelimits/policies/${POLICY}`, { algorithm: "fixed_window", limit: LIMIT, window_ms: 31_622_400_000 });
  expect(put.status).toBe(201);
});

const opArb = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant("check" as const), key: fc.constantFrom("a", "b"), cost: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("refund" as const), key: fc.constantFrom("a", "b"), cost: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("usage" as const), key: fc.constantFrom("a", "b") }) },
);

describe("rate limits: concurrent batches against a sequential model", () => {
  it("every batch is linearizable and the counters hold the state it ends in", async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(opArb, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 5 }), async (batches) => {
        const prefix = `run${++run}-${Math.random().toString(36).slice(2, 6)}/`;
        const failure = await checkRun<State, Op>({
          model,
          initial: new Map(),
          batches: batches.map((b) => b.map((op) => ({ ...op, key: prefix + op.key }))),
          send: (op) =>
            op.kind === "usage"
              ? suite.api("GET", `/v1/ratelimits/usage?policy=${POLICY}&key=${encodeURIComponent(op.key)}`)
              : suite.api("POST", `/v1/ratelimits/${op.kind}`, { policy: POLICY, key: op.key, cost: op.cost }),
          actual: async () => {
            await until(async () => tallyFor(bindings(suite.db))?.idle ?? true, 30_000, "the tally to flush");
            const rows = await sql<{ key: string } & Usage>(
              suite.db,
              "SELECT key, consumed::int AS consumed, admitted::int AS admitted, attempted::int AS attempted, rejected::int AS rejected FROM ratelimit_counters WHERE policy = $1 AND starts_with(key, $2)",
              [POLICY, prefix],
            );
            return new Map(
              rows.map((r) => [r.key, { consumed: r.consumed, admitted: r.admitted, attempted: r.attempted, rejected: r.rejected, unflushed: 0 }]),
            );
          },
          show: (op) => JSON.stringify(op),
        });
        expect(failure, failure).toBeUndefined();
      }),
      { numRuns: 25 },
    );
    // It judges linearizability, not speed: a wide budget, not a retry. 25 runs take ~8 s alone now
    // that the tally flushes at once (147–182 s in clean-clone CI runs when each batch waited 2 s).
  }, 180_000);
});
