// The fixed-window fast path (schema/000011) against the general check it stands in for
// (admit_ratelimit_check_any, 000010): the same random run of checks — costs around the limit,
// overrides coming and going, clock steps within and across windows at microsecond precision — on
// two policies configured alike, one through each function. Every answer and the counter rows they
// leave must be identical.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, freshDatabase, roomInWindow } from "../support";

type Pg = Awaited<ReturnType<typeof connect>>;
let c: Pg;
beforeAll(async () => {
  c = await connect(await freshDatabase("ratelimits_fixed_window"));
});
afterAll(async () => {
  await c?.end();
});

type Step = { kind: "check"; key: string; cost: number; advanceUs: number } | { kind: "override"; key: string; limit: number; spanWindows: number };

/** A clock step: none, or up to three windows (in thousandths of one) plus 0–999 µs. fast-check integers are 32-bit. */
const advance = (windowMs: number): fc.Arbitrary<number> =>
  fc.oneof(
    fc.constant(0),
    fc.tuple(fc.integer({ min: 0, max: 3000 }), fc.integer({ min: 0, max: 999 })).map(([k, us]) => k * windowMs + us),
  );

const step = (windowMs: number, limit: number): fc.Arbitrary<Step> =>
  fc.oneof(
    {
      weight: 8,
      arbitrary: fc.record({
        kind: fc.constant("check" as const),
        key: fc.constantFrom("a", "b"),
        cost: fc.integer({ min: 1, max: limit + 2 }),
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
    windowMs: fc.constantFrom(1, 7, 1000, 60_000, 86_400_000),
    limit: fc.integer({ min: 1, max: 6 }),
    history: fc.constantFrom(0, 3_600_000),
    startUs: fc.tuple(fc.integer({ min: 1_600_000_000, max: 1_900_000_000 }), fc.integer({ min: 0, max: 999_999 })).map(([s, us]) => s * 1_000_000 + us),
  })
  .chain((p) => fc.record({ p: fc.constant(p), steps: fc.array(step(p.windowMs, p.limit), { minLength: 1, maxLength: 40 }) }));

let runs = 0;

describe("fixed-window fast path", () => {
  it("answers and counts exactly as the general check, over random runs", async () => {
    await fc.assert(
      fc.asyncProperty(run, async ({ p, steps }) => {
        const n = runs++;
        const fast = `fw-fast-${n}`;
        const general = `fw-any-${n}`;
        for (const name of [fast, general]) {
          await c.query("SELECT admit_ratelimit_put_policy($1, 'fixed_window', $2::integer, $3::bigint, false, $4::bigint)", [
            name,
            p.limit,
            p.windowMs,
            p.history,
          ]);
        }
        let us = p.startUs;
        const at = (): string => String(us);
        for (const s of steps) {
          if (s.kind === "override") {
            for (const name of [fast, general]) {
              // The key's earlier overrides go, so the new one never overlaps them.
              await c.query("SELECT admit_ratelimit_delete_overrides($1, $2, NULL)", [name, s.key]);
              const { rows } = await c.query(
                `SELECT admit_ratelimit_put_override($1, $2, $3::integer, 'epoch'::timestamptz + $4::bigint * interval '1 microsecond',
                                                     'epoch'::timestamptz + ($4::bigint + $5::bigint) * interval '1 microsecond')->>'status' AS status`,
                [name, s.key, s.limit, at(), s.spanWindows * p.windowMs * 1000],
              );
              expect(rows[0].status).toBe("created");
            }
            continue;
          }
          us += s.advanceUs;
          const now = "'epoch'::timestamptz + $4::bigint * interval '1 microsecond'";
          const a = await c.query(`SELECT admit_ratelimit_check($1, $2, $3::integer, NULL, 1000, ${now}) AS r`, [fast, s.key, s.cost, at()]);
          const b = await c.query(`SELECT admit_ratelimit_check_any($1, $2, $3::integer, NULL, 1000, ${now}) AS r`, [general, s.key, s.cost, at()]);
          expect({ ...a.rows[0].r, policy: "" }, `step ${JSON.stringify(s)} at ${us} µs`).toEqual({ ...b.rows[0].r, policy: "" });
        }
        const counters = async (name: string) =>
          (
            await c.query(
              `SELECT key, slot, window_start, consumed, admitted, attempted, rejected, last_allowed, expires_at
                 FROM ratelimit_counters WHERE policy = $1 ORDER BY key, slot`,
              [name],
            )
          ).rows;
        expect(await counters(fast)).toEqual(await counters(general));
      }),
      { numRuns: 60 },
    );
    expect(runs).toBeGreaterThanOrEqual(60);
  });

  it("hands every other case to the general check: other algorithms, peeks, logged policies, unknown policies", async () => {
    // Windows of an hour, with 20 s of it left: a window's end between the calls would reset them.
    await roomInWindow(3_600_000, 20_000);
    await c.query("SELECT admit_ratelimit_put_policy('fw-tb', 'token_bucket', 3, 3600000, false, 0)");
    await c.query("SELECT admit_ratelimit_put_policy('fw-log', 'fixed_window', 3, 3600000, true, 60000)");
    const check = async (policy: string, cost: number) =>
      (await c.query("SELECT admit_ratelimit_check($1, 'k', $2::integer, '{\"via\":\"test\"}', 1000) AS r", [policy, cost])).rows[0].r;
    expect(await check("fw-tb", 1)).toMatchObject({ allowed: true, remaining: 2 });
    expect(await check("fw-log", 1)).toMatchObject({ allowed: true, log: true, remaining: 2 });
    expect((await c.query("SELECT count(*)::int AS n FROM ratelimit_log WHERE policy = 'fw-log' AND info = '{\"via\":\"test\"}'")).rows[0].n).toBe(1);
    expect(await check("fw-log", 0)).toMatchObject({ allowed: true, remaining: 2 }); // a peek counts nothing
    expect(await check("fw-missing", 1)).toBeNull();
  });
});
