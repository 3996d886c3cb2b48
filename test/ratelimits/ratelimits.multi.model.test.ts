// The multi-policy check (schema/000015) against the single-policy check it generalises
// (admit_ratelimit_check_any): over random runs — every algorithm, costs around the limit and 0
// (peeks), overrides coming and going, clock steps within and across windows at microsecond
// precision — a one-policy multi check answers and counts exactly as the single check on a twin
// policy; and with two policies, each policy's counters move exactly as a single check's would when
// the pair is admitted, and only their attempt counts move when it is not.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, freshDatabase } from "../support";

type Pg = Awaited<ReturnType<typeof connect>>;
let c: Pg;
beforeAll(async () => {
  c = await connect(await freshDatabase("ratelimits_multi_model"));
});
afterAll(async () => {
  await c?.end();
});

type Step = { kind: "check"; key: string; cost: number; advanceUs: number } | { kind: "override"; key: string; limit: number; spanWindows: number };

const advance = (windowMs: number): fc.Arbitrary<number> =>
  fc.oneof(
    fc.constant(0),
    fc.tuple(fc.integer({ min: 0, max: 3000 }), fc.integer({ min: 0, max: 999 })).map(([k, us]) => Math.floor((k * windowMs) / 1000) * 1000 + us),
  );

const step = (windowMs: number, limit: number): fc.Arbitrary<Step> =>
  fc.oneof(
    {
      weight: 8,
      arbitrary: fc.record({
        kind: fc.constant("check" as const),
        key: fc.constantFrom("a", "b"),
        cost: fc.integer({ min: 0, max: limit + 2 }),
        advanceUs: advance(windowMs),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant("override" as const),
        key: fc.constantFrom("a", "b"),
        limit: fc.integer({ min: 1, max: limit + 3 }),
        spanWindows: fc.integer({ min: 1, max: 3 }),
      }),
    },
  );

const run = fc
  .record({
    algorithm: fc.constantFrom("fixed_window", "sliding_window", "token_bucket"),
    windowMs: fc.constantFrom(7, 1000, 60_000, 86_400_000),
    limit: fc.integer({ min: 1, max: 6 }),
    startUs: fc.tuple(fc.integer({ min: 1_600_000_000, max: 1_900_000_000 }), fc.integer({ min: 0, max: 999_999 })).map(([s, us]) => s * 1_000_000 + us),
  })
  .chain((p) => fc.record({ p: fc.constant(p), steps: fc.array(step(p.windowMs, p.limit), { minLength: 1, maxLength: 30 }) }));

const NOW = "'epoch'::timestamptz + $4::bigint * interval '1 microsecond'";

async function counters(name: string) {
  const { rows } = await c.query(
    `SELECT key, slot, window_start, consumed, admitted, attempted, rejected, tat, last_allowed,
            -- A bucket first seen by a refused call: 000010 dates the row's expiry from a TAT it never wrote.
            CASE WHEN tat IS NULL OR admitted > 0 OR consumed > 0 THEN expires_at END AS expires_at
       FROM ratelimit_counters WHERE policy = $1 ORDER BY key, slot`,
    [name],
  );
  return rows;
}

async function override(names: string[], s: Extract<Step, { kind: "override" }>, us: number, windowMs: number) {
  for (const name of names) {
    await c.query("SELECT admit_ratelimit_delete_overrides($1, $2, NULL)", [name, s.key]);
    const { rows } = await c.query(
      `SELECT admit_ratelimit_put_override($1, $2, $3::integer, 'epoch'::timestamptz + $4::bigint * interval '1 microsecond',
                                           'epoch'::timestamptz + ($4::bigint + $5::bigint) * interval '1 microsecond')->>'status' AS status`,
      [name, s.key, s.limit, String(us), s.spanWindows * windowMs * 1000],
    );
    expect(rows[0].status).toBe("created");
  }
}

let runs = 0;

describe("admit_ratelimit_check_multi", () => {
  it("with one policy, answers and counts exactly as admit_ratelimit_check_any, over random runs of every algorithm", async () => {
    await fc.assert(
      fc.asyncProperty(run, async ({ p, steps }) => {
        const n = runs++;
        const multi = `mm-multi-${n}`;
        const single = `mm-single-${n}`;
        for (const name of [multi, single]) {
          await c.query("SELECT admit_ratelimit_put_policy($1, $2, $3::integer, $4::bigint, false, 0)", [name, p.algorithm, p.limit, p.windowMs]);
        }
        let us = p.startUs;
        for (const s of steps) {
          if (s.kind === "override") {
            await override([multi, single], s, us, p.windowMs);
            continue;
          }
          us += s.advanceUs;
          const a = (
            await c.query(`SELECT admit_ratelimit_check_multi(ARRAY[$1], $2, $3::integer, NULL, 1000, ${NOW}) AS r`, [multi, s.key, s.cost, String(us)])
          ).rows[0].r;
          const b = (await c.query(`SELECT admit_ratelimit_check_any($1, $2, $3::integer, NULL, 1000, ${NOW}) AS r`, [single, s.key, s.cost, String(us)]))
            .rows[0].r;
          expect(a.results).toHaveLength(1);
          expect(a.allowed).toBe(b.allowed);
          expect({ ...a.results[0], policy: "" }, `${p.algorithm} step ${JSON.stringify(s)} at ${us} µs`).toEqual({ ...b, policy: "" });
        }
        expect(await counters(multi)).toEqual(await counters(single));
      }),
      { numRuns: 60 },
    );
    expect(runs).toBeGreaterThanOrEqual(60);
  });

  it("with two policies: admitted only when each alone would admit; then both count as single checks would, else neither consumes", async () => {
    await fc.assert(
      fc.asyncProperty(run, run, async (x, y) => {
        const n = runs++;
        const [p1, p2, t1, t2] = [`mp-1-${n}`, `mp-2-${n}`, `mt-1-${n}`, `mt-2-${n}`];
        for (const [name, p] of [
          [p1, x.p],
          [t1, x.p],
          [p2, y.p],
          [t2, y.p],
        ] as const) {
          await c.query("SELECT admit_ratelimit_put_policy($1, $2, $3::integer, $4::bigint, false, 0)", [name, p.algorithm, p.limit, p.windowMs]);
        }
        const single = async (name: string, key: string, cost: number, at: string) =>
          (await c.query(`SELECT admit_ratelimit_check_any($1, $2, $3::integer, NULL, 1000, ${NOW}) AS r`, [name, key, cost, at])).rows[0].r;
        const strip = ({ policy: _p, ...rest }: Record<string, unknown>) => rest;
        let us = x.p.startUs;
        for (const s of x.steps) {
          if (s.kind === "override") continue;
          us += s.advanceUs;
          const at = String(us);
          // What each twin alone would say to this cost (run in a transaction that is rolled back).
          await c.query("BEGIN");
          const alone = [await single(t2, s.key, s.cost, at), await single(t1, s.key, s.cost, at)];
          await c.query("ROLLBACK");
          const m = (await c.query(`SELECT admit_ratelimit_check_multi(ARRAY[$1, $5], $2, $3::integer, NULL, 1000, ${NOW}) AS r`, [p2, s.key, s.cost, at, p1]))
            .rows[0].r;
          expect(m.results.map((r: { policy: string }) => r.policy)).toEqual([p2, p1]);
          expect(
            m.results.map((r: { allowed: boolean }) => r.allowed),
            `step ${JSON.stringify(s)}`,
          ).toEqual(alone.map((r) => r.allowed));
          expect(m.allowed).toBe(alone.every((r) => r.allowed));
          // Admitted: the twins take the cost for real; refused: they stay as they were.
          if (m.allowed && s.cost > 0) for (const t of [t2, t1]) await single(t, s.key, s.cost, at);
          // Each policy now stands exactly where its twin does (a peek answers from the state alone).
          const after = (await c.query(`SELECT admit_ratelimit_check_multi(ARRAY[$1, $5], $2, $3::integer, NULL, 1000, ${NOW}) AS r`, [p2, s.key, 0, at, p1]))
            .rows[0].r;
          expect(after.results.map(strip), `state after step ${JSON.stringify(s)}`).toEqual([
            strip(await single(t2, s.key, 0, at)),
            strip(await single(t1, s.key, 0, at)),
          ]);
        }
      }),
      { numRuns: 30 },
    );
  });
});
