// The gateway's scope, ratelimits:check: it checks (POST /v1/ratelimits/check, /v1/authz) and does
// nothing else — no refund, no write of any area, no read — while ratelimits:decide, which includes
// it, keeps every route it had. Keys are stored as their scopes' words, so no key changes.
import { describe, expect, it } from "vitest";
import { client, servedApp } from "../support";

const suite = servedApp("check_scope");

type Op = { method: string; path: string; scope: string };

async function operations(): Promise<Op[]> {
  const doc = (await suite.api("GET", "/openapi.json")).json;
  const ops: Op[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    if (!path.startsWith("/v1/")) continue;
    for (const [method, op] of Object.entries(item)) if (op["x-scope"]) ops.push({ method: method.toUpperCase(), path, scope: op["x-scope"] });
  }
  return ops;
}

async function mint(scopes: string[], names?: string[], token?: string) {
  const res = await client(suite.server.url, token)("POST", "/v1/keys", { name: `check-${scopes.join("+")}`, scopes, ...(names ? { names } : {}) });
  return res;
}

async function secret(scopes: string[], names?: string[]): Promise<string> {
  const res = await mint(scopes, names);
  expect(res.status, res.text).toBe(201);
  return res.json.secret;
}

const POLICY = "gw-check";

describe("ratelimits:check", () => {
  it("checks through /v1/ratelimits/check and /v1/authz; refund 403; ratelimits:decide still checks and refunds", async () => {
    expect((await suite.api("PUT", `/v1/ratelimits/policies/${POLICY}`, { algorithm: "fixed_window", limit: 2, window_ms: 86_400_000 })).status).toBe(201);
    const check = client(suite.server.url, await secret(["ratelimits:check"], ["gw-*"]));
    const decide = client(suite.server.url, await secret(["ratelimits:decide"], ["gw-*"]));

    expect((await check("POST", "/v1/ratelimits/check", { policy: POLICY, key: "c1" })).status).toBe(200);
    expect((await check("GET", `/v1/authz?policy=${POLICY}&key=header:X-Api-Key`, undefined, { "X-Api-Key": "c1" })).status).toBe(200);
    const denied = await check("POST", "/v1/ratelimits/check", { policy: POLICY, key: "c1" });
    expect(denied.status).toBe(429);

    // The leaked gateway key cannot hand a client its quota back.
    const refund = await check("POST", "/v1/ratelimits/refund", { policy: POLICY, key: "c1", cost: 2 });
    expect(refund.status, refund.text).toBe(403);
    expect(refund.json).toMatchObject({ type: "/problems/forbidden", scope: "ratelimits:decide" });
    expect((await check("POST", "/v1/ratelimits/check", { policy: POLICY, key: "c1" })).status).toBe(429);

    // A key holding ratelimits:decide (every gateway key made before ratelimits:check) is unchanged.
    expect((await decide("POST", "/v1/ratelimits/check", { policy: POLICY, key: "c2" })).status).toBe(200);
    expect((await decide("GET", `/v1/authz?policy=${POLICY}&key=header:X-Api-Key`, undefined, { "X-Api-Key": "c2" })).status).toBe(200);
    const refunded = await decide("POST", "/v1/ratelimits/refund", { policy: POLICY, key: "c1", cost: 2 });
    expect(refunded.status, refunded.text).toBe(200);
    expect((await check("POST", "/v1/ratelimits/check", { policy: POLICY, key: "c1" })).status).toBe(200);
  });

  it("every other route of the document — every write of every area, every read — answers 403 naming the route's scope", async () => {
    const check = client(suite.server.url, await secret(["ratelimits:check"]));
    const ops = await operations();
    const others = ops.filter((o) => o.scope !== "ratelimits:check");
    expect(ops.filter((o) => o.scope === "ratelimits:check").map((o) => `${o.method} ${o.path}`)).toEqual(
      expect.arrayContaining(["POST /v1/ratelimits/check", "GET /v1/authz"]),
    );
    const writes = others.filter((o) => o.method !== "GET");
    expect(writes.length).toBeGreaterThanOrEqual(25);
    const problems: string[] = [];
    for (const op of others) {
      const path = op.path.replaceAll(/\{(.+?)\}/g, (_m, p: string) => (p === "id" ? "00000000-0000-0000-0000-000000000000" : "gw-x"));
      const body = op.method === "GET" || op.method === "DELETE" ? undefined : { policy: "gw-x", key: "k", resource: "gw-x" };
      const res = await check(op.method, path, body);
      if (res.status !== 403 || res.json?.scope !== op.scope) problems.push(`${op.method} ${op.path}: ${res.status} ${res.text.slice(0, 200)}`);
    }
    expect(problems).toEqual([]);
    // The policies it checks are unchanged by all of that.
    expect((await suite.api("GET", "/v1/ratelimits/policies/gw-x")).status).toBe(404);
  });

  it("granting it: ratelimits:check and *:check are scopes; check of an area without a check is refused (422); decide covers it, it covers nothing more", async () => {
    for (const scopes of [["ratelimits:check"], ["*:check"]]) expect((await mint(scopes)).status).toBe(201);
    for (const scope of ["reservations:check", "keys:check", "ratelimits:checks"]) {
      const res = await mint([scope]);
      expect(res.status, scope).toBe(422);
      expect(res.text).toContain("scopes");
    }
    // A key that holds ratelimits:decide may make a check-only key; a check-only key cannot make a decide one.
    const maker = await secret(["ratelimits:decide", "keys:admin"], ["gw-*"]);
    expect((await mint(["ratelimits:check"], ["gw-eu-*"], maker)).status).toBe(201);
    const small = await secret(["ratelimits:check", "keys:admin"], ["gw-*"]);
    const up = await mint(["ratelimits:decide"], ["gw-*"], small);
    expect(up.status, up.text).toBe(403);
    expect(up.json).toMatchObject({ scope: "ratelimits:decide" });
    expect((await mint(["ratelimits:check"], ["gw-*"], small)).status).toBe(201);
    // *:check is granted by *:decide, not by *:admin.
    expect((await mint(["*:check"], undefined, await secret(["*:decide", "keys:admin"]))).status).toBe(201);
    expect((await mint(["*:check"], undefined, await secret(["*:admin"]))).status).toBe(403);
  });
});
