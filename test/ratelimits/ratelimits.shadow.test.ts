// Shadow mode, per policy and per override: every check decided and counted as if enforced, none
// refused. A 1 000-request burst on a shadow policy of limit 50 (real simultaneous requests, real
// Postgres): 1 000 × 200, exactly 950 marked would-refuse; usage, the counters, /metrics and the
// decision log say 50 / 950. Several policies: a shadow policy never refuses the check. Switching a
// policy out of shadow is one audited PUT.
import { afterEach, describe, expect, it, vi } from "vitest";
import { tallyFor } from "../../functions/core/tally";
import { CHECK_BATCH_SQL } from "../../functions/ratelimits/sql";
import { bindings, connect, SUITE_BUDGET_MS, servedApp, sql, until, withServedApp } from "../support";
import { ratelimitApi } from "./helpers";

const suite = servedApp("ratelimits_shadow", { METRICS_FLUSH_MS: "1000" }); // deny cache on (the default)
const { putPolicy, check } = ratelimitApi(suite);
const YEAR = 366 * 86_400_000;
const usage = async (policy: string, key: string) => (await suite.api("GET", `/v1/ratelimits/usage?policy=${policy}&key=${key}`)).json;
const flushed = () => until(async () => tallyFor(bindings(suite.db))?.idle ?? true, 30_000, "the tally to flush");
const shadowHeader = (r: { headers: Headers }) => r.headers.get("admit-ratelimit-shadow");

afterEach(() => vi.restoreAllMocks());

describe("a shadow policy under a burst", () => {
  it("limit 50, 1 000 simultaneous checks → 1 000 × 200, exactly 950 would-refuse; usage, counters and /metrics say 50 / 950", async () => {
    await putPolicy("shadow-burst", { algorithm: "fixed_window", limit: 50, window_ms: YEAR, timeout_ms: 30_000, shadow: true });
    const results = await Promise.all(Array.from({ length: 1000 }, () => check("shadow-burst", "cust")));
    const statuses = results.map((r) => r.status);
    console.log("shadow burst:", { ok: statuses.filter((s) => s === 200).length, other: statuses.filter((s) => s !== 200) });
    expect(statuses.every((s) => s === 200)).toBe(true);
    const would = results.filter((r) => shadowHeader(r) === "would-refuse");
    expect(would).toHaveLength(950);
    for (const r of would) expect(r.json).toMatchObject({ allowed: true, shadow: true, remaining: 0, reason: "limit" });
    for (const r of results.filter((x) => shadowHeader(x) === null)) expect(r.json.shadow).toBeUndefined();
    // A shadow answer is never a refusal: no Retry-After, and the deny cache never answers it.
    expect(results.every((r) => r.headers.get("retry-after") === null && r.headers.get("admit-cache") === "miss")).toBe(true);
    // Refusals the committed counter decides are answered from a read and counted by the tally.
    await flushed();
    expect(await usage("shadow-burst", "cust")).toMatchObject({ admitted: 50, attempted: 1000, rejected: 950, would_refuse: 950, consumed: 50, shadow: true });
    expect(await sql(suite.db, "SELECT admitted::int, rejected::int, would_refuse::int FROM ratelimit_counters WHERE policy = 'shadow-burst'")).toEqual([
      { admitted: 50, rejected: 950, would_refuse: 950 },
    ]);
    const metrics = (await suite.api("GET", "/metrics")).text;
    expect(metrics).toContain('admit_ratelimit_decisions_total{outcome="allowed",policy="shadow-burst"} 50');
    expect(metrics).toContain('admit_ratelimit_decisions_total{outcome="would_refuse",policy="shadow-burst"} 950');
    expect(metrics).not.toContain('outcome="denied",policy="shadow-burst"');
    const minutes = (await suite.api("GET", "/v1/ratelimits/policies/shadow-burst/decisions?minutes=5")).json.items;
    expect(minutes.reduce((s: number, m: { would_refuse: number }) => s + m.would_refuse, 0)).toBe(950);
  }, 240_000);
});

describe("switching in and out of shadow", () => {
  it("one audited PUT: enforced at once in this isolate; back in shadow, let through again", async () => {
    const body = { algorithm: "fixed_window", limit: 1, window_ms: YEAR };
    await putPolicy("toggle", { ...body, shadow: true });
    expect((await check("toggle", "k")).status).toBe(200);
    const over = await check("toggle", "k");
    expect([over.status, shadowHeader(over)]).toEqual([200, "would-refuse"]);
    const put = await suite.api("PUT", "/v1/ratelimits/policies/toggle", { ...body, shadow: false });
    expect(put.json.shadow).toBe(false);
    const refused = await check("toggle", "k");
    expect([refused.status, shadowHeader(refused), refused.json.shadow]).toEqual([429, null, undefined]);
    await putPolicy("toggle", { ...body, shadow: true });
    expect((await check("toggle", "k")).status).toBe(200);
    const audit = await sql<{ shadow: boolean }>(
      suite.db,
      "SELECT (change->>'shadow')::boolean AS shadow FROM admit_audit WHERE action = 'ratelimits.policy.put' AND target = 'toggle' ORDER BY id",
    );
    expect(audit.map((a) => a.shadow)).toEqual([true, false, true]);
    expect((await suite.api("GET", "/v1/ratelimits/policies/toggle")).json.shadow).toBe(true);
  });
});

describe("the forward-auth check (/v1/authz) honours it", () => {
  it("a gateway's request over a shadow limit passes (200) with the would-refuse header; enforced, 429", async () => {
    const body = { algorithm: "fixed_window", limit: 1, window_ms: YEAR };
    await putPolicy("az-shadow", { ...body, shadow: true });
    const authz = () => suite.api("GET", "/v1/authz?policy=az-shadow&key=ip", undefined, { "X-Real-IP": "203.0.113.7" });
    expect((await authz()).status).toBe(200);
    const over = await authz();
    expect([over.status, shadowHeader(over), over.json.shadow]).toEqual([200, "would-refuse", true]);
    await putPolicy("az-shadow", { ...body, shadow: false });
    expect((await authz()).status).toBe(429);
  });
});

describe("an override in shadow mode", () => {
  it("puts its key in shadow while in force; other keys stay enforced", async () => {
    await putPolicy("ov", { algorithm: "sliding_window", limit: 1, window_ms: YEAR });
    const o = await suite.api("PUT", "/v1/ratelimits/policies/ov/overrides/trial", { limit: 2, valid_from: "2020-01-01T00:00:00Z", shadow: true });
    expect(o.status, o.text).toBe(201);
    expect(o.json.shadow).toBe(true);
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await check("ov", "trial"));
    expect(answers.map((a) => [a.status, shadowHeader(a)])).toEqual([
      [200, null],
      [200, null],
      [200, "would-refuse"],
      [200, "would-refuse"],
    ]);
    expect(answers[2].json).toMatchObject({ limit: 2, shadow: true });
    expect(await usage("ov", "trial")).toMatchObject({ admitted: 2, would_refuse: 2, shadow: true });
    expect((await check("ov", "other")).status).toBe(200);
    expect((await check("ov", "other")).status).toBe(429);
    expect((await usage("ov", "other")).shadow).toBe(false);
  });
});

describe("a coalesced batch's answers", () => {
  it("no policy of the batch in shadow and no override of it: answered as decided, without a shadow look-up per answer; an override in shadow marks its key", async () => {
    await putPolicy("batch-enforced", { algorithm: "fixed_window", limit: 5, window_ms: YEAR });
    const c = await connect(suite.db);
    type Answer = { allowed: boolean; key: string; shadow?: boolean };
    // The statement the Worker's coalescer sends, in a transaction of its own, with the calls of the
    // shadow functions counted (track_functions) in that transaction.
    const batch = async () => {
      const items = Array.from({ length: 16 }, (_, i) => ({ k: i < 8 ? "a" : "b", p: "batch-enforced", c: 1, i: null }));
      await c.query("BEGIN");
      try {
        const { rows } = await c.query(CHECK_BATCH_SQL, [JSON.stringify(items), 1000, true]);
        const { rows: calls } = await c.query(
          "SELECT funcname, calls::int FROM pg_stat_xact_user_functions WHERE funcname IN ('admit_ratelimit_shadowed', 'admit_ratelimit_in_shadow') ORDER BY funcname",
        );
        await c.query("COMMIT");
        return { answers: rows[0].r as Answer[], calls };
      } catch (err) {
        await c.query("ROLLBACK");
        throw err;
      }
    };
    try {
      await c.query("SET track_functions = 'all'");
      const enforced = await batch();
      const five = [true, true, true, true, true, false, false, false];
      expect(enforced.answers.map((a) => a.allowed)).toEqual([...five, ...five]);
      expect(enforced.answers.every((a) => a.shadow === undefined)).toBe(true);
      expect(enforced.calls).toEqual([]);
      const o = await suite.api("PUT", "/v1/ratelimits/policies/batch-enforced/overrides/b", { limit: 5, valid_from: "2020-01-01T00:00:00Z", shadow: true });
      expect(o.status, o.text).toBe(201);
      const shadowed = await batch();
      expect(shadowed.answers.filter((a) => a.key === "a").map((a) => [a.allowed, a.shadow ?? false])).toEqual(Array(8).fill([false, false]));
      expect(shadowed.answers.filter((a) => a.key === "b").map((a) => [a.allowed, a.shadow ?? false])).toEqual(Array(8).fill([false, true]));
    } finally {
      await c.end();
    }
  });
});

describe("several policies with one in shadow", () => {
  it("the shadow policy never refuses the check and is reported; an enforced one still refuses, alone named", async () => {
    await putPolicy("m-enforced", { algorithm: "fixed_window", limit: 3, window_ms: YEAR });
    await putPolicy("m-shadow", { algorithm: "token_bucket", limit: 1, window_ms: YEAR, shadow: true });
    const multi = () => suite.api("POST", "/v1/ratelimits/check", { policies: ["m-enforced", "m-shadow"], key: "k" });
    const a = [await multi(), await multi(), await multi(), await multi()];
    expect(a.map((r) => [r.status, shadowHeader(r)])).toEqual([
      [200, null],
      [200, "would-refuse"],
      [200, "would-refuse"],
      [429, null],
    ]);
    expect(a[1].json).toMatchObject({ allowed: true, shadow: true });
    expect(a[1].json.results[1]).toMatchObject({ policy: "m-shadow", allowed: false, shadow: true });
    expect(a[1].json.results[0]).toMatchObject({ policy: "m-enforced", allowed: true });
    expect(a[3].json["violated-policies"]).toEqual(["m-enforced"]);
    // The enforced policy spent its 3; the shadow bucket only its one unit, as if it had refused the rest.
    expect(await usage("m-enforced", "k")).toMatchObject({ admitted: 3, consumed: 3 });
    expect(
      await sql(suite.db, "SELECT consumed::int, admitted::int, would_refuse::int FROM ratelimit_counters WHERE policy = 'm-shadow' AND key = 'k'"),
    ).toEqual([{ consumed: 1, admitted: 1, would_refuse: 2 }]);
  });
});

describe("the decision log", () => {
  it("a shadow refusal is logged as would_refuse, naming the shadow policy", async () => {
    await putPolicy("logged-shadow", { algorithm: "fixed_window", limit: 1, window_ms: YEAR, shadow: true });
    const lines: unknown[] = [];
    vi.spyOn(console, "log").mockImplementation((x: unknown) => void lines.push(x));
    await withServedApp(bindings(suite.db, { DB_BUDGET_MS: SUITE_BUDGET_MS, DECISION_LOG_LEVEL: "info", DECISION_LOG_SAMPLE: "1" }), async (api) => {
      const call = () => api("POST", "/v1/ratelimits/check", { policy: "logged-shadow", key: "k" });
      expect([(await call()).status, (await call()).status]).toEqual([200, 200]);
    });
    const decisions = lines.filter((l) => (l as { event?: string })?.event === "admit.ratelimit.decision") as Array<Record<string, unknown>>;
    expect(decisions.map((d) => [d.outcome, d.level, d.shadow_policies])).toEqual([["would_refuse", "info", ["logged-shadow"]]]);
  });
});
