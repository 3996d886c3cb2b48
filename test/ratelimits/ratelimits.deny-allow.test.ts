// Deny and allow lists (functions/ratelimits/lists/): entries for a key, a key prefix, an address or
// network (v4, v6) and a country, per policy or global, with an expiry and a reason. Denied → 403
// `denied-by-list` before any counter is touched; allowed → 200 uncounted. The lists are matched in
// the isolate from one load (no statement per check: a 1 000-request burst through a bridge of its
// own costs the one load, counted at the bridge), and another isolate's copy sees a change within
// LISTS_BOUND_MS. The address matcher is checked against Postgres's own `inet <<= cidr`.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Bridge, startBridge } from "../../dev/bridge";
import { RequestDb } from "../../functions/core/db";
import { ProblemError } from "../../functions/core/errors";
import { tallyFor } from "../../functions/core/tally";
import { LISTS_BOUND_MS, LISTS_REFRESH_MS, ListCache, listCacheFor } from "../../functions/ratelimits/lists/cache";
import { contains, parseAddress, parseNetwork } from "../../functions/ratelimits/lists/ip";
import { loadLists } from "../../functions/ratelimits/lists/sql";
import { checkRateLimit } from "../../functions/ratelimits/rpc";
import { bindings, client, type Served, SUITE_BUDGET_MS, serveApp, servedApp, sql, until } from "../support";
import { ratelimitApi } from "./helpers";

const suite = servedApp("ratelimits_deny_allow");
const { putPolicy, check } = ratelimitApi(suite);
const YEAR = 366 * 86_400_000;
const body = { algorithm: "fixed_window", limit: 5, window_ms: YEAR };
const put = (list: string, entry: Record<string, unknown>, api = suite.api) => api("PUT", `/v1/ratelimits/lists/${list}`, entry);
const checkFrom = (policy: string, key: string, extra: Record<string, unknown>) => suite.api("POST", "/v1/ratelimits/check", { policy, key, ...extra });
const counterRows = async (key: string) => (await sql<{ n: number }>(suite.db, "SELECT count(*)::int AS n FROM ratelimit_counters WHERE key = $1", [key]))[0].n;

describe("the address matcher against Postgres", () => {
  it("contains() agrees with `inet <<= cidr` on 3 000 random v4 and v6 pairs, prefixes at every length", async () => {
    let seed = 42;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const v4 = () => Array.from({ length: 4 }, () => (rnd(4) === 0 ? 10 : rnd(256))).join(".");
    const v6 = () => Array.from({ length: 8 }, () => (rnd(3) === 0 ? "0" : rnd(65536).toString(16))).join(":");
    const pairs: Array<[string, string]> = [];
    for (let i = 0; i < 3000; i++) {
      const six = rnd(2) === 0;
      const net = six ? v6() : v4();
      // Half the addresses share the network's first bits (near it), half are anywhere.
      let addr = six ? v6() : v4();
      if (rnd(2) === 0)
        addr = six
          ? `${net
              .split(":")
              .slice(0, 1 + rnd(6))
              .join(":")}::${rnd(65536).toString(16)}`
          : `${net.split(".").slice(0, 3).join(".")}.${rnd(256)}`;
      pairs.push([addr, `${net}/${rnd(six ? 129 : 33)}`]);
    }
    const rows = await sql<{ a: string; n: string; inside: boolean }>(
      suite.db,
      "SELECT a, network(n::inet)::text AS n, a::inet <<= network(n::inet) AS inside FROM unnest($1::text[], $2::text[]) AS t(a, n)",
      [pairs.map((p) => p[0]), pairs.map((p) => p[1])],
    );
    let inside = 0;
    for (const r of rows) {
      expect(contains(parseNetwork(r.n)!, parseAddress(r.a)!), `${r.a} in ${r.n}`).toBe(r.inside);
      if (r.inside) inside++;
    }
    expect(inside).toBeGreaterThan(300); // both answers are well represented
    expect(rows.length - inside).toBeGreaterThan(300);
  });

  it("reads brackets, zones, embedded and mapped IPv4; refuses what is not an address", () => {
    expect(parseAddress("[2001:db8::1]")).toEqual(parseAddress("2001:db8::1"));
    expect(parseAddress("fe80::1%eth0")).toEqual(parseAddress("fe80::1"));
    expect(parseAddress("::ffff:192.0.2.7")).toEqual(parseAddress("192.0.2.7"));
    expect(contains(parseNetwork("192.0.2.0/24")!, parseAddress("::ffff:192.0.2.99")!)).toBe(true);
    expect(contains(parseNetwork("::ffff:192.0.2.0/120")!, parseAddress("192.0.2.99")!)).toBe(true);
    expect(contains(parseNetwork("2001:db8::/32")!, parseAddress("192.0.2.1")!)).toBe(false);
    for (const bad of ["", "1.2.3", "1.2.3.256", "01.2.3.4x", "1::2::3", "1:2:3:4:5:6:7:8:9", "g::1", "::1.2.3", "host"])
      expect(parseAddress(bad), bad).toBeNull();
    for (const bad of ["1.2.3.4/33", "::/129", "1.2.3.4/", "1.2.3.4/x"]) expect(parseNetwork(bad), bad).toBeNull();
  });
});

describe("deny entries", () => {
  beforeAll(async () => {
    await putPolicy("dl-a", body);
    await putPolicy("dl-b", body);
  });

  it("by key, prefix, address, v4 and v6 network and country: 403 problem with the reason, nothing counted", async () => {
    const entries = [
      { kind: "key", value: "abuser", reason: "chargebacks" },
      { kind: "prefix", value: "bot-", reason: "scrapers" },
      { kind: "ip", value: "198.51.100.7", reason: "one address" },
      { kind: "ip", value: "203.0.113.0/24", reason: "a v4 network" },
      { kind: "ip", value: "2001:db8:bad::/48", reason: "a v6 network" },
      { kind: "country", value: "aq", reason: "no customers there" },
    ];
    for (const e of entries) {
      const r = await put("deny", { ...e, policy: "dl-a" });
      expect(r.status, r.text).toBe(201);
    }
    const stored = (await suite.api("GET", "/v1/ratelimits/lists/deny?policy=dl-a")).json.items;
    expect(stored.map((e: any) => `${e.kind} ${e.value}`)).toEqual([
      "country AQ",
      "ip 198.51.100.7/32",
      "ip 2001:db8:bad::/48",
      "ip 203.0.113.0/24",
      "key abuser",
      "prefix bot-",
    ]);
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ["abuser", {}, "chargebacks"],
      ["bot-17", {}, "scrapers"],
      ["c1", { ip: "198.51.100.7" }, "one address"],
      ["c2", { ip: "203.0.113.250" }, "a v4 network"],
      ["c3", { ip: "2001:db8:bad:42::1" }, "a v6 network"],
      ["c4", { ip: "::ffff:198.51.100.7" }, "one address"],
      ["c5", { country: "AQ" }, "no customers there"],
    ];
    for (const [key, extra, reason] of cases) {
      const r = await checkFrom("dl-a", key, extra);
      expect(r.status, `${key} ${r.text}`).toBe(403);
      expect(r.headers.get("content-type")).toBe("application/problem+json");
      expect(r.headers.get("retry-after")).toBeNull();
      expect(r.headers.get("admit-ratelimit-list")).toBe("deny");
      expect(r.json).toMatchObject({ type: "/problems/denied-by-list", status: 403, allowed: false, key, entry: { list: "deny", policy: "dl-a", reason } });
      expect(r.json.detail).toContain(reason);
      expect(await counterRows(key)).toBe(0);
    }
    // Near misses are limited as usual; the entries are dl-a's only.
    for (const [key, extra] of [
      ["abuser2", {}],
      ["bo", {}],
      ["c6", { ip: "198.51.100.8" }],
      ["c7", { ip: "203.0.114.1" }],
      ["c8", { ip: "2001:db8:bae::1" }],
      ["c9", { country: "NL" }],
    ] as const) {
      expect((await checkFrom("dl-a", key, extra)).status, key).toBe(200);
    }
    expect((await checkFrom("dl-b", "abuser", {})).status).toBe(200);
    // Several policies: a deny entry of any one refuses the check, nothing counted in either.
    const multi = await suite.api("POST", "/v1/ratelimits/check", { policies: ["dl-b", "dl-a"], key: "bot-9" });
    expect([multi.status, multi.json.policies, multi.json.entry.kind]).toEqual([403, ["dl-b", "dl-a"], "prefix"]);
    expect(await counterRows("bot-9")).toBe(0);
  });

  it("a global entry covers every policy; a key name is matched exactly (no LIKE), a bad value is a 422 naming it", async () => {
    expect((await put("deny", { kind: "key", value: "100%_off" })).status).toBe(201);
    for (const p of ["dl-a", "dl-b"]) expect((await check(p, "100%_off")).json).toMatchObject({ entry: { policy: null, kind: "key" } });
    expect((await check("dl-a", "100x_off")).status).toBe(200);
    const bad = await put("deny", { kind: "ip", value: "10.0.0.300" });
    expect([bad.status, bad.json.errors[0].path]).toEqual([422, "value"]);
    expect((await put("deny", { kind: "country", value: "NLD" })).status).toBe(422);
    expect((await checkFrom("dl-a", "x", { ip: "not-an-ip" })).status).toBe(200); // matches no ip entry
    expect((await checkFrom("dl-a", "x", { country: "NLD" })).status).toBe(422);
    expect((await put("deny", { kind: "key", value: "k", policy: "no-such" })).status).toBe(404);
  });

  it("expires: refused until expires_at, limited as usual after it (in this isolate's copy, without a reload)", async () => {
    const at = new Date(Date.now() + 2_000).toISOString();
    expect((await put("deny", { kind: "key", value: "brief", policy: "dl-a", expires_at: at })).status).toBe(201);
    expect((await check("dl-a", "brief")).status).toBe(403);
    await new Promise((r) => setTimeout(r, Date.parse(at) - Date.now() + 100));
    expect((await check("dl-a", "brief")).status).toBe(200);
    const listed = (await suite.api("GET", "/v1/ratelimits/lists/deny?policy=dl-a")).json.items.find((e: any) => e.value === "brief");
    expect(listed.expired).toBe(true);
    expect(Date.parse(listed.expires_at)).toBe(Date.parse(at));
  });

  it("DELETE removes the entry at once in this isolate and is audited; a second DELETE is a 404", async () => {
    expect((await put("deny", { kind: "key", value: "undo", policy: "dl-b", reason: "by mistake" })).status).toBe(201);
    expect((await check("dl-b", "undo")).status).toBe(403);
    expect((await suite.api("DELETE", "/v1/ratelimits/lists/deny?kind=key&value=undo&policy=dl-b")).status).toBe(204);
    expect((await check("dl-b", "undo")).status).toBe(200);
    expect((await suite.api("DELETE", "/v1/ratelimits/lists/deny?kind=key&value=undo&policy=dl-b")).status).toBe(404);
    const audit = await sql<{ action: string; target: string; change: any }>(
      suite.db,
      "SELECT action, target, change FROM admit_audit WHERE change->>'value' = 'undo' ORDER BY id",
    );
    expect(audit).toEqual([
      {
        action: "ratelimits.list.put",
        target: "dl-b",
        change: { list: "deny", policy: "dl-b", kind: "key", value: "undo", reason: "by mistake", expires_at: null },
      },
      { action: "ratelimits.list.delete", target: "dl-b", change: { list: "deny", policy: "dl-b", kind: "key", value: "undo" } },
    ]);
  });
});

describe("what a listed decision leaves behind", () => {
  it("/metrics counts list_denied and list_allowed per policy (from the tally, not counter rows)", async () => {
    await putPolicy("dl-metrics", body);
    expect((await put("deny", { kind: "key", value: "m-deny", policy: "dl-metrics" })).status).toBe(201);
    expect((await put("allow", { kind: "key", value: "m-allow", policy: "dl-metrics" })).status).toBe(201);
    for (let i = 0; i < 3; i++) expect((await check("dl-metrics", "m-deny")).status).toBe(403);
    for (let i = 0; i < 2; i++) expect((await check("dl-metrics", "m-allow")).status).toBe(200);
    await until(async () => tallyFor(bindings(suite.db))?.idle ?? true, 30_000, "the tally to flush");
    const metrics = (await suite.api("GET", "/metrics")).text;
    expect(metrics).toContain('admit_ratelimit_decisions_total{outcome="list_denied",policy="dl-metrics"} 3');
    expect(metrics).toContain('admit_ratelimit_decisions_total{outcome="list_allowed",policy="dl-metrics"} 2');
    expect(await counterRows("m-deny")).toBe(0);
    expect(await counterRows("m-allow")).toBe(0);
  });
});

describe("allow entries", () => {
  it("let the check through uncounted; deny wins over allow; several policies need every one allowed", async () => {
    await putPolicy("al-a", { ...body, limit: 1 });
    await putPolicy("al-b", { ...body, limit: 1 });
    expect((await put("allow", { kind: "prefix", value: "internal-", policy: "al-a", reason: "our jobs" })).status).toBe(201);
    for (let i = 0; i < 5; i++) {
      const r = await check("al-a", "internal-cron");
      expect(r.status).toBe(200);
      expect(r.json).toMatchObject({ allowed: true, reason: "allow-list", entry: { list: "allow", kind: "prefix", reason: "our jobs" } });
      expect(r.headers.get("admit-ratelimit-list")).toBe("allow");
    }
    expect(await counterRows("internal-cron")).toBe(0);
    // al-b has no allow entry: a check of both is limited (and counted) as usual.
    const both = () => suite.api("POST", "/v1/ratelimits/check", { policies: ["al-a", "al-b"], key: "internal-cron" });
    expect((await both()).status).toBe(200);
    expect((await both()).status).toBe(429);
    expect((await put("allow", { kind: "ip", value: "10.0.0.0/8" })).status).toBe(201); // global
    const viaIp = await suite.api("POST", "/v1/ratelimits/check", { policies: ["al-a", "al-b"], key: "internal-cron", ip: "10.1.2.3" });
    expect([viaIp.status, viaIp.json.reason]).toEqual([200, "allow-list"]);
    expect((await put("deny", { kind: "key", value: "internal-evil", policy: "al-a" })).status).toBe(201);
    expect((await check("al-a", "internal-evil")).status).toBe(403);
  });
});

describe("who may see and change entries", () => {
  it("a key limited to some policy names: their entries only, never global ones", async () => {
    await putPolicy("team-x", body);
    await putPolicy("other-x", body);
    expect((await put("deny", { kind: "key", value: "seen", policy: "other-x" })).status).toBe(201);
    const k = await suite.api("POST", "/v1/keys", { name: "team", scopes: ["ratelimits:admin"], names: ["team-*"] });
    expect(k.status, k.text).toBe(201);
    const team = client(suite.server.url, k.json.secret);
    expect((await put("deny", { kind: "key", value: "t", policy: "team-x" }, team)).status).toBe(201);
    expect((await put("deny", { kind: "key", value: "t", policy: "other-x" }, team)).status).toBe(403);
    const global = await put("deny", { kind: "key", value: "t" }, team);
    expect([global.status, global.json.detail]).toEqual([403, expect.stringContaining("(global)")]);
    expect((await team("DELETE", "/v1/ratelimits/lists/deny?kind=key&value=100%25_off")).status).toBe(403);
    const seen = (await team("GET", "/v1/ratelimits/lists/deny")).json.items;
    expect(seen.map((e: any) => [e.policy, e.value])).toEqual([["team-x", "t"]]);
    expect((await team("GET", "/v1/ratelimits/lists/deny?policy=other-x")).status).toBe(403);
  });

  it("pages every entry once, in order, whatever the page size", async () => {
    const all = (await suite.api("GET", "/v1/ratelimits/lists/deny?limit=1000")).json.items.map((e: any) => `${e.policy}|${e.kind}|${e.value}`);
    expect(all.length).toBeGreaterThan(5);
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const page: any = (await suite.api("GET", `/v1/ratelimits/lists/deny?limit=2${cursor ? `&cursor=${cursor}` : ""}`)).json;
      paged.push(...page.items.map((e: any) => `${e.policy}|${e.kind}|${e.value}`));
      cursor = page.next_cursor;
    } while (cursor);
    expect(paged).toEqual(all);
  });
});

describe("other entrances", () => {
  it("/v1/authz matches the client address it computes and CF-IPCountry; RPC matches its body's ip", async () => {
    await putPolicy("ent", body);
    expect((await put("deny", { kind: "ip", value: "192.0.2.0/28", policy: "ent" })).status).toBe(201);
    expect((await put("deny", { kind: "country", value: "KP", policy: "ent" })).status).toBe(201);
    const authz = (h: Record<string, string>) => suite.api("GET", "/v1/authz?policy=ent&key=header:X-Api-Key", undefined, { "X-Api-Key": "cust", ...h });
    const byIp = await authz({ "X-Forwarded-For": "192.0.2.9" });
    expect([byIp.status, byIp.json.type]).toEqual([403, "/problems/denied-by-list"]);
    expect((await authz({ "X-Forwarded-For": "192.0.2.16" })).status).toBe(200);
    expect((await authz({ "X-Real-IP": "198.51.100.1", "CF-IPCountry": "kp" })).status).toBe(403);
    const db = new RequestDb(bindings(suite.db, { DB_BUDGET_MS: SUITE_BUDGET_MS }));
    try {
      const err = await checkRateLimit(db, bindings(suite.db), { policy: "ent", key: "cust", ip: "192.0.2.1" }).catch((e) => e);
      expect(err).toBeInstanceOf(ProblemError);
      expect((err as ProblemError).problem).toMatchObject({ status: 403, entry: { kind: "ip", value: "192.0.2.0/28" } });
      expect(await checkRateLimit(db, bindings(suite.db), { policy: "ent", key: "cust", ip: "192.0.2.200" })).toMatchObject({ allowed: true, reason: "limit" });
    } finally {
      await db.close();
    }
  });
});

describe("a denied key under a 1 000-request burst", () => {
  let bridge: Bridge;
  let app: Served;
  beforeAll(async () => {
    bridge = await startBridge();
    // METRICS=off: no tally flush either, so every statement the bridge sees is the app's own.
    app = await serveApp(bindings(suite.db, { NEON_WS_PROXY: bridge.wsProxy, METRICS: "off", COALESCE: "off", DB_BUDGET_MS: SUITE_BUDGET_MS }));
  });
  afterAll(async () => {
    await app?.close();
    await bridge?.close();
  });

  it("1 000 refusals, zero counter rows, and the bridge sees the lists' load only — no statement per request", async () => {
    const api = client(app.url);
    await putPolicy("burst-deny", { ...body, limit: 1000 });
    expect((await api("PUT", "/v1/ratelimits/lists/deny", { kind: "key", value: "blocked", policy: "burst-deny", reason: "fraud" })).status).toBe(201);
    const cache = listCacheFor(bindings(suite.db, { NEON_WS_PROXY: bridge.wsProxy }))!;
    const before = { http: bridge.stats().httpRequests, loads: cache.loads };
    const results = await Promise.all(Array.from({ length: 1000 }, () => api("POST", "/v1/ratelimits/check", { policy: "burst-deny", key: "blocked" })));
    const statuses: Record<number, number> = {};
    for (const r of results) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    const statements = bridge.stats().httpRequests - before.http;
    const loads = cache.loads - before.loads;
    console.log("deny burst:", { statuses, statements, loads });
    expect(statuses).toEqual({ 403: 1000 });
    expect(results.every((r) => r.json.entry.reason === "fraud")).toBe(true);
    expect(await counterRows("blocked")).toBe(0);
    // The load after the PUT (this isolate forgot its copy), and one more per LISTS_REFRESH_MS the burst lasted at most.
    expect(loads).toBeGreaterThanOrEqual(1);
    expect(statements).toBe(loads);
    expect(statements).toBeLessThan(20);
  }, 240_000);
});

describe("another isolate's copy", () => {
  it("sees a change within LISTS_BOUND_MS of its load: stale answers before, a background reload from LISTS_REFRESH_MS, a waited load at the bound", async () => {
    await putPolicy("iso", body);
    let clock = 0;
    const env = bindings(suite.db, { DB_BUDGET_MS: SUITE_BUDGET_MS });
    const other = new ListCache(env, loadLists, () => clock);
    const denied = async () => (await other.current()).decide(["iso"], { key: "late" }, Date.now())?.list ?? null;
    expect(await denied()).toBeNull(); // cold: one load, waited for
    expect(other.loads).toBe(1);
    expect((await put("deny", { kind: "key", value: "late", policy: "iso" })).status).toBe(201);
    expect((await check("iso", "late")).status).toBe(403); // the writing isolate: at once
    clock = LISTS_REFRESH_MS - 1;
    expect(await denied()).toBeNull(); // young copy: believed, no load
    expect(other.loads).toBe(1);
    clock = LISTS_REFRESH_MS;
    expect(await denied()).toBeNull(); // answered from the copy; a reload starts behind it
    expect(other.loads).toBe(2);
    await (other as unknown as { inFlight: Promise<unknown> | null }).inFlight;
    expect(await denied()).toBe("deny");
    // A copy at the bound is never used: the check waits for a load.
    const third = new ListCache(env, loadLists, () => clock);
    await third.current();
    expect((await put("deny", { kind: "key", value: "later", policy: "iso" })).status).toBe(201);
    clock += LISTS_BOUND_MS;
    expect((await third.current()).decide(["iso"], { key: "later" }, Date.now())?.list).toBe("deny");
    expect(third.loads).toBe(2);
  });
});
