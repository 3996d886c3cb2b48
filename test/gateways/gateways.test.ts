// The real gateways in front of a real Admit (issue 30): Debian's nginx (auth_request), Caddy
// (forward_auth) and HAProxy (Lua httpclient), each with its config from examples/gateways/, in
// front of a small upstream that counts what reaches it, with Admit (the app on Node, its own
// Postgres database) answering /v1/authz. `npm run test:gateways`; not part of `npm test`. A
// gateway that is not installed fails the suite (never a skip).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bindings, client, freshDatabase, type Served, SUITE_BUDGET_MS, serveApp, sql, TOKEN } from "../support";
import { binary, type Gateway, silentListener, startGateway, startUpstream, type Upstream, version } from "./gateways";

const NAMES = ["nginx", "caddy", "haproxy"] as const;
const LONG = 366 * 86_400_000;
const POLICY = "gateway-api";

/**
 * The gateways' own timeout for the check: the documented 2 s where the fail mode is judged; 30 s for
 * the bursts, which judge decisions, not latency (as SUITE_BUDGET_MS: a loaded shared machine
 * queueing 300 checks past 2 s must not turn them into fail-mode answers).
 */
const CHECK_TIMEOUT_MS = 2_000;
const BURST_TIMEOUT_MS = 30_000;

/** What each example config documents for "Admit down" (docs/gateways.md). */
const FAIL_MODE = {
  nginx: { statuses: [503], reachesUpstream: false },
  caddy: { statuses: [502, 504], reachesUpstream: false },
  haproxy: { statuses: [200], reachesUpstream: true },
} as const;

let db: string;
let admit: Served;
let admitPort: number;
let upstream: Upstream;
const gateways = {} as Record<(typeof NAMES)[number], Gateway>;
const figures: string[] = [];

beforeAll(async () => {
  for (const n of NAMES) binary(n); // fails loudly, naming the package, when one is missing
  console.log(`[gateways] ${NAMES.map(version).join(" | ")}`);
  db = await freshDatabase("gateways");
  admit = await serveApp(bindings(db, { DB_BUDGET_MS: SUITE_BUDGET_MS }));
  admitPort = Number(new URL(admit.url).port);
  upstream = await startUpstream();
  for (const n of NAMES) gateways[n] = await startGateway(n, wiring(BURST_TIMEOUT_MS));
}, 120_000);

afterAll(async () => {
  for (const g of Object.values(gateways)) await g?.stop();
  await upstream?.close();
  await admit?.close().catch(() => {});
  if (figures.length) console.log(`[gateways] figures:\n${figures.join("\n")}`);
});

const wiring = (timeoutMs: number) => ({ admitAddr: `127.0.0.1:${admitPort}`, token: TOKEN, upstreamAddr: `127.0.0.1:${upstream.port}`, timeoutMs });

/** A fresh policy of limit 20 (deleting it drops its counters and this isolate's deny cache of it). */
async function freshPolicy() {
  const api = client(admit.url);
  await api("DELETE", `/v1/ratelimits/policies/${POLICY}`);
  const res = await api("PUT", `/v1/ratelimits/policies/${POLICY}`, { algorithm: "fixed_window", limit: 20, window_ms: LONG, timeout_ms: 60_000 });
  expect(res.status, res.text).toBe(201);
}

async function send(g: Gateway, headers: Record<string, string> = {}, path = "/api/orders") {
  const res = await fetch(g.url + path, { headers });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text };
}

function counter(key: string) {
  return sql<{ admitted: number; attempted: number; rejected: number; consumed: number }>(
    db,
    "SELECT admitted::int, attempted::int, rejected::int, consumed::int FROM ratelimit_counters WHERE policy = $1 AND key = $2",
    [POLICY, key],
  );
}

describe.each(NAMES)("%s in front of Admit", (name) => {
  it("300 simultaneous requests of one client on a limit of 20 → exactly 20 reach the upstream, 280 × 429 with Retry-After and RateLimit headers; Admit's counter agrees", async () => {
    await freshPolicy();
    upstream.reset();
    const g = gateways[name];
    const started = Date.now();
    const all = await Promise.all(Array.from({ length: 300 }, () => send(g, { "X-Forwarded-For": "203.0.113.66" })));
    const ms = Date.now() - started;
    const by = (s: number) => all.filter((r) => r.status === s);
    const others = all.filter((r) => r.status !== 200 && r.status !== 429).map((r) => `${r.status} ${r.text.slice(0, 200)}`);
    expect(others, g.log()).toEqual([]);
    expect(by(200).length).toBe(20);
    expect(by(429).length).toBe(280);
    expect(upstream.hits).toBe(20);
    for (const r of by(429)) {
      expect(Number(r.headers.get("retry-after")), r.text).toBeGreaterThan(0);
      expect(r.headers.get("ratelimit-policy")).toBe(`"${POLICY}";q=20;w=${LONG / 1000}`);
      expect(r.headers.get("ratelimit")).toMatch(new RegExp(`^"${POLICY}";r=0;t=\\d+$`));
    }
    // The key is the address the gateway saw, not the X-Forwarded-For the client wrote.
    const [row] = await counter("ip:127.0.0.1");
    expect(row).toMatchObject({ admitted: 20, consumed: 20 });
    expect(row.attempted).toBe(row.admitted + row.rejected);
    expect(await counter("ip:203.0.113.66")).toEqual([]);
    figures.push(
      `${name}: 300 simultaneous → ${upstream.hits} upstream, ${by(200).length} × 200, ${by(429).length} × 429 in ${ms} ms; Admit decided ${row.attempted} in Postgres (the rest from its deny cache)`,
    );
  });

  it("a client's own Authorization is its key; it reaches the upstream intact and Admit's key never reaches the upstream or the client", async () => {
    await freshPolicy();
    upstream.reset();
    const g = gateways[name];
    const burst = (who: string) => Promise.all(Array.from({ length: 30 }, () => send(g, { Authorization: `Bearer ${who}` })));
    const [a, b] = await Promise.all([burst("client-a"), burst("client-b")]);
    for (const rs of [a, b]) {
      expect(rs.filter((r) => r.status === 200).length).toBe(20);
      expect(rs.filter((r) => r.status === 429).length).toBe(10);
    }
    expect(await counter("x-client-authorization:Bearer client-a")).toMatchObject([{ admitted: 20 }]);
    expect(await counter("x-client-authorization:Bearer client-b")).toMatchObject([{ admitted: 20 }]);
    expect(upstream.hits).toBe(40);
    expect(upstream.seen.map((h) => h.authorization).sort()).toEqual([...Array(20).fill("Bearer client-a"), ...Array(20).fill("Bearer client-b")]);
    // A client cannot pick its key by sending the header the gateway fills in, nor its address, nor
    // Admit's parameters in its own query string.
    const spoof = await send(g, { "X-Client-Authorization": "Bearer client-a", "X-Forwarded-For": "198.51.100.1" }, "/api/orders?policy=other&key=ip&cost=0");
    expect(spoof.status).toBe(200);
    expect(await counter("ip:127.0.0.1")).toMatchObject([{ admitted: 1 }]);
    expect(await counter("x-client-authorization:Bearer client-a")).toMatchObject([{ admitted: 20 }]);
    const everything = [...a, ...b, spoof].map((r) => `${[...r.headers].join("\n")}\n${r.text}`).join("\n");
    expect(everything.includes(TOKEN)).toBe(false);
    expect(JSON.stringify(upstream.seen).includes(TOKEN)).toBe(false);
  });
});

describe("Admit stopped: each gateway's documented fail mode, within its own timeout", () => {
  it("refused connections, then an Admit that accepts and never answers", async () => {
    // The same configs with the documented 2 s check timeout.
    for (const n of NAMES) {
      await gateways[n].stop();
      gateways[n] = await startGateway(n, wiring(CHECK_TIMEOUT_MS));
    }
    // Still working while Admit is up.
    await freshPolicy();
    for (const n of NAMES) expect((await send(gateways[n])).status, n).toBe(200);
    await admit.close();
    const results: string[] = [];
    for (const name of NAMES) {
      const mode = FAIL_MODE[name];
      upstream.reset();
      const t0 = Date.now();
      const res = await send(gateways[name]);
      const ms = Date.now() - t0;
      expect(mode.statuses as readonly number[], `${name}: ${res.status} ${res.text}\n${gateways[name].log()}`).toContain(res.status);
      expect(upstream.hits).toBe(mode.reachesUpstream ? 1 : 0);
      if (name === "nginx") expect(res.headers.get("retry-after")).toBe("1");
      if (name === "haproxy") expect(res.headers.get("admit-ratelimit-enforced")).toBe("false");
      results.push(`${name}: Admit down (refused) → ${res.status} in ${ms} ms`);
    }
    const silent = await silentListener(admitPort);
    try {
      for (const name of NAMES) {
        const mode = FAIL_MODE[name];
        upstream.reset();
        const before = silent.accepted();
        const t0 = Date.now();
        const res = await send(gateways[name]);
        const ms = Date.now() - t0;
        const attempts = silent.accepted() - before;
        console.log(`[gateways] ${name}: Admit silent → ${res.status} in ${ms} ms, ${attempts} connection(s) to Admit`);
        // One check, sent once: a retry after a timeout could count one request twice.
        expect(attempts, name).toBe(1);
        expect(mode.statuses as readonly number[], `${name}: ${res.status} ${res.text}\n${gateways[name].log()}`).toContain(res.status);
        expect(upstream.hits).toBe(mode.reachesUpstream ? 1 : 0);
        // Its own timeout applied (a bound for a hang, generous for a shared machine; not a speed claim).
        expect(ms).toBeGreaterThanOrEqual(CHECK_TIMEOUT_MS - 100);
        expect(ms).toBeLessThan(CHECK_TIMEOUT_MS + 5_000);
        results.push(`${name}: Admit silent → ${res.status} in ${ms} ms (its timeout: ${CHECK_TIMEOUT_MS} ms)`);
      }
    } finally {
      await silent.close();
    }
    figures.push(...results);
  });
});
