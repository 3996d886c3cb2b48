// Connections that fail at every step, for every capability (test/support/capabilities.ts): this suite has
// its own bridge in fault mode in front of the shared test Postgres, and checks the database
// through the shared (healthy) bridge. What must hold whatever the fault:
// - never a 500 and never a hang: 2xx/409/429 once decided, 503 + Retry-After when it certainly
//   did not, 504 outcome-unknown when the write was sent and no answer came;
// - a 503 is never hiding a write (the database has nothing for it, then and later);
// - a request cut mid-way leaves its lock free: the next request on the same key is not kept waiting.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Bridge, type Faults, startBridge } from "../../dev/bridge";
import { RequestDb } from "../../functions/core/db";
import { ProblemError } from "../../functions/core/errors";
import { lockKey } from "../../functions/core/lock-keys";
import { bindings, client, connect, freshDatabase, type Served, serveApp, settled as settleAll, sql, withFaults as withBridgeFaults } from "../support";
import { CAPABILITIES, type Capability, type HttpCall, type Query, retryable } from "../support/capabilities";

const BUDGET_MS = 1_500;
let db: string;
let bridge: Bridge;
let app: Served;
let api: ReturnType<typeof client>;
const q: Query = (text, params) => sql(db, text, params);

beforeAll(async () => {
  db = await freshDatabase("faults");
  bridge = await startBridge();
  // METRICS=off: the decision counts' flush is a statement of its own, sent up to METRICS_FLUSH_MS
  // after a response; through this bridge it could take the one connection a test faults
  // (`connections: 1`) and leave the request under test unfaulted (a lease answered 201 where the
  // delayed write must be 504). The counts are not what this suite judges.
  app = await serveApp(bindings(db, { NEON_WS_PROXY: bridge.wsProxy, DB_BUDGET_MS: String(BUDGET_MS), LOCK_TIMEOUT_MS: "500", METRICS: "off" }));
  api = client(app.url);
});
afterAll(async () => {
  await app?.close();
  await bridge?.close();
});

let seq = 0;
const unique = (what: string) => `${what}-${++seq}-${Math.random().toString(36).slice(2, 8)}`;

/** A fresh key, made usable for the capability (e.g. its semaphore created) with no faults on. */
async function newKey(cap: Capability, what: string): Promise<string> {
  const key = unique(what);
  for (const call of cap.prepare?.(key) ?? []) {
    const res = await send(call);
    expect(res.status, `prepare ${call.path}: ${res.text}`).toBeLessThan(300);
  }
  return key;
}

/** Sends a call with a hard client-side cap well past the budget: a hang fails the test, not the run. */
async function send(call: HttpCall) {
  const res = await Promise.race([
    api(call.method, call.path, call.body, call.headers),
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no answer to ${call.method} ${call.path} within 10 s`)), 10_000)),
  ]);
  return res;
}

/** The status is one a client can act on, with the problem body and headers that go with it. */
function expectHonest(res: Awaited<ReturnType<typeof send>>, cap: Capability, allowed: number[]) {
  expect(allowed, `${cap.name}: got ${res.status} ${res.text}`).toContain(res.status);
  // A refusal may carry the capability's own body (a rate limit's 429 is its usual JSON); every other error is a problem.
  if (res.status >= 400 && !cap.refused.includes(res.status)) expect(res.headers.get("content-type")).toBe("application/problem+json");
  if (res.status === 503) expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
  if (res.status === 504) expect(res.json.type).toBe("/problems/outcome-unknown");
}

/** Nothing in flight on the suite's database: late commits have landed. */
const settled = () => settleAll(bridge, q);

const withFaults = <T>(faults: Faults, fn: () => Promise<T>): Promise<T> => withBridgeFaults(bridge, faults, fn);

async function expectInvariants(cap: Capability) {
  for (const check of cap.invariants) expect(await q(check), `${cap.name}: ${check}`).toEqual([]);
}

/** The next request on the same key gets a decision, not a lock wait: the cut request's locks are gone. */
async function expectKeyFree(cap: Capability, key: string, previousApplied: number) {
  const next = await send(cap.write(key, unique("next"), 1));
  expect(previousApplied === 0 ? cap.ok : [...cap.ok, ...cap.refused], `${cap.name}: next request on ${key}: ${next.status} ${next.text}`).toContain(
    next.status,
  );
}

describe.each(CAPABILITIES.map((c) => [c.name, c] as const))("%s under connection faults", (_name, cap) => {
  it("the bridge refusing connections → 503 + Retry-After, nothing written", async () => {
    const key = await newKey(cap, "refused");
    const tag = unique("t");
    const res = await withFaults({ refuse: true }, () => send(cap.write(key, tag)));
    expectHonest(res, cap, [503]);
    await settled();
    expect(await cap.applied(q, tag)).toBe(0);
    await expectKeyFree(cap, key, 0);
  });

  it("cut before the statement reaches Postgres → 503/504, nothing written, key free at once", async () => {
    const key = await newKey(cap, "before");
    const tag = unique("t");
    const res = await withFaults({ statement: { match: cap.statement, action: "drop-before" } }, () => send(cap.write(key, tag)));
    // The Worker had sent the statement into its socket, so it cannot tell this from a later cut: 504 is honest.
    expectHonest(res, cap, [503, 504]);
    await settled();
    expect(await cap.applied(q, tag)).toBe(0);
    await expectKeyFree(cap, key, 0);
  });

  it("cut after the statement reached Postgres → 504 outcome unknown, and the write did commit: a 503 would have lied", async () => {
    const key = await newKey(cap, "after");
    const tag = unique("t");
    const res = await withFaults({ statement: { match: cap.statement, action: "drop-after" } }, () => send(cap.write(key, tag)));
    expectHonest(res, cap, [504]);
    await settled();
    expect(await cap.applied(q, tag)).toBe(1);
    await expectKeyFree(cap, key, 1);
    await expectInvariants(cap);
  });

  it("answer lost in a stalled network → 504 within the budget; Postgres committed meanwhile", async () => {
    const key = await newKey(cap, "stall-after");
    const tag = unique("t");
    const res = await withFaults({ statement: { match: cap.statement, action: "stall-after" } }, () => send(cap.write(key, tag)));
    expectHonest(res, cap, [504]);
    await settled();
    expect(await cap.applied(q, tag)).toBe(1);
    await expectKeyFree(cap, key, 1);
  });

  it("statement swallowed by a stalled network → 504 (the Worker cannot know), and nothing was written", async () => {
    const key = await newKey(cap, "stall-before");
    const tag = unique("t");
    const res = await withFaults({ statement: { match: cap.statement, action: "stall-before" } }, () => send(cap.write(key, tag)));
    expectHonest(res, cap, [504]);
    await settled();
    expect(await cap.applied(q, tag)).toBe(0);
    await expectKeyFree(cap, key, 0);
  });

  it("traffic delayed past the budget → 504 and the late write still commits when it arrives (or 503 if the budget ran out before the write was sent)", async () => {
    const key = await newKey(cap, "delayed");
    const tag = unique("t");
    const res = await withFaults({ delayMs: BUDGET_MS + 500, connections: 1 }, () => send(cap.write(key, tag)));
    // 504 when the write was sent; 503 when the budget ran out on a read before it (a webhook
    // delivery reads its source first), so the write never left.
    expectHonest(res, cap, [503, 504]);
    if (res.status === 504) {
      // It reaches Postgres only after the Worker gave up; wait for it (the bridge holds it ~2 s).
      for (let i = 0; i < 100 && (await cap.applied(q, tag)) === 0; i++) await new Promise((r) => setTimeout(r, 100));
      expect(await cap.applied(q, tag)).toBe(1);
    } else {
      await new Promise((r) => setTimeout(r, BUDGET_MS + 1_500)); // everything the bridge held has arrived
      await settled();
      expect(await cap.applied(q, tag)).toBe(0);
    }
  });

  it("a short delay changes nothing", async () => {
    const tag = unique("t");
    const key = await newKey(cap, "slow");
    const res = await withFaults({ delayMs: 50 }, () => send(cap.write(key, tag)));
    expectHonest(res, cap, cap.ok);
    expect(await cap.applied(q, tag)).toBe(1);
  });

  it("cut after N bytes or messages either way, at many points → only 2xx/503/504; every 503 wrote nothing, every 2xx is stored", async () => {
    const plans: Faults[] = [
      ...[1, 2, 3, 4].map((clientMessages) => ({ dropAfter: { clientMessages } })),
      ...[1, 2, 3, 5, 8, 12].map((serverMessages) => ({ dropAfter: { serverMessages } })),
      ...[5, 40, 80, 120, 200].map((clientBytes) => ({ dropAfter: { clientBytes } })),
      ...[1, 20, 100, 300, 500].map((serverBytes) => ({ dropAfter: { serverBytes } })),
    ];
    const outcomes: Array<{ tag: string; status: number }> = [];
    for (const plan of plans) {
      const tag = unique("t");
      const key = await newKey(cap, "cut");
      const res = await withFaults(plan, () => send(cap.write(key, tag)));
      expectHonest(res, cap, [...cap.ok, 503, 504]);
      outcomes.push({ tag, status: res.status });
    }
    await settled();
    for (const o of outcomes) {
      const n = await cap.applied(q, o.tag);
      if (o.status === 503) expect(n, `503 for ${o.tag} but it was written`).toBe(0);
      if (cap.ok.includes(o.status)) expect(n).toBe(1);
    }
    expect(outcomes.filter((o) => o.status >= 503).length).toBeGreaterThan(plans.length / 2); // the cuts did bite
    await expectInvariants(cap);
  });

  it("a burst with connections cut at random points on one hot key → honest answers, invariants hold", async () => {
    const key = await newKey(cap, "random");
    const calls = Array.from({ length: 40 }, (_, i) => {
      const tag = unique("t");
      return { tag, call: cap.write(key, tag, i % 8) };
    });
    const results = await withFaults({ dropAtRandom: { maxBytes: 900, seed: 20261121 } }, () => Promise.all(calls.map((c) => send(c.call))));
    for (const r of results) expectHonest(r, cap, [...cap.ok, ...cap.refused, 503, 504]);
    await settled();
    for (const [i, r] of results.entries()) {
      const n = await cap.applied(q, calls[i].tag);
      if (r.status === 503 || cap.refused.includes(r.status)) expect(n, `${r.status} for ${calls[i].tag} but it was written`).toBe(0);
      if (cap.ok.includes(r.status)) expect(n).toBe(1);
    }
    await expectInvariants(cap);
  });

  it("a dropped partition (every open connection cut) mid-burst → honest answers, service back at once", async () => {
    const key = await newKey(cap, "partition");
    const calls = Array.from({ length: 20 }, (_, i) => ({ tag: unique("t"), slot: i }));
    const pending = Promise.all(calls.map((c) => send(cap.write(key, c.tag, c.slot))));
    const cutter = setInterval(() => bridge.dropAll(), 15);
    const results = await pending.finally(() => clearInterval(cutter));
    for (const r of results) expectHonest(r, cap, [...cap.ok, ...cap.refused, 503, 504]);
    await settled();
    for (const [i, r] of results.entries()) {
      const n = await cap.applied(q, calls[i].tag);
      if (r.status === 503 || cap.refused.includes(r.status)) expect(n).toBe(0);
      if (cap.ok.includes(r.status)) expect(n).toBe(1);
    }
    await expectInvariants(cap);
    expect([...cap.ok, ...cap.refused]).toContain((await send(cap.write(key, unique("after-partition"), 99))).status);
  });

  it("a transaction holding the key's lock → 409/429/503 within the budget, not a wait; free again once it ends", async () => {
    const key = await newKey(cap, "held");
    const holder = await connect(db);
    try {
      await holder.query("BEGIN");
      await cap.holdLock(holder, key);
      const tag = unique("t");
      const res = await send(cap.write(key, tag));
      expectHonest(res, cap, [...cap.refused, 503]);
      expect(await cap.applied(q, tag)).toBe(0);
    } finally {
      await holder.query("ROLLBACK").catch(() => {});
      await holder.end();
    }
    await expectKeyFree(cap, key, 0);
  });
});

describe.each(CAPABILITIES.map((c) => [c.name, c] as const))("%s: a 504 is resolved by retrying the same request", (_name, cap) => {
  // With an Idempotency-Key the claim, the effect and the stored answer share one transaction, so
  // the cut points are: inside it (rolled back → 503), around its COMMIT (→ 504). A webhook delivery
  // is its own key (webhook-id). Either way the retry answers the real outcome: the stored answer,
  // marked Idempotent-Replayed, if the first attempt committed; a fresh run if it did not.
  const keyed = cap.dedupe === "idempotency-key";
  const cases: Array<[string, Faults, number[], number]> = [
    ...(keyed
      ? ([
          ["cut after the effect reached Postgres, inside the key's transaction", { statement: { match: cap.statement, action: "drop-after" } }, [503], 0],
          ["cut just before COMMIT", { statement: { match: "COMMIT", action: "drop-before" } }, [503, 504], 0],
          ["cut just after COMMIT", { statement: { match: "COMMIT", action: "drop-after" } }, [504], 1],
          ["answer to COMMIT lost", { statement: { match: "COMMIT", action: "stall-after" } }, [504], 1],
        ] as Array<[string, Faults, number[], number]>)
      : ([
          ["cut before the write reached Postgres", { statement: { match: cap.statement, action: "drop-before" } }, [503, 504], 0],
          ["cut after the write reached Postgres", { statement: { match: cap.statement, action: "drop-after" } }, [504], 1],
        ] as Array<[string, Faults, number[], number]>)),
  ];
  it.each(cases)("%s; the retry tells the real outcome", async (_what, faults, statuses, stored) => {
    const key = await newKey(cap, "retry");
    const tag = unique("t");
    const call = retryable(cap, key, tag);
    const res = await withFaults(faults, () => send(call()));
    expectHonest(res, cap, statuses);
    await settled();
    expect(await cap.applied(q, tag)).toBe(stored);
    const again = await send(call());
    expect(cap.ok, `${again.status} ${again.text}`).toContain(again.status);
    expect(again.headers.get("idempotent-replayed")).toBe(stored ? "true" : null);
    expect(await cap.applied(q, tag)).toBe(1);
  });
});

describe("explicit transactions on the request handle, cut at each step", () => {
  // What the idempotency layer (and any multi-statement decision) relies on: inside BEGIN…COMMIT
  // a lost connection is a rollback (503); only a lost COMMIT is "outcome unknown" (504).
  beforeAll(async () => {
    await q("CREATE TABLE IF NOT EXISTS fault_tx (tag text PRIMARY KEY)");
  });

  async function runTx(faults: Faults | undefined, tag: string): Promise<number | "ok"> {
    const handle = new RequestDb(bindings(db, { NEON_WS_PROXY: bridge.wsProxy, DB_BUDGET_MS: String(BUDGET_MS) }));
    try {
      return await withFaults(faults ?? {}, async () => {
        await handle.transaction(async (tx) => {
          await tx.query("SELECT 1");
          await tx.query("INSERT INTO fault_tx VALUES ($1)", [tag], { write: true });
          await tx.query("SELECT 2");
        });
        return "ok" as const;
      });
    } catch (err) {
      if (err instanceof ProblemError) return err.problem.status;
      throw err;
    } finally {
      await handle.close();
    }
  }
  const stored = async (tag: string) => (await q("SELECT 1 FROM fault_tx WHERE tag = $1", [tag])).length;

  const cases: Array<[string, number, number, Faults]> = [
    ["cut before BEGIN", 503, 0, { statement: { match: "BEGIN", action: "drop-before" } }],
    ["cut after the INSERT reached Postgres, before COMMIT", 503, 0, { statement: { match: "INSERT INTO fault_tx", action: "drop-after" } }],
    ["answer to the INSERT lost (stalled), no COMMIT sent", 503, 0, { statement: { match: "INSERT INTO fault_tx", action: "stall-after" } }],
    ["cut just before COMMIT", 504, 0, { statement: { match: "COMMIT", action: "drop-before" } }],
    ["cut just after COMMIT", 504, 1, { statement: { match: "COMMIT", action: "drop-after" } }],
    ["answer to COMMIT lost (stalled)", 504, 1, { statement: { match: "COMMIT", action: "stall-after" } }],
  ];
  it.each(cases)("%s → %i, rows stored: %i", async (_what, status, rows, faults) => {
    const tag = unique("tx");
    expect(await runTx(faults, tag)).toBe(status);
    await settled();
    expect(await stored(tag)).toBe(rows);
  });

  it("without faults the same transaction commits", async () => {
    const tag = unique("tx");
    expect(await runTx(undefined, tag)).toBe("ok");
    expect(await stored(tag)).toBe(1);
  });
});

describe("invoices (an explicit transaction at the HTTP level: BEGIN, try-lock, write, COMMIT), cut at each step", () => {
  const generate = (sub: string) => send({ method: "POST", path: "/v1/invoices/generate", body: { subscription_id: sub, kind: "usage", work_ms: 0 } });
  const invoicesOf = async (sub: string) => (await q<{ n: number }>("SELECT count(*)::int AS n FROM invoices WHERE subscription_id = $1", [sub]))[0].n;

  const cases: Array<[string, Faults, number[], number]> = [
    [
      "cut after the write reached Postgres, before COMMIT → 503, rolled back",
      { statement: { match: "admit_generate_invoice", action: "drop-after" } },
      [503],
      0,
    ],
    [
      "write's answer lost (stalled), COMMIT never sent → 503, rolled back",
      { statement: { match: "admit_generate_invoice", action: "stall-after" } },
      [503],
      0,
    ],
    ["cut just before COMMIT → 504 (cannot know), nothing stored", { statement: { match: "COMMIT", action: "drop-before" } }, [504], 0],
    ["cut just after COMMIT → 504, and it did commit", { statement: { match: "COMMIT", action: "drop-after" } }, [504], 1],
  ];
  it.each(cases)("%s; the subscription's lock is free at once", async (_what, faults, statuses, stored) => {
    const sub = unique("SUB");
    const res = await withFaults(faults, () => generate(sub));
    expect(statuses, `${res.status} ${res.text}`).toContain(res.status);
    if (res.status === 503) expect(res.headers.get("retry-after")).not.toBeNull();
    await settled();
    expect(await invoicesOf(sub)).toBe(stored);
    expect((await generate(sub)).status).toBe(201);
  });

  it("a generation holding the subscription's lock → the next answers 409 at once", async () => {
    const sub = unique("SUB");
    const holder = await connect(db);
    try {
      await holder.query("BEGIN");
      await holder.query("SELECT pg_advisory_xact_lock($1::bigint)", [lockKey("lock", `invoice_gen/${sub}`)]);
      const res = await generate(sub);
      expect(res.status).toBe(409);
      expect(res.headers.get("retry-after")).not.toBeNull();
    } finally {
      await holder.query("ROLLBACK").catch(() => {});
      await holder.end();
    }
    expect(await invoicesOf(sub)).toBe(0);
    expect((await generate(sub)).status).toBe(201);
  });
});
