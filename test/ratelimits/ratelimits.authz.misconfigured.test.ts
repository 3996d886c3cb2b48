// A gateway's own key refused on /v1/authz (wrong, revoked, under-scoped, outside its names) is told
// apart from a refusal of the client: only the latter carries Admit-Authz-Refused, and each refused
// credential is counted in admit_auth_failures_total by surface and reason, where the gateway's
// operator reads it.
import { describe, expect, it } from "vitest";
import { KEY_PREFIX } from "../../functions/core/apikeys";
import { tallyFor } from "../../functions/core/tally";
import { bindings, client, servedApp, until } from "../support";

const suite = servedApp("ratelimits_authz_misconfigured", { METRICS_FLUSH_MS: "300" });
const flushed = () => until(async () => tallyFor(bindings(suite.db))?.idle ?? true, 30_000, "the tally to flush");

/** admit_auth_failures_total samples on /metrics, as `surface/reason` → count. */
async function failures(): Promise<Record<string, number>> {
  const text = (await suite.api("GET", "/metrics")).text;
  expect(text).toContain("# TYPE admit_auth_failures_total counter");
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^admit_auth_failures_total\{reason="(\w+)",surface="(\w+)"\} (\d+)$/gm)) out[`${m[2]}/${m[1]}`] = Number(m[3]);
  return out;
}

async function secret(scopes: string[], names?: string[]): Promise<{ id: string; secret: string }> {
  const res = await suite.api("POST", "/v1/keys", { name: "gw", scopes, ...(names ? { names } : {}) });
  expect(res.status, res.text).toBe(201);
  return res.json;
}

const CHECK = "/v1/authz?policy=mis-api&key=header:X-Api-Key&deny_status=403";

describe("a misconfigured gateway's key on /v1/authz", () => {
  it("client refusals carry Admit-Authz-Refused; the gateway's key refused does not; each refused key is counted by reason", async () => {
    expect((await suite.api("PUT", "/v1/ratelimits/policies/mis-api", { algorithm: "fixed_window", limit: 1, window_ms: 86_400_000 })).status).toBe(201);
    await flushed();
    const before = await failures();

    const good = client(suite.server.url, (await secret(["ratelimits:check"], ["mis-*"])).secret);
    expect((await good("GET", CHECK, undefined, { "X-Api-Key": "c" })).status).toBe(200);
    const limited = await good("GET", CHECK, undefined, { "X-Api-Key": "c" });
    expect(limited.status).toBe(403);
    expect(limited.headers.get("admit-authz-refused")).toBe("rate-limited");
    const noKey = await good("GET", CHECK);
    expect(noKey.status).toBe(403);
    expect(noKey.headers.get("admit-authz-refused")).toBe("ratelimit-key-missing");

    const revokedKey = await secret(["ratelimits:check"]);
    await suite.api("DELETE", `/v1/keys/${revokedKey.id}`);
    const cases: Array<[string, string | null, number]> = [
      ["unknown key", KEY_PREFIX + "Z".repeat(43), 401],
      ["revoked key", revokedKey.secret, 401],
      ["wrong root token", "not-the-token", 401],
      ["no Authorization", null, 401],
      ["under-scoped key", (await secret(["ratelimits:read"])).secret, 403],
      ["key outside its names", (await secret(["ratelimits:check"], ["other-*"])).secret, 403],
    ];
    for (const [what, token, status] of cases) {
      const res = await client(suite.server.url, token)("GET", CHECK, undefined, { "X-Api-Key": "c" });
      expect(res.status, `${what}: ${res.text}`).toBe(status);
      expect(res.headers.get("admit-authz-refused"), what).toBeNull();
      expect(res.json.type, what).toBe(status === 401 ? "/problems/unauthorized" : "/problems/forbidden");
    }
    // And elsewhere: an API route and /metrics count under their own surface.
    expect((await client(suite.server.url, "not-the-token")("GET", "/v1/ratelimits/policies")).status).toBe(401);
    expect((await client(suite.server.url, "not-the-token")("GET", "/metrics")).status).toBe(401);

    await flushed();
    const after = await failures();
    const delta = (k: string) => (after[k] ?? 0) - (before[k] ?? 0);
    expect({
      invalid: delta("authz/invalid"),
      missing: delta("authz/missing"),
      scope: delta("authz/scope"),
      name: delta("authz/name"),
      api: delta("api/invalid"),
      metrics: delta("metrics/invalid"),
    }).toEqual({ invalid: 3, missing: 1, scope: 1, name: 1, api: 1, metrics: 1 });
  });
});
