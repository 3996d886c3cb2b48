// Every route of the app, walked with keys: the right scope is let through, the wrong access or the
// wrong area is a 403 naming the route's scope, a name outside the key's patterns a 403 (an id whose
// name is outside them a 404, as an unknown id), and a revoked, expired or unknown key a 401. And a
// route without a declared scope fails the build of this test: a new route cannot be left open.
import { describe, expect, it } from "vitest";
import { KEY_PREFIX } from "../../functions/core/apikeys";
import { ACCESSES, AREAS } from "../../functions/core/scopes";
import { app } from "../../functions/index";
import { client, servedApp } from "../support";

const suite = servedApp("scopes");

type Op = { method: string; path: string; scope: string | undefined; names: string | undefined; signed: boolean; query: boolean };

async function operations(): Promise<Op[]> {
  const doc = (await suite.api("GET", "/openapi.json")).json;
  const ops: Op[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
    if (!path.startsWith("/v1/")) continue;
    for (const [method, op] of Object.entries(item)) {
      ops.push({
        method: method.toUpperCase(),
        path,
        scope: op["x-scope"],
        names: op["x-names"],
        signed: Array.isArray(op.security) && op.security.length === 0,
        // Takes query parameters whatever its method (the forward-auth check: its policies are in the query).
        query: Array.isArray(op.parameters) && op.parameters.some((p: { in?: string }) => p.in === "query"),
      });
    }
  }
  return ops;
}

describe("every route has a scope", () => {
  it("every /v1 route the app answers is in the document with its x-scope (or is a signed webhook delivery), and its security names that scope", async () => {
    const ops = await operations();
    const documented = new Set(ops.map((o) => `${o.method} ${o.path.replaceAll(/\{(.+?)\}/g, ":$1")}`));
    // A route's parameter pattern (`:source{…}`) is the router's, not the document's.
    const routes = app.routes
      .filter((r) => r.method !== "ALL" && r.path.startsWith("/v1/"))
      .map((r) => `${r.method} ${r.path.replaceAll(/(:\w+)\{[^}]*\}/g, "$1")}`);
    expect(routes.length).toBeGreaterThanOrEqual(40);
    expect(routes.filter((r) => !documented.has(r))).toEqual([]);
    const open = ops.filter((o) => !o.signed && !o.scope).map((o) => `${o.method} ${o.path}`);
    expect(open).toEqual([]);
    expect(ops.filter((o) => o.signed).map((o) => `${o.method} ${o.path}`)).toEqual(["POST /v1/webhooks/{source}"]);
    const doc = (await suite.api("GET", "/openapi.json")).json;
    for (const o of ops.filter((x) => !x.signed)) {
      expect(doc.paths[o.path][o.method.toLowerCase()].security, `${o.method} ${o.path}`).toEqual([{ bearer: [o.scope] }]);
      expect(o.scope).toMatch(/^[a-z*]+:(read|decide|admin)$|^ratelimits:check$/);
    }
  });
});

const IN = "n-1";
const OUT = "x-1";

/** A request on `op` touching `name` wherever the route takes a name (path, query, body). */
function request(op: Op, name: string, ids: Record<string, string>) {
  const path = op.path.replaceAll(/\{(.+?)\}/g, (_m, p: string) => encodeURIComponent(p === "id" ? (ids[name] ?? ids.any) : name));
  const query = `?policy=${name}&resource=${name}&key=k`;
  const body = op.method === "GET" || op.method === "DELETE" ? undefined : { policy: name, policies: [name], resource: name, subscription_id: name, key: "k" };
  return { path: path + (op.method === "GET" || op.query ? query : ""), body };
}

describe("every route × keys", () => {
  it("right scope → through; wrong access, wrong area, a name outside the patterns → 403 (by id: 404); revoked, expired, unknown → 401", async () => {
    const ops = (await operations()).filter((o) => !o.signed);
    // Reservations by id resolve their resource: one inside the patterns and one outside.
    const ids: Record<string, string> = { any: "00000000-0000-0000-0000-000000000000" };
    for (const resource of [IN, OUT]) {
      const r = await suite.api("POST", "/v1/reservations", { resource, holder: "h", start: "2040-01-01T00:00:00Z", end: "2040-01-02T00:00:00Z" });
      expect(r.status, r.text).toBe(201);
      ids[resource] = r.json.id;
    }
    const mint = async (body: Record<string, unknown>) => {
      const res = await suite.api("POST", "/v1/keys", { name: "walker", ...body });
      expect(res.status, res.text).toBe(201);
      return res.json as { id: string; secret: string };
    };
    const revoked = await mint({ scopes: ["*:read", "*:decide", "*:admin"] });
    await suite.api("DELETE", `/v1/keys/${revoked.id}`);
    const expired = await mint({ scopes: ["*:read", "*:decide", "*:admin"], expires_at: "2020-01-01T00:00:00Z" });
    const unknown = KEY_PREFIX + "B".repeat(43);

    let outsideChecked = 0;
    const problems: string[] = [];
    for (const op of ops) {
      const [area, access] = op.scope!.split(":");
      const otherAccess = access === "read" ? "decide" : "read";
      const otherArea = AREAS.find((a) => a !== area)!;
      const right = await mint({ scopes: [op.scope], names: ["n-*"] });
      const wrongAccess = await mint({ scopes: [`${area}:${otherAccess}`] });
      // No other area has a check: the area's decide, which includes it, held of another area.
      const wrongArea = await mint({ scopes: [`${otherArea}:${access === "check" ? "decide" : access}`] });
      const label = `${op.method} ${op.path}`;
      const send = (secret: string, name: string) => {
        const r = request(op, name, ids);
        return client(suite.server.url, secret)(op.method, r.path, r.body);
      };

      const ok = await send(right.secret, IN);
      if (ok.status === 401 || ok.status === 403) problems.push(`${label}: right scope answered ${ok.status} ${ok.text}`);
      for (const [what, key] of [
        ["wrong access", wrongAccess],
        ["wrong area", wrongArea],
      ] as const) {
        const res = await send(key.secret, IN);
        if (res.status !== 403 || res.json?.type !== "/problems/forbidden" || res.json?.scope !== op.scope) {
          problems.push(`${label}: ${what} answered ${res.status} ${res.text}`);
        }
      }
      if (op.names && !op.names.startsWith("a list")) {
        outsideChecked++;
        const res = await send(right.secret, OUT);
        // A name resolved from an id outside the patterns is answered as an id that names nothing.
        if (op.names.includes("{id}")) {
          if (res.status !== 404 || res.json?.type !== "/problems/not-found")
            problems.push(`${label}: id of a name outside answered ${res.status} ${res.text}`);
        } else if (res.status !== 403 || res.json?.type !== "/problems/forbidden") problems.push(`${label}: name outside answered ${res.status} ${res.text}`);
        else if (res.json.name !== OUT) problems.push(`${label}: 403 does not name ${OUT}: ${res.text}`);
      }
      for (const [what, secret] of [
        ["revoked", revoked.secret],
        ["expired", expired.secret],
        ["unknown", unknown],
      ] as const) {
        const res = await send(secret, IN);
        if (res.status !== 401 || res.json?.type !== "/problems/unauthorized") problems.push(`${label}: ${what} key answered ${res.status}`);
      }
    }
    expect(problems).toEqual([]);
    // Every route that touches a named thing was tried outside the patterns; the rest are lists (filtered) and keys/audit.
    const unnamed = ops.filter((o) => !o.names).map((o) => `${o.method} ${o.path}`);
    expect(unnamed.every((o) => o.includes("/v1/keys") || o.includes("/v1/audit"))).toBe(true);
    expect(outsideChecked).toBeGreaterThanOrEqual(30);
    expect(ACCESSES).toHaveLength(4);
  }, 180_000);
});

describe("the routes outside the document's /v1 operations", () => {
  const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

  it("/v1/authz and every path below it, any method: ratelimits:check (or ratelimits:decide) on every policy named (query; below /v1/authz/, the Admit-Authz header), else 403", async () => {
    const mint = async (body: Record<string, unknown>) => {
      const res = await suite.api("POST", "/v1/keys", { name: "authz-walker", ...body });
      expect(res.status, res.text).toBe(201);
      return (res.json as { secret: string }).secret;
    };
    const rights = {
      "ratelimits:check": await mint({ scopes: ["ratelimits:check"], names: ["n-*"] }),
      "ratelimits:decide": await mint({ scopes: ["ratelimits:decide"], names: ["n-*"] }),
    };
    const right = rights["ratelimits:check"];
    const lacking = {
      "ratelimits:read": await mint({ scopes: ["ratelimits:read"] }),
      "ratelimits:admin": await mint({ scopes: ["ratelimits:admin"] }),
      "*:read and *:admin": await mint({ scopes: ["*:read", "*:admin"] }),
      "locks:decide": await mint({ scopes: ["locks:decide"] }),
      "metrics:read": await mint({ scopes: ["metrics:read"] }),
    };
    const otherNames = await mint({ scopes: ["ratelimits:decide"], names: ["gw-*"] });
    const params = (...policies: string[]) => `${policies.map((p) => `policy=${p}`).join("&")}&key=ip`;
    // [path, headers] for the policies named: on the path itself, and below it (Envoy's path_prefix).
    const forms = (...policies: string[]): Array<[string, Record<string, string>]> => [
      [`/v1/authz?${params(...policies)}`, {}],
      [`/v1/authz/anything/at/all?${params("n-1")}`, { "Admit-Authz": params(...policies) }],
      ["/v1/authz/", { "Admit-Authz": params(...policies) }],
    ];
    const problems: string[] = [];
    for (const method of METHODS) {
      for (const [path, headers] of forms(IN)) {
        const label = `${method} ${path} ${JSON.stringify(headers)}`;
        for (const [what, secret] of Object.entries(rights)) {
          const ok = await client(suite.server.url, secret)(method, path, undefined, { ...headers, "X-Forwarded-For": "203.0.113.9" });
          if (ok.status === 401 || ok.status === 403) problems.push(`${label}: ${what} on n-* answered ${ok.status} ${ok.text}`);
        }
        for (const [what, secret] of Object.entries(lacking)) {
          const res = await client(suite.server.url, secret)(method, path, undefined, headers);
          const body = method === "HEAD" || res.json?.scope === "ratelimits:check";
          if (res.status !== 403 || !body) problems.push(`${label}: a key with ${what} answered ${res.status} ${res.text}`);
        }
        const res = await client(suite.server.url, otherNames)(method, path, undefined, headers);
        if (res.status !== 403 || (method !== "HEAD" && res.json?.name !== IN))
          problems.push(`${label}: ratelimits:decide on gw-* answered ${res.status} ${res.text}`);
        const none = await client(suite.server.url, null)(method, path, undefined, headers);
        if (none.status !== 401) problems.push(`${label}: no credential answered ${none.status}`);
      }
      // Several policies, one outside the key's patterns: 403 naming it.
      for (const [path, headers] of forms(IN, OUT)) {
        const res = await client(suite.server.url, right)(method, path, undefined, headers);
        if (res.status !== 403 || (method !== "HEAD" && res.json?.name !== OUT))
          problems.push(`${method} ${path} ${JSON.stringify(headers)}: ${OUT} answered ${res.status} ${res.text}`);
      }
    }
    expect(problems).toEqual([]);
  }, 120_000);

  it("/metrics: the root token or a key with metrics:read (metrics:admin, *:read), else 403 naming metrics:read; no credential or a revoked key 401", async () => {
    const mint = async (scopes: string[]) => {
      const res = await suite.api("POST", "/v1/keys", { name: "metrics-walker", scopes });
      expect(res.status, res.text).toBe(201);
      return res.json as { id: string; secret: string };
    };
    for (const scopes of [["metrics:read"], ["metrics:admin"], ["*:read"]]) {
      const res = await client(suite.server.url, (await mint(scopes)).secret)("GET", "/metrics");
      expect(res.status, `${scopes}: ${res.text}`).toBe(200);
      expect(res.text).toContain("# TYPE ");
    }
    for (const scopes of [["metrics:decide"], ["ratelimits:read"], ["*:decide", "ratelimits:admin", "keys:admin", "audit:read"]]) {
      for (const method of ["GET", "HEAD"]) {
        const res = await client(suite.server.url, (await mint(scopes)).secret)(method, "/metrics");
        expect(res.status, `${method} ${scopes}: ${res.text}`).toBe(403);
        if (method === "GET") expect(res.json).toMatchObject({ type: "/problems/forbidden", scope: "metrics:read" });
      }
    }
    const revoked = await mint(["metrics:read"]);
    await suite.api("DELETE", `/v1/keys/${revoked.id}`);
    expect((await client(suite.server.url, revoked.secret)("GET", "/metrics")).status).toBe(401);
    expect((await client(suite.server.url, null)("GET", "/metrics")).status).toBe(401);
    expect((await suite.api("GET", "/metrics")).status).toBe(200);
  });
});
