// /v1/authz, the forward-auth check for API gateways (issue 30): any method, parameters in the query
// (or the Admit-Authz header below /v1/authz/), the key from a header or the client address, the
// same decision as POST /v1/ratelimits/check, and bad input always a 4xx problem, never an allow.
// The gateways themselves: test/gateways/.
import { parseList } from "structured-headers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Bridge, startBridge } from "../../dev/bridge";
import { tallyFor } from "../../functions/core/tally";
import { bindings, client, type Served, serveApp, servedApp, sql, until, withFaults } from "../support";
import { tallyFlushed } from "./helpers";

const suite = servedApp("ratelimits_authz", { RATELIMIT_DENY_CACHE: "off" });
const cached = servedApp("ratelimits_authz_cache");
const LONG = 366 * 86_400_000;

async function policy(api: typeof suite.api, name: string, body: Record<string, unknown> = {}) {
  const res = await api("PUT", `/v1/ratelimits/policies/${name}`, { algorithm: "fixed_window", limit: 20, window_ms: LONG, timeout_ms: 60_000, ...body });
  expect([200, 201], res.text).toContain(res.status);
}

const authz = (query: string, headers: Record<string, string> = {}, method = "GET", api = suite.api) => api(method, `/v1/authz${query}`, undefined, headers);

function counters(db: string, key: string) {
  return sql<{ policy: string; consumed: number; admitted: number; attempted: number; rejected: number }>(
    db,
    "SELECT policy, consumed::int, admitted::int, attempted::int, rejected::int FROM ratelimit_counters WHERE key = $1 ORDER BY policy",
    [key],
  );
}

const names = (value: string | null) => parseList(value ?? "").map(([bare]) => bare);

describe("/v1/authz: bad input is a clear 4xx problem, never a 500 and never an allow", () => {
  beforeAll(async () => {
    for (const p of ["az-bad", "az-bad2"]) await policy(suite.api, p);
  });

  const tenKb = "k".repeat(10 * 1024);
  const cases: Array<{ what: string; query: string; headers?: Record<string, string>; status: number; type: string; path?: string }> = [
    { what: "no parameters", query: "", status: 422, type: "validation", path: "policy" },
    { what: "no policy", query: "?key=ip", status: 422, type: "validation", path: "policy" },
    {
      what: "9 policies",
      query: `?${Array.from({ length: 9 }, (_, i) => `policy=p${i}`).join("&")}&key=ip`,
      status: 422,
      type: "validation",
      path: "policy",
    },
    { what: "the same policy twice", query: "?policy=az-bad&policy=az-bad&key=ip", status: 422, type: "validation", path: "policy" },
    { what: "a policy name outside the rules", query: "?policy=a%20b&key=ip", status: 422, type: "validation", path: "policy" },
    { what: "an unknown policy", query: "?policy=az-nope&key=header:X-Api-Key", headers: { "X-Api-Key": "c1" }, status: 404, type: "not-found" },
    {
      what: "one unknown policy among several",
      query: "?policy=az-bad&policy=az-nope&key=header:X-Api-Key",
      headers: { "X-Api-Key": "c1" },
      status: 404,
      type: "not-found",
    },
    { what: "no key parameter", query: "?policy=az-bad", status: 422, type: "validation", path: "key" },
    { what: "a malformed key", query: "?policy=az-bad&key=cookie", status: 422, type: "validation", path: "key" },
    { what: "header: with no name", query: "?policy=az-bad&key=header:", status: 422, type: "validation", path: "key" },
    { what: "a header name with CR/LF", query: "?policy=az-bad&key=header:X-Api-Key%0D%0AX-Evil", status: 422, type: "validation", path: "key" },
    { what: "a header name with a colon", query: "?policy=az-bad&key=header:X:Y", status: 422, type: "validation", path: "key" },
    { what: "Authorization (Admit's own credential here)", query: "?policy=az-bad&key=header:Authorization", status: 422, type: "validation", path: "key" },
    { what: "5 key sources", query: "?policy=az-bad&key=ip&key=header:A&key=header:B&key=header:C&key=header:D", status: 422, type: "validation", path: "key" },
    { what: "a negative cost", query: "?policy=az-bad&key=ip&cost=-1", status: 422, type: "validation", path: "cost" },
    { what: "a fractional cost", query: "?policy=az-bad&key=ip&cost=1.5", status: 422, type: "validation", path: "cost" },
    { what: "cost twice", query: "?policy=az-bad&key=ip&cost=1&cost=2", status: 422, type: "validation", path: "cost" },
    { what: "deny_status 200 (an allow)", query: "?policy=az-bad&key=ip&deny_status=200", status: 422, type: "validation", path: "deny_status" },
    { what: "deny_status 500", query: "?policy=az-bad&key=ip&deny_status=500", status: 422, type: "validation", path: "deny_status" },
    { what: "on_missing other than deny/allow", query: "?policy=az-bad&key=ip&on_missing=maybe", status: 422, type: "validation", path: "on_missing" },
    { what: "trusted_hops over 10", query: "?policy=az-bad&key=ip&trusted_hops=11", status: 422, type: "validation", path: "trusted_hops" },
    { what: "trusted_hops without key=ip", query: "?policy=az-bad&key=header:X-A&trusted_hops=1", status: 422, type: "validation", path: "trusted_hops" },
    { what: "an unknown parameter (a typo)", query: "?policy=az-bad&key=ip&polcy=x", status: 422, type: "validation", path: "polcy" },
    {
      what: "a 10 KB key",
      query: "?policy=az-bad&key=header:X-Api-Key",
      headers: { "X-Api-Key": tenKb },
      status: 429,
      type: "ratelimit-key-invalid",
    },
    {
      what: "a 10 KB key, deny_status=403",
      query: "?policy=az-bad&key=header:X-Api-Key&deny_status=403",
      headers: { "X-Api-Key": tenKb },
      status: 403,
      type: "ratelimit-key-invalid",
    },
    {
      what: "an X-Forwarded-For entry that is no address",
      query: "?policy=az-bad&key=ip",
      headers: { "X-Forwarded-For": "203.0.113.9, not-an-ip" },
      status: 429,
      type: "ratelimit-key-invalid",
    },
    { what: "no key header (on_missing=deny)", query: "?policy=az-bad&key=header:X-Api-Key", status: 429, type: "ratelimit-key-missing" },
    { what: "no key header, deny_status=401", query: "?policy=az-bad&key=header:X-Api-Key&deny_status=401", status: 401, type: "ratelimit-key-missing" },
    { what: "an empty key header", query: "?policy=az-bad&key=header:X-Api-Key", headers: { "X-Api-Key": "  " }, status: 429, type: "ratelimit-key-missing" },
    {
      what: "fewer X-Forwarded-For entries than trusted_hops + 1",
      query: "?policy=az-bad&key=ip&trusted_hops=2",
      headers: { "X-Forwarded-For": "203.0.113.9, 10.0.0.1" },
      status: 429,
      type: "ratelimit-key-missing",
    },
  ];

  for (const c of cases) {
    it(`${c.what} → ${c.status} ${c.type}`, async () => {
      for (const method of ["GET", "POST"]) {
        const res = await authz(c.query, c.headers, method);
        expect(res.status, `${method} ${res.text}`).toBe(c.status);
        expect(res.headers.get("content-type")).toBe("application/problem+json");
        expect(res.json).toMatchObject({ type: `/problems/${c.type}`, status: c.status });
        expect(res.json.detail).toEqual(expect.any(String));
        if (c.path) expect(res.json.errors.map((e: { path: string }) => e.path)).toContain(c.path);
        expect(res.headers.get("ratelimit")).toBeNull();
      }
    });
  }

  it("nothing above was counted on any key", async () => {
    const rows = await sql<{ n: number }>(suite.db, "SELECT count(*)::int AS n FROM ratelimit_counters WHERE policy IN ('az-bad', 'az-bad2')");
    expect(rows[0].n).toBe(0);
  });

  it("a body over 64 KiB → 413; the gateway's own token is required (401 without it)", async () => {
    const big = await suite.api("POST", "/v1/authz?policy=az-bad&key=ip", "x".repeat(70_000), {
      "Content-Type": "application/json",
      "X-Real-IP": "203.0.113.1",
    });
    expect(big.status).toBe(413);
    const anonymous = await client(suite.server.url, null)("GET", "/v1/authz?policy=az-bad&key=ip", undefined, { "X-Real-IP": "203.0.113.1" });
    expect(anonymous.status).toBe(401);
    const wrong = await client(suite.server.url, "not-the-token")("GET", "/v1/authz?policy=az-bad&key=ip", undefined, { "X-Real-IP": "203.0.113.1" });
    expect(wrong.status).toBe(401);
    expect(await counters(suite.db, "203.0.113.1")).toEqual([]);
  });
});

describe("/v1/authz decides as POST /v1/ratelimits/check", () => {
  it("allowed → 200 with RateLimit-Policy / RateLimit; denied → 429 rate-limited with Retry-After and the same headers", async () => {
    await policy(suite.api, "az-one", { limit: 2 });
    const q = "?policy=az-one&key=header:X-Api-Key";
    const first = await authz(q, { "X-Api-Key": "cust-1" });
    expect(first.status, first.text).toBe(200);
    expect(first.json).toMatchObject({ allowed: true, policy: "az-one", key: "cust-1", limit: 2, remaining: 1, reason: "limit" });
    expect(first.headers.get("ratelimit-policy")).toBe(`"az-one";q=2;w=${LONG / 1000}`);
    expect(parseList(first.headers.get("ratelimit")!)[0][1].get("r")).toBe(1);
    expect(first.headers.get("retry-after")).toBeNull();
    expect((await authz(q, { "X-Api-Key": "cust-1" })).status).toBe(200);
    const third = await authz(q, { "X-Api-Key": "cust-1" });
    expect(third.status).toBe(429);
    expect(third.headers.get("content-type")).toBe("application/problem+json");
    expect(third.json).toMatchObject({ type: "/problems/rate-limited", status: 429, allowed: false, key: "cust-1", remaining: 0 });
    expect(Number(third.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(third.headers.get("ratelimit-policy")).toBe(`"az-one";q=2;w=${LONG / 1000}`);
    expect(parseList(third.headers.get("ratelimit")!)[0][1].get("r")).toBe(0);
    // Another key has its own count.
    expect((await authz(q, { "X-Api-Key": "cust-2" })).status).toBe(200);
    await tallyFlushed(suite.db);
    expect(await counters(suite.db, "cust-1")).toEqual([{ policy: "az-one", consumed: 2, admitted: 2, attempted: 3, rejected: 1 }]);
  });

  it("deny_status=403 (nginx): 403 with Retry-After, the RateLimit headers and the problem", async () => {
    await policy(suite.api, "az-403", { limit: 1 });
    const q = "?policy=az-403&key=header:X-Api-Key&deny_status=403";
    expect((await authz(q, { "X-Api-Key": "c" })).status).toBe(200);
    const res = await authz(q, { "X-Api-Key": "c" });
    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({ type: "/problems/rate-limited", status: 403 });
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(names(res.headers.get("ratelimit"))).toEqual(["az-403"]);
  });

  it("counts are the check route's: the two interleaved on one key share one counter", async () => {
    await policy(suite.api, "az-same", { limit: 5 });
    const answers: number[] = [];
    for (let i = 0; i < 4; i++) {
      answers.push((await authz("?policy=az-same&key=header:X-Api-Key", { "X-Api-Key": "shared" })).status);
      answers.push((await suite.api("POST", "/v1/ratelimits/check", { policy: "az-same", key: "shared" })).status);
    }
    expect(answers).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
    await tallyFlushed(suite.db);
    expect(await counters(suite.db, "shared")).toEqual([{ policy: "az-same", consumed: 5, admitted: 5, attempted: 8, rejected: 3 }]);
    const usage = await suite.api("GET", "/v1/ratelimits/usage?policy=az-same&key=shared");
    expect(usage.json).toMatchObject({ admitted: 5, attempted: 8, rejected: 3 });
  });

  it("cost: cost=3 takes 3 units; cost=0 peeks", async () => {
    await policy(suite.api, "az-cost", { limit: 4 });
    const q = (cost: number) => `?policy=az-cost&key=header:X-Api-Key&cost=${cost}`;
    expect((await authz(q(3), { "X-Api-Key": "cost-c" })).json).toMatchObject({ remaining: 1 });
    expect((await authz(q(0), { "X-Api-Key": "cost-c" })).status).toBe(200);
    expect((await authz(q(2), { "X-Api-Key": "cost-c" })).status).toBe(429);
    await tallyFlushed(suite.db);
    expect(await counters(suite.db, "cost-c")).toEqual([{ policy: "az-cost", consumed: 3, admitted: 1, attempted: 2, rejected: 1 }]);
  });

  it("several policies: all-or-nothing, quota-exceeded naming the violated one, one header item per policy", async () => {
    await policy(suite.api, "az-burst", { limit: 2 });
    await policy(suite.api, "az-daily", { limit: 10 });
    const q = "?policy=az-burst&policy=az-daily&key=header:X-Api-Key";
    for (let i = 0; i < 2; i++) expect((await authz(q, { "X-Api-Key": "multi" })).status).toBe(200);
    const res = await authz(q, { "X-Api-Key": "multi" });
    expect(res.status).toBe(429);
    expect(res.json).toMatchObject({ type: "/problems/quota-exceeded", "violated-policies": ["az-burst"] });
    expect(names(res.headers.get("ratelimit-policy"))).toEqual(["az-burst", "az-daily"]);
    expect(await counters(suite.db, "multi")).toMatchObject([
      { policy: "az-burst", consumed: 2 },
      { policy: "az-daily", consumed: 2, rejected: 1 },
    ]);
  });

  it("any method decides the same way, and HEAD and OPTIONS count too", async () => {
    await policy(suite.api, "az-methods", { limit: 6 });
    const q = "?policy=az-methods&key=header:X-Api-Key";
    const statuses: number[] = [];
    for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"]) statuses.push((await authz(q, { "X-Api-Key": "m" }, method)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429]);
  });

  it("a client's Idempotency-Key passed through is ignored: a decision is never replayed", async () => {
    await policy(suite.api, "az-idem", { limit: 1 });
    const h = { "X-Api-Key": "i", "Idempotency-Key": "from-the-client" };
    expect((await authz("?policy=az-idem&key=header:X-Api-Key", h, "POST")).status).toBe(200);
    const again = await authz("?policy=az-idem&key=header:X-Api-Key", h, "POST");
    expect(again.status).toBe(429);
    expect(again.headers.get("idempotent-replayed")).toBeNull();
  });

  it("300 simultaneous checks of one key on a limit of 20 → exactly 20 × 200, 280 × 429 with Retry-After; the counter agrees", async () => {
    await policy(suite.api, "az-burst300", { limit: 20 });
    const all = await Promise.all(Array.from({ length: 300 }, () => authz("?policy=az-burst300&key=ip", { "X-Forwarded-For": "198.51.100.7" })));
    const by = (s: number) => all.filter((r) => r.status === s);
    expect(all.map((r) => r.status).filter((s) => s !== 200 && s !== 429)).toEqual([]);
    expect(by(200).length).toBe(20);
    expect(by(429).length).toBe(280);
    expect(by(429).every((r) => Number(r.headers.get("retry-after")) > 0 && r.headers.get("ratelimit") !== null)).toBe(true);
    await tallyFlushed(suite.db);
    expect(await counters(suite.db, "198.51.100.7")).toEqual([{ policy: "az-burst300", consumed: 20, admitted: 20, attempted: 300, rejected: 280 }]);
  });

  it("the deny cache answers a denied key without the database (Admit-Cache: hit), as the check route's does", async () => {
    await policy(cached.api, "az-cached", { limit: 1 });
    const q = "?policy=az-cached&key=header:X-Api-Key";
    const first = await authz(q, { "X-Api-Key": "dc" }, "GET", cached.api);
    expect(first.status).toBe(200);
    expect(first.headers.get("admit-cache")).toBe("miss");
    // The admit left nothing: the isolate remembers the key as denied.
    const hit = await authz(q, { "X-Api-Key": "dc" }, "GET", cached.api);
    expect(hit.status).toBe(429);
    expect(hit.headers.get("admit-cache")).toBe("hit");
    expect(hit.json.reason).toBe("cache");
    // Counted as the check route counts it: through the isolate's tally, once it has flushed.
    await until(async () => tallyFor(bindings(cached.db))?.idle ?? true, 30_000, "the tally to flush");
    expect(await counters(cached.db, "dc")).toMatchObject([{ admitted: 1, attempted: 2, rejected: 1 }]);
  });
});

describe("/v1/authz: where the key comes from", () => {
  it("key=ip takes the right-most X-Forwarded-For entry (the gateway's), whatever the client wrote to its left", async () => {
    await policy(suite.api, "az-ip", { limit: 100 });
    const spoofed = await authz("?policy=az-ip&key=ip", { "X-Forwarded-For": "1.1.1.1, 192.0.2.10" });
    expect(spoofed.json.key).toBe("192.0.2.10");
    // trusted_hops=1: one trusted proxy appended after the gateway's hop.
    const behindLb = await authz("?policy=az-ip&key=ip&trusted_hops=1", { "X-Forwarded-For": "1.1.1.1, 192.0.2.11, 10.0.0.2" });
    expect(behindLb.json.key).toBe("192.0.2.11");
    // No X-Forwarded-For: X-Real-IP. IPv6 in brackets and upper case is one key.
    expect((await authz("?policy=az-ip&key=ip", { "X-Real-IP": "192.0.2.12" })).json.key).toBe("192.0.2.12");
    expect((await authz("?policy=az-ip&key=ip", { "X-Forwarded-For": "[2001:DB8::1]" })).json.key).toBe("2001:db8::1");
    expect((await authz("?policy=az-ip&key=ip", { "X-Forwarded-For": "2001:db8::1" })).json.key).toBe("2001:db8::1");
  });

  it("a fallback chain: the first source present wins, prefixed by its source; none → on_missing", async () => {
    await policy(suite.api, "az-chain", { limit: 100 });
    const q = "?policy=az-chain&key=header:X-Api-Key&key=ip";
    expect((await authz(q, { "X-Api-Key": "abc", "X-Forwarded-For": "192.0.2.1" })).json.key).toBe("x-api-key:abc");
    expect((await authz(q, { "X-Forwarded-For": "192.0.2.1" })).json.key).toBe("ip:192.0.2.1");
    expect((await authz(q)).status).toBe(429);
    const allowed = await authz(`${q}&on_missing=allow`);
    expect(allowed.status).toBe(200);
    expect(allowed.json).toMatchObject({ allowed: true, reason: "no-key" });
  });

  it("a header named ip in a chain is labelled as a header: it never equals the client address's key", async () => {
    await policy(suite.api, "az-chain-ip", { limit: 1 });
    const q = "?policy=az-chain-ip&key=header:IP&key=ip";
    // The address's key takes its one unit; a client sending that address in an `ip` header is another key.
    const byAddress = await authz(q, { "X-Forwarded-For": "192.0.2.77" });
    expect(byAddress.json.key).toBe("ip:192.0.2.77");
    const byHeader = await authz(q, { IP: "192.0.2.77", "X-Forwarded-For": "198.51.100.1" });
    expect(byHeader.status).toBe(200);
    expect(byHeader.json.key).toBe("header/ip:192.0.2.77");
    expect((await counters(suite.db, "ip:192.0.2.77")).map((r) => r.admitted)).toEqual([1]);
    expect((await counters(suite.db, "header/ip:192.0.2.77")).map((r) => r.admitted)).toEqual([1]);
  });

  it("below /v1/authz/ (Envoy's path_prefix) the parameters come from Admit-Authz; the client's query is never read", async () => {
    await policy(suite.api, "az-prefix", { limit: 1 });
    await policy(suite.api, "az-roomy", { limit: 1000 });
    const h = { "Admit-Authz": "policy=az-prefix&key=header:X-Api-Key", "X-Api-Key": "env" };
    const first = await suite.api("POST", "/v1/authz/api/orders?policy=az-roomy&key=ip", undefined, h);
    expect(first.status, first.text).toBe(200);
    expect(first.json).toMatchObject({ policy: "az-prefix", key: "env" });
    const second = await suite.api("GET", "/v1/authz/api/orders?policy=az-roomy&key=ip&cost=0", undefined, h);
    expect(second.status).toBe(429);
    const none = await suite.api("GET", "/v1/authz/api/orders?policy=az-roomy&key=ip", undefined, { "X-Api-Key": "env" });
    expect(none.status).toBe(422);
    expect(none.json.errors[0]).toMatchObject({ in: "header", path: "Admit-Authz" });
    const bad = await suite.api("GET", "/v1/authz/x", undefined, { "Admit-Authz": "policy=az-prefix&key=header:Bad%0AName" });
    expect(bad.status).toBe(422);
    expect(bad.json.errors[0]).toMatchObject({ in: "header", path: "Admit-Authz.key" });
  });
});

describe("/v1/authz when the database does not answer: the policies' fail mode, as the check route", () => {
  let bridge: Bridge;
  let app: Served;
  let api: ReturnType<typeof client>;
  beforeAll(async () => {
    bridge = await startBridge();
    app = await serveApp(bindings(suite.db, { NEON_WS_PROXY: bridge.wsProxy, RATELIMIT_DENY_CACHE: "off" }));
    api = client(app.url);
    await policy(api, "az-open", { timeout_ms: 1000, on_unavailable: "allow" });
    await policy(api, "az-closed", { timeout_ms: 1000, on_unavailable: "deny" });
  });
  afterAll(async () => {
    await app?.close();
    await bridge?.close();
  });

  it("fail open → 200 with Admit-RateLimit-Enforced: false; fail closed → 503 with Retry-After (never an allow)", async () => {
    const open = await withFaults(bridge, { refuse: true }, () => authz("?policy=az-open&key=ip", { "X-Real-IP": "192.0.2.50" }, "GET", api));
    expect(open.status, open.text).toBe(200);
    expect(open.headers.get("admit-ratelimit-enforced")).toBe("false; reason=unavailable");
    expect(open.json).toMatchObject({ allowed: true, reason: "unavailable", consumed: "none" });
    const closed = await withFaults(bridge, { refuse: true }, () => authz("?policy=az-closed&key=ip", { "X-Real-IP": "192.0.2.50" }, "GET", api));
    expect(closed.status, closed.text).toBe(503);
    expect(closed.headers.get("content-type")).toBe("application/problem+json");
    expect(Number(closed.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(closed.json).toMatchObject({ reason: "unavailable", consumed: "none" });
    // One fail-closed policy among fail-open ones decides.
    const both = await withFaults(bridge, { refuse: true }, () => authz("?policy=az-open&policy=az-closed&key=ip", { "X-Real-IP": "192.0.2.50" }, "GET", api));
    expect(both.status).toBe(503);
  });
});
