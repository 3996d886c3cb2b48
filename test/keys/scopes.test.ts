// Every route of the app, walked with keys: the right scope is let through, the wrong access or the
// wrong area is a 403 naming the route's scope, a name outside the key's patterns a 403, and a
// revoked, expired or unknown key a 401. And a route without a declared scope fails the build of
// this test: a new route cannot be left open.
import { describe, expect, it } from "vitest";
import { KEY_PREFIX } from "../../functions/core/apikeys";
import { ACCESSES, AREAS } from "../../functions/core/scopes";
import { app } from "../../functions/index";
import { client, servedApp } from "../support";

const suite = servedApp("scopes");

type Op = { method: string; path: string; scope: string | undefined; names: string | undefined; signed: boolean };

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
      });
    }
  }
  return ops;
}

describe("every route has a scope", () => {
  it("every /v1 route the app answers is in the document with its x-scope (or is a signed webhook delivery), and its security names that scope", async () => {
    const ops = await operations();
    const documented = new Set(ops.map((o) => `${o.method} ${o.path.replaceAll(/\{(.+?)\}/g, ":$1")}`));
    const routes = app.routes.filter((r) => r.method !== "ALL" && r.path.startsWith("/v1/")).map((r) => `${r.method} ${r.path}`);
    expect(routes.length).toBeGreaterThanOrEqual(40);
    expect(routes.filter((r) => !documented.has(r))).toEqual([]);
    const open = ops.filter((o) => !o.signed && !o.scope).map((o) => `${o.method} ${o.path}`);
    expect(open).toEqual([]);
    expect(ops.filter((o) => o.signed).map((o) => `${o.method} ${o.path}`)).toEqual(["POST /v1/webhooks/{source}"]);
    const doc = (await suite.api("GET", "/openapi.json")).json;
    for (const o of ops.filter((x) => !x.signed)) {
      expect(doc.paths[o.path][o.method.toLowerCase()].security, `${o.method} ${o.path}`).toEqual([{ bearer: [o.scope] }]);
      expect(o.scope).toMatch(/^[a-z*]+:(read|decide|admin)$/);
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
  return { path: path + (op.method === "GET" ? query : ""), body };
}

describe("every route × keys", () => {
  it("right scope → through; wrong access, wrong area, a name outside the patterns → 403; revoked, expired, unknown → 401", async () => {
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
      const wrongArea = await mint({ scopes: [`${otherArea}:${access}`] });
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
        if (res.status !== 403 || res.json?.type !== "/problems/forbidden") problems.push(`${label}: name outside answered ${res.status} ${res.text}`);
        else if (!op.names.includes("{id}") && res.json.name !== OUT) problems.push(`${label}: 403 does not name ${OUT}: ${res.text}`);
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
    expect(ACCESSES).toHaveLength(3);
  }, 180_000);
});
