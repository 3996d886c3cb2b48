// Postgres frozen (SIGSTOP of every one of its processes) in the middle of a burst, then thawed
// (SIGCONT), for every capability (test/support/capabilities.ts). This suite runs its OWN embedded Postgres
// and bridge: freezing the shared one would stall every other suite.
//
// What must hold: /health turns 503 within 5 s; every request answers within its budget with
// 2xx/409 (decided before the freeze), 503 + Retry-After (certainly not applied) or 504 (outcome
// unknown); after SIGCONT the same app serves again with no restart; no 503 hides a write, ever
// (checked after every late commit has landed); every invariant holds in the database.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { client, type OwnStack, ownStack, type Served, serveApp, settled as settleAll, TOKEN } from "../support";
import { CAPABILITIES, type Capability, type Query, retryable } from "../support/capabilities";

const BUDGET_MS = 2_000;
let stack: OwnStack;
let app: Served;
let defaults: Served;

/** Direct TCP to our own Postgres (not through the bridge), for checks once it is thawed. */
const q: Query = (text, params) => stack.q(text, params);
const freeze = () => stack.freeze();
const thaw = () => stack.thaw();

beforeAll(async () => {
  stack = await ownStack("freeze");
  app = await serveApp({ ...stack.env, DB_BUDGET_MS: String(BUDGET_MS), LOCK_TIMEOUT_MS: "1000" });
  defaults = await serveApp(stack.env);
}, 120_000);

afterAll(async () => {
  await app?.close();
  await defaults?.close();
  await stack?.stop();
}, 60_000);

/** Per capability: its writes answered 504 that had committed after the thaw. */
const lateCommitsOf = new Map<string, number>();

let seq = 0;
const unique = (what: string) => `${what}-${++seq}-${Math.random().toString(36).slice(2, 8)}`;

/** A request that must answer: aborted (and so failed) after 10 s, well past this suite's budget (BUDGET_MS) and the default 5 s. */
async function call(base: string, method: string, p: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(base + p, {
    method,
    headers: { Authorization: `Bearer ${TOKEN}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...headers },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: text ? JSON.parse(text) : undefined };
}

/** Nothing in flight through the bridge or on any database: every late commit has landed. */
const settled = () => settleAll(stack.bridge, q, { everywhere: true, attempts: 200 });

describe.each(CAPABILITIES.map((c) => [c.name, c] as const))("%s with Postgres frozen mid-burst", (_name, cap: Capability) => {
  it("answers honestly within the budget, resumes without a restart, no 503 hides a write, invariants hold", async () => {
    // Two hot keys for the writes in flight when Postgres stops, a fresh one for those sent while it
    // is stopped (so at least one of those can still win when it wakes, whatever won before).
    const keys = [unique("hot"), unique("hot"), unique("frozen")];
    for (const key of keys) for (const c of cap.prepare?.(key) ?? []) expect((await call(app.url, c.method, c.path, c.body)).status).toBeLessThan(300);
    // Half the writes are sent plainly, half as a client that wants to retry safely would
    // (Idempotency-Key, or the capability's own id such as webhook-id): those are retried after the thaw.
    const burst = (n: number, on: string[]) =>
      Array.from({ length: n }, (_, i) => {
        const tag = unique("t");
        const keyed = cap.dedupe === "natural" || i % 2 === 1;
        const key = on[i % on.length];
        const again = keyed ? retryable(cap, key, tag, i % 5) : () => cap.write(key, tag, i % 5);
        const req = again();
        return { tag, keyed, again, during: "", res: call(app.url, req.method, req.path, req.body, req.headers) };
      });

    expect((await call(app.url, "GET", "/health")).status).toBe(200);
    const before = burst(30, keys.slice(0, 2)).map((b) => ({ ...b, during: "before" }));
    await new Promise((r) => setTimeout(r, 20));
    freeze();
    let health: Awaited<ReturnType<typeof call>>;
    let healthDefault: Response;
    let during: typeof before;
    try {
      during = burst(30, keys.slice(2)).map((b) => ({ ...b, during: "frozen" }));
      // /health on the default budget must still answer 503 within 5 s.
      [health, healthDefault] = await Promise.all([call(app.url, "GET", "/health"), fetch(defaults.url + "/health", { signal: AbortSignal.timeout(5_000) })]);
      await Promise.allSettled([...before, ...during].map((b) => b.res));
    } finally {
      thaw();
    }
    expect(health.status).toBe(503);
    expect(health.headers.get("retry-after")).not.toBeNull();
    expect(healthDefault.status).toBe(503);

    const all = [...before, ...during];
    const results = await Promise.all(all.map(async (b) => ({ ...b, r: await b.res })));
    const counts: Record<string, number> = {};
    for (const { r, during: when, keyed } of results) {
      const k = `${when} ${keyed ? "retryable" : "plain"} ${r.status}`;
      counts[k] = (counts[k] ?? 0) + 1;
    }
    console.log(`${cap.name} freeze outcomes:`, counts);
    for (const { r, during: when, keyed } of results) {
      // Sent with an Idempotency-Key while frozen, a write is an explicit transaction whose BEGIN got
      // no answer: nothing can commit without a COMMIT, so the answer is a certain 503.
      const allowed = when === "frozen" ? (keyed && cap.dedupe === "idempotency-key" ? [503] : [503, 504]) : [...cap.ok, ...cap.refused, 503, 504];
      expect(allowed, `${when}: ${r.status} ${r.text}`).toContain(r.status);
      if (r.status >= 400 && !cap.refused.includes(r.status)) expect(r.headers.get("content-type")).toBe("application/problem+json");
      if (r.status === 503) expect(r.headers.get("retry-after")).not.toBeNull();
    }

    // The same app, no restart: /health comes back once Postgres does.
    let back = 0;
    for (let i = 0; i < 60 && back !== 200; i++) {
      back = (await call(app.url, "GET", "/health")).status;
      if (back !== 200) await new Promise((r) => setTimeout(r, 250));
    }
    expect(back).toBe(200);

    await settled();
    let lateCommits = 0;
    for (const { tag, r } of results) {
      const n = await cap.applied(q, tag);
      if (r.status === 503 || cap.refused.includes(r.status)) expect(n, `${r.status} for ${tag}, yet it was written`).toBe(0);
      if (cap.ok.includes(r.status)) expect(n).toBe(1);
      if (r.status === 504 && n === 1) lateCommits++;
    }
    console.log(`${cap.name}: ${lateCommits} of ${results.filter((x) => x.r.status === 504).length} writes answered 504 had committed after the thaw`);
    // Each retryable 503/504, sent again as it was: the stored answer (Idempotent-Replayed) if it
    // had committed, else a fresh decision.
    for (const { tag, again, r } of results.filter((x) => x.keyed && x.r.status >= 503)) {
      const applied = await cap.applied(q, tag);
      const req = again();
      const retry = await call(app.url, req.method, req.path, req.body, req.headers);
      if (applied === 1) {
        expect(cap.ok, `${tag}: ${retry.status} ${retry.text}`).toContain(retry.status);
        expect(retry.headers.get("idempotent-replayed"), tag).toBe("true");
      } else {
        expect([...cap.ok, ...cap.refused], `${tag}: ${retry.status} ${retry.text}`).toContain(retry.status);
        expect(retry.headers.get("idempotent-replayed"), tag).toBeNull();
      }
      expect(await cap.applied(q, tag)).toBe(cap.ok.includes(retry.status) ? 1 : 0);
      void r;
    }
    lateCommitsOf.set(cap.name, lateCommits);
    for (const check of cap.invariants) expect(await q(check)).toEqual([]);

    const fresh = unique("after");
    for (const c of cap.prepare?.(fresh) ?? []) await call(app.url, c.method, c.path, c.body);
    const after = cap.write(fresh, unique("t"));
    expect(cap.ok).toContain((await call(app.url, after.method, after.path, after.body, after.headers)).status);
  }, 90_000);
});

describe("Postgres frozen: a write answered 504 may have been applied", () => {
  // Writes sent into the frozen server sat in its socket and ran when it woke: exactly why they are
  // 504, not 503. Whether one of a capability's bursts wins that race (its statement runs before the
  // bridge's cancel of the abandoned request arrives) is chance: coalesced, a burst sends a handful of
  // statements (one of them, a batch, for many writes), not one per write. So it is asked of
  // the capabilities together, not each. (A webhook delivery reads its source first, so it never gets
  // as far as sending its write into a frozen server.)
  it("some write answered 504 had committed after the thaw", () => {
    const keyed = CAPABILITIES.filter((c) => c.dedupe === "idempotency-key").map((c) => c.name);
    expect(
      keyed.every((n) => lateCommitsOf.has(n)),
      `every capability's burst ran first: ${[...lateCommitsOf.keys()]}`,
    ).toBe(true);
    expect(
      keyed.reduce((sum, n) => sum + (lateCommitsOf.get(n) ?? 0), 0),
      JSON.stringify(Object.fromEntries(lateCommitsOf)),
    ).toBeGreaterThan(0);
  });
});

describe("Postgres frozen", () => {
  it("reads answer 503 + Retry-After (nothing to be unsure about), never 504", async () => {
    freeze();
    try {
      const res = await client(app.url)("GET", "/v1/reservations?resource=frozen-read");
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).not.toBeNull();
    } finally {
      thaw();
    }
  }, 30_000);
});

describe("Postgres stopped (fast shutdown) mid-burst, then started again on the same data", () => {
  // A second cluster of this suite's own, kept on disk across the restart.
  let stack2: OwnStack;
  let app2: Served;
  beforeAll(async () => {
    stack2 = await ownStack("restart", { persistent: true });
    app2 = await serveApp({ ...stack2.env, DB_BUDGET_MS: String(BUDGET_MS) });
  }, 120_000);
  afterAll(async () => {
    await app2?.close();
    await stack2?.stop();
  }, 60_000);

  const q2: Query = (text, params) => stack2.q(text, params);

  it.each(CAPABILITIES.filter((c) => c.dedupe === "idempotency-key").map((c) => [c.name, c] as const))(
    "%s: 503/504 while it is down, no 503 hides a write, service back without an app restart, invariants hold",
    async (_name, cap) => {
      const key = unique("restart");
      for (const c of cap.prepare?.(key) ?? []) expect((await call(app2.url, c.method, c.path, c.body)).status).toBeLessThan(300);
      const sent = Array.from({ length: 30 }, (_, i) => {
        const tag = unique("t");
        const req = cap.write(key, tag, i % 5);
        return { tag, res: call(app2.url, req.method, req.path, req.body, req.headers) };
      });
      await new Promise((r) => setTimeout(r, 30));
      await stack2.stopPostgres();
      const whileDown = cap.write(key, unique("t"), 9);
      const down = await call(app2.url, whileDown.method, whileDown.path, whileDown.body, whileDown.headers);
      const health = await call(app2.url, "GET", "/health");
      await stack2.startPostgres();

      expect(down.status).toBe(503); // nothing listening: certainly not applied
      expect(health.status).toBe(503);
      const results = await Promise.all(sent.map(async (s) => ({ ...s, r: await s.res })));
      const counts: Record<number, number> = {};
      for (const { r } of results) counts[r.status] = (counts[r.status] ?? 0) + 1;
      console.log(`${cap.name} across a restart:`, counts);
      for (const { r } of results) expect([...cap.ok, ...cap.refused, 503, 504], r.text).toContain(r.status);

      let back = 0;
      for (let i = 0; i < 60 && back !== 200; i++) {
        back = (await call(app2.url, "GET", "/health")).status;
        if (back !== 200) await new Promise((r) => setTimeout(r, 250));
      }
      expect(back).toBe(200);
      for (const { tag, r } of results) {
        const n = await cap.applied(q2, tag);
        if (r.status === 503 || cap.refused.includes(r.status)) expect(n, `${r.status} for ${tag}, yet it was written`).toBe(0);
        if (cap.ok.includes(r.status)) expect(n).toBe(1);
      }
      for (const check of cap.invariants) expect(await q2(check)).toEqual([]);
      const fresh = unique("fresh");
      for (const c of cap.prepare?.(fresh) ?? []) await call(app2.url, c.method, c.path, c.body);
      const w = cap.write(fresh, unique("t"));
      expect(cap.ok).toContain((await call(app2.url, w.method, w.path, w.body, w.headers)).status);
    },
    90_000,
  );
});
