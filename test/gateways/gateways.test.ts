// The real gateways in front of Admit in workerd (`wrangler dev`, the Worker's own socket, as
// `npm start` serves it): Debian's nginx (auth_request), Caddy (forward_auth) and HAProxy (Lua),
// each with its config from examples/gateways/ as it is, in front of a small upstream that counts
// what reaches it. Two ways to Admit: HTTPS through a TLS front (Debian's HAProxy with a test CA's
// certificate for admit.test, answering only for that SNI and Host, as a deployed Worker's edge
// does), and the documented loopback variant, plain HTTP. `npm run test:gateways`; not part of
// `npm test`. A gateway that is not installed fails the suite (never a skip).
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { ownSocket, startWranglerDev, type WranglerDev } from "../../dev/wrangler";
import { KEY_PREFIX } from "../../functions/core/apikeys";
import { client, freshDatabase, SUITE_BUDGET_MS, sql, TOKEN, until } from "../support";
import {
  ADMIT_HOST,
  binary,
  type Gateway,
  listenAddresses,
  makeTestCa,
  percentile,
  type Relay,
  startGateway,
  startRelay,
  startTlsFront,
  startUpstream,
  type TestCa,
  type TlsFront,
  type Upstream,
  version,
  type Wiring,
} from "./gateways";

const NAMES = ["nginx", "caddy", "haproxy"] as const;
const VARIANTS = ["https", "plain"] as const;
const POLICY = "gateway-api";
const LONG = 366 * 86_400_000;

/**
 * The gateways' own timeout for the check: the documented 2 s where the fail mode is judged; 30 s for
 * the bursts and the latency runs, which judge decisions (as SUITE_BUDGET_MS: a loaded shared machine
 * queueing checks past 2 s must not turn them into fail-mode answers), and where a request taking the
 * whole timeout is what "waits on a timeout" means.
 */
const CHECK_TIMEOUT_MS = 2_000;
const LONG_TIMEOUT_MS = 30_000;

/** What each example config documents for Admit down, silent, or its certificate refused (docs/gateways.md). */
const FAIL_MODE = {
  nginx: { stopped: 503, silent: 503, reachesUpstream: false },
  caddy: { stopped: 502, silent: 504, reachesUpstream: false },
  haproxy: { stopped: 200, silent: 200, reachesUpstream: true },
} as const;

let ca: TestCa;
let db: string;
let worker: WranglerDev;
let admitUrl: string;
let relay: Relay;
let front: TlsFront;
let upstream: Upstream;
const keys = {} as { check: string; read: string };
const figures: string[] = [];

beforeAll(async () => {
  for (const n of [...NAMES]) binary(n); // fails loudly, naming the package, when one is missing
  console.log(`[gateways] ${NAMES.map(version).join(" | ")}`);
  ca = makeTestCa();
  db = await freshDatabase("gateways");
  worker = await startWranglerDev({
    direct: true,
    vars: { DATABASE_URL: db, NEON_WS_PROXY: inject("wsProxy"), API_TOKEN: TOKEN, DB_BUDGET_MS: SUITE_BUDGET_MS, METRICS_FLUSH_MS: "300" },
    readyTimeoutMs: 150_000,
  });
  admitUrl = ownSocket(worker);
  const admit = new URL(admitUrl);
  relay = await startRelay({ host: admit.hostname, port: Number(admit.port) });
  front = await startTlsFront(ca, relay.port);
  upstream = await startUpstream();
  // The gateway's key as docs/api-keys.md recommends: ratelimits:check on its policies only.
  const api = client(admitUrl);
  for (const [k, scopes] of [
    ["check", ["ratelimits:check"]],
    ["read", ["ratelimits:read"]],
  ] as const) {
    const res = await api("POST", "/v1/keys", { name: `gateway ${k}`, scopes, names: ["gateway-*"] });
    expect(res.status, res.text).toBe(201);
    keys[k] = res.json.secret;
  }
}, 300_000);

afterAll(async () => {
  await upstream?.close();
  await front?.stop();
  await relay?.stop();
  await worker?.stop();
  if (ca) fs.rmSync(ca.dir, { recursive: true, force: true });
  if (figures.length) console.log(`[gateways] figures:\n${figures.join("\n")}`);
});

function wiring(variant: (typeof VARIANTS)[number], over: Partial<Wiring> = {}): Wiring {
  const base =
    variant === "https"
      ? { scheme: "https" as const, admitAddr: `127.0.0.1:${front.trustedPort}`, admitHost: ADMIT_HOST }
      : { scheme: "http" as const, admitAddr: `127.0.0.1:${relay.port}`, admitHost: `127.0.0.1:${relay.port}` };
  return { ...base, ca: ca.ca, token: keys.check, upstreamAddr: `127.0.0.1:${upstream.port}`, timeoutMs: LONG_TIMEOUT_MS, ...over };
}

async function withGateway<T>(name: Gateway["name"], w: Wiring, fn: (g: Gateway) => Promise<T>): Promise<T> {
  const g = await startGateway(name, w);
  try {
    return await fn(g);
  } finally {
    await g.stop();
  }
}

/** A fresh policy (deleting it drops its counters and this isolate's deny cache of it). */
async function freshPolicy(limit: number) {
  const api = client(admitUrl);
  await api("DELETE", `/v1/ratelimits/policies/${POLICY}`);
  const res = await api("PUT", `/v1/ratelimits/policies/${POLICY}`, { algorithm: "fixed_window", limit, window_ms: LONG, timeout_ms: 60_000 });
  expect(res.status, res.text).toBe(201);
}

async function send(url: string, headers: Record<string, string> = {}, path = "/api/orders") {
  const t0 = performance.now();
  const res = await fetch(url + path, { headers });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, ms: performance.now() - t0 };
}

const counter = (key: string) =>
  sql<{ admitted: number; attempted: number; rejected: number }>(
    db,
    "SELECT admitted::int, attempted::int, rejected::int FROM ratelimit_counters WHERE policy = $1 AND key = $2",
    [POLICY, key],
  );

/** admit_auth_failures_total{surface="authz",reason} on Admit's /metrics. */
async function authzFailures(reason: string): Promise<number> {
  const text = (await client(admitUrl)("GET", "/metrics")).text;
  const m = new RegExp(`^admit_auth_failures_total\\{reason="${reason}",surface="authz"\\} (\\d+)$`, "m").exec(text);
  return m ? Number(m[1]) : 0;
}

/** Nothing a client saw carries Admit's key, challenge or problem text. */
function clientSawNothingOfAdmit(rs: Array<{ headers: Headers; text: string }>) {
  const all = rs.map((r) => `${[...r.headers].join("\n")}\n${r.text}`).join("\n");
  expect(all.includes(TOKEN) || all.includes(keys.check)).toBe(false);
  expect(all.toLowerCase()).not.toContain("www-authenticate");
  expect(all).not.toContain("/problems/unauthorized");
  expect(all).not.toContain("/problems/forbidden");
  expect(all).not.toContain("bearer token");
}

describe.each(VARIANTS)("%s to Admit", (variant) => {
  describe.each(NAMES)("%s", (name) => {
    it("60 simultaneous requests on a limit of 3 → exactly 3 reach the upstream, 57 × 429 with Retry-After and RateLimit headers; Admit's counter agrees", async () => {
      await freshPolicy(3);
      upstream.reset();
      const frontBefore = front.requests().length;
      await withGateway(name, wiring(variant), async (g) => {
        // Every example listens on loopback as the suite starts it; Caddy's by its own default (BIND),
        // since its LISTEN is a port only.
        expect(listenAddresses(Number(new URL(g.url).port))).toEqual(["127.0.0.1"]);
        const all = await Promise.all(Array.from({ length: 60 }, () => send(g.url, { "X-Forwarded-For": "203.0.113.66" })));
        const others = all.filter((r) => r.status !== 200 && r.status !== 429).map((r) => `${r.status} ${r.text.slice(0, 200)}`);
        expect(others, g.log()).toEqual([]);
        expect(all.filter((r) => r.status === 200).length).toBe(3);
        expect(upstream.hits).toBe(3);
        for (const r of all.filter((x) => x.status === 429)) {
          expect(Number(r.headers.get("retry-after")), r.text).toBeGreaterThan(0);
          expect(r.headers.get("ratelimit-policy")).toBe(`"${POLICY}";q=3;w=${LONG / 1000}`);
          expect(r.headers.get("ratelimit")).toMatch(new RegExp(`^"${POLICY}";r=0;t=\\d+$`));
          expect(JSON.parse(r.text)).toMatchObject({ type: "/problems/rate-limited", status: 429 });
        }
        clientSawNothingOfAdmit(all);
        // The key is the address the gateway saw, not the X-Forwarded-For the client wrote.
        const [row] = await counter("ip:127.0.0.1");
        expect(row).toMatchObject({ admitted: 3 });
        expect(await counter("ip:203.0.113.66")).toEqual([]);
        figures.push(`${name} (${variant}): 60 simultaneous on a limit of 3 → ${upstream.hits} upstream, 57 × 429`);
      });
      const seen = front.requests().slice(frontBefore);
      if (variant === "https") {
        // Every check arrived with Admit's host name as SNI and Host, carrying the gateway's key.
        expect(seen.length).toBeGreaterThanOrEqual(3);
        expect(seen.filter((r) => r.bind !== "trusted" || r.sni !== ADMIT_HOST || r.host !== ADMIT_HOST || !r.auth || r.status === 421).slice(0, 3)).toEqual(
          [],
        );
      } else expect(seen).toEqual([]);
    }, 120_000);

    it("a client's own Authorization is its key and reaches the upstream intact; Admit's key never reaches the upstream or the client", async () => {
      await freshPolicy(3);
      upstream.reset();
      await withGateway(name, wiring(variant), async (g) => {
        const burst = (who: string) => Promise.all(Array.from({ length: 10 }, () => send(g.url, { Authorization: `Bearer ${who}` })));
        const [a, b] = await Promise.all([burst("client-a"), burst("client-b")]);
        for (const rs of [a, b]) expect(rs.map((r) => r.status).sort()).toEqual([...Array(3).fill(200), ...Array(7).fill(429)]);
        expect(await counter("x-client-authorization:Bearer client-a")).toMatchObject([{ admitted: 3 }]);
        expect(upstream.seen.map((h) => h.authorization).sort()).toEqual([...Array(3).fill("Bearer client-a"), ...Array(3).fill("Bearer client-b")]);
        // A client cannot pick its key by sending the header the gateway fills in, nor its address,
        // nor Admit's parameters in its own query string.
        const spoof = await send(g.url, { "X-Client-Authorization": "Bearer client-a", "X-Forwarded-For": "198.51.100.1" }, "/api/orders?policy=other&cost=0");
        expect(spoof.status).toBe(200);
        expect(await counter("x-client-authorization:Bearer client-a")).toMatchObject([{ admitted: 3 }]);
        clientSawNothingOfAdmit([...a, ...b, spoof]);
        expect(JSON.stringify(upstream.seen).includes(keys.check)).toBe(false);
      });
    }, 120_000);

    it("what the gateway adds per request (median, p99) against the upstream alone, Admit answering; no request waits on the gateway's timeout", async () => {
      await freshPolicy(1_000_000);
      const frontBefore = front.requests().length;
      const relayBefore = relay.accepted;
      await withGateway(name, wiring(variant), async (g) => {
        const alone: number[] = [];
        const through: number[] = [];
        for (let i = 0; i < 40; i++) {
          alone.push((await send(upstream.url)).ms);
          const r = await send(g.url);
          // Decided by Admit (its RateLimit header), not passed by a fail mode.
          expect(r.status, r.text).toBe(200);
          // (Caddy fails closed and passes no header of Admit's on an allow: its 200 is Admit's.)
          if (name !== "caddy") expect(r.headers.get("ratelimit"), `${r.text}\n${g.log()}`).toMatch(/^"gateway-api";r=\d+/);
          expect(r.headers.get("admit-ratelimit-enforced")).toBeNull();
          // A request that waited for the check's timeout took at least that long (the defect this
          // guards against: HAProxy reading Admit's answer until the connection closed).
          expect(r.ms, `${name}: a request took ${r.ms} ms, its check timeout is ${LONG_TIMEOUT_MS} ms`).toBeLessThan(LONG_TIMEOUT_MS);
          through.push(r.ms);
        }
        const f = (xs: number[]) => `median ${percentile(xs, 50).toFixed(1)} ms, p99 ${percentile(xs, 99).toFixed(1)} ms`;
        const added = through.map((t, i) => t - alone[i]);
        // The gateway kept its connections to Admit for the next checks: far fewer than 40 (the relay
        // and the front each reuse theirs to Admit too, so this counts the gateway's own).
        const connections =
          variant === "https"
            ? new Set(
                front
                  .requests()
                  .slice(frontBefore)
                  .map((r) => r.clientPort),
              ).size
            : relay.accepted - relayBefore;
        expect(connections, `${name} (${variant}): 40 checks over ${connections} connections`).toBeLessThanOrEqual(10);
        figures.push(
          `${name} (${variant}): upstream alone ${f(alone)}; through the gateway ${f(through)}; added ${f(added)} (40 sequential, ${connections} connection(s) to Admit)`,
        );
      });
    }, 180_000);

    it("a wrong key and an under-scoped key: the client gets the gateway's own 500, never Admit's challenge or problem; Admit's /metrics counts each by reason", async () => {
      await freshPolicy(1_000);
      upstream.reset();
      for (const [token, reason] of [
        [KEY_PREFIX + "W".repeat(43), "invalid"],
        [keys.read, "scope"],
      ] as const) {
        const before = await authzFailures(reason);
        const rs = await withGateway(name, wiring(variant, { token }), async (g) => {
          const answers = await Promise.all([1, 2, 3].map(() => send(g.url)));
          // HAProxy's log names what Admit answered, for the operator.
          if (name === "haproxy") expect(g.log()).toContain(`misconfigured: Admit answered ${reason === "invalid" ? 401 : 403}`);
          return answers;
        });
        for (const r of rs) {
          expect(r.status, r.text).toBe(500);
          expect(r.headers.get("www-authenticate")).toBeNull();
          expect(r.text).toContain("Rate limit check misconfigured");
        }
        clientSawNothingOfAdmit(rs);
        expect(upstream.hits).toBe(0);
        await until(async () => (await authzFailures(reason)) >= before + 3, 30_000, `admit_auth_failures_total reason=${reason} to count 3`);
        expect((await authzFailures(reason)) - before).toBe(3);
        figures.push(`${name} (${variant}): ${reason} key → client ${rs[0].status} ${rs[0].text.trim()}; /metrics authz ${reason} +3`);
      }
    }, 180_000);

    it("Admit silent, then stopped: the documented fail mode, within the gateway's own timeout, the check sent once", async () => {
      const mode = FAIL_MODE[name];
      await freshPolicy(1_000);
      await withGateway(name, wiring(variant, { timeoutMs: CHECK_TIMEOUT_MS }), async (g) => {
        expect((await send(g.url)).status).toBe(200); // working while Admit answers
        const judge = async (what: "silent" | "stopped") => {
          upstream.reset();
          const r = await send(g.url);
          expect(r.status, `${what}: ${r.text}\n${g.log()}`).toBe(mode[what]);
          expect(upstream.hits).toBe(mode.reachesUpstream ? 1 : 0);
          if (name === "nginx") expect(r.headers.get("retry-after")).toBe("1");
          if (name === "haproxy") expect(r.headers.get("admit-ratelimit-enforced")).toBe("false");
          clientSawNothingOfAdmit([r]);
          return r;
        };
        relay.mode = "silent";
        relay.received = "";
        try {
          const r = await judge("silent");
          // Its own timeout applied (a bound for a hang, generous for a shared machine; not a speed claim).
          expect(r.ms).toBeGreaterThanOrEqual(CHECK_TIMEOUT_MS - 100);
          expect(r.ms).toBeLessThan(CHECK_TIMEOUT_MS + 5_000);
          // One check, sent once: a retry after a timeout could count one request twice.
          expect(relay.received.match(/(GET|HEAD) \/v1\/authz/g)?.length, relay.received).toBe(1);
          figures.push(`${name} (${variant}): Admit silent → ${r.status} in ${r.ms.toFixed(0)} ms (its timeout: ${CHECK_TIMEOUT_MS} ms)`);
        } finally {
          relay.mode = "pass";
        }
        // Stopped: nothing listens where the gateway connects (the Worker's edge, or Admit on loopback).
        const stopped = variant === "https" ? front : relay;
        await stopped.stop();
        try {
          const r = await judge("stopped");
          expect(r.ms).toBeLessThan(CHECK_TIMEOUT_MS + 5_000);
          figures.push(`${name} (${variant}): Admit stopped → ${r.status} in ${r.ms.toFixed(0)} ms`);
        } finally {
          await stopped.start();
        }
      });
    }, 120_000);

    it.runIf(variant === "https")(
      "a certificate the gateway must not trust: the fail mode, and the key never leaves the gateway",
      async () => {
        const mode = FAIL_MODE[name];
        await freshPolicy(1_000);
        upstream.reset();
        const refusedBefore = front.refusedConnections();
        const requestsBefore = front.requests().length;
        const r = await withGateway(name, wiring(variant, { admitAddr: `127.0.0.1:${front.untrustedPort}`, timeoutMs: CHECK_TIMEOUT_MS }), async (g) => {
          const res = await send(g.url);
          expect(res.status, `${res.text}\n${g.log()}`).toBe(mode.stopped);
          return res;
        });
        expect(upstream.hits).toBe(mode.reachesUpstream ? 1 : 0);
        if (name === "haproxy") expect(r.headers.get("admit-ratelimit-enforced")).toBe("false");
        // The gateway connected and gave up at its verification of the certificate, before sending
        // any request (and so the key).
        expect(front.refusedConnections(), front.log().slice(-3000)).toBeGreaterThan(refusedBefore);
        expect(front.requests().slice(requestsBefore)).toEqual([]);
        figures.push(`${name}: untrusted certificate → ${r.status}; front: handshake refused, 0 requests`);
      },
      60_000,
    );
  });
});
