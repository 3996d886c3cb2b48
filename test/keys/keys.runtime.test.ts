// Keys inside the real Workers runtime (wrangler dev / workerd): the secret made with the runtime's
// crypto, the look-up, the cache and the scope check, and the audit row written with the change.
import { describe, expect, it } from "vitest";
import { client, sql, workerSuite } from "../support";

const suite = workerSuite("keys_runtime");

describe("scoped keys in wrangler dev", () => {
  it("a key created there decides within its scope and names, 403s outside them, 401s once revoked; its changes are audited", async () => {
    expect((await suite.api("PUT", "/v1/ratelimits/policies/rt-gw", { algorithm: "fixed_window", limit: 20, window_ms: 86_400_000 })).status).toBe(201);
    const created = await suite.api("POST", "/v1/keys", { name: "rt-gateway", scopes: ["ratelimits:decide"], names: ["rt-gw*"] });
    expect(created.status, created.text).toBe(201);
    const key = client(suite.worker.url, created.json.secret);
    const rs = await Promise.all(Array.from({ length: 50 }, () => key("POST", "/v1/ratelimits/check", { policy: "rt-gw", key: "c" })));
    expect(rs.filter((r) => r.status === 200)).toHaveLength(20);
    expect(rs.filter((r) => r.status === 429)).toHaveLength(30);
    const [{ lookups }] = await sql<{ lookups: string }>(suite.db, "SELECT lookups FROM admit_keys WHERE id = $1", [created.json.id]);
    expect(Number(lookups)).toBeLessThanOrEqual(2);
    expect((await key("PUT", "/v1/ratelimits/policies/rt-gw", { algorithm: "fixed_window", limit: 1, window_ms: 1000 })).json).toMatchObject({
      type: "/problems/forbidden",
      scope: "ratelimits:admin",
    });
    expect((await key("POST", "/v1/ratelimits/check", { policy: "other", key: "c" })).json).toMatchObject({ type: "/problems/forbidden", name: "other" });
    expect((await suite.api("DELETE", `/v1/keys/${created.json.id}`)).status).toBe(200);
    expect((await key("POST", "/v1/ratelimits/check", { policy: "rt-gw", key: "c" })).status).toBe(401);
    const audit = await suite.api("GET", "/v1/audit?limit=10");
    expect(audit.json.items.map((a: any) => a.action)).toEqual(["keys.revoke", "keys.create", "ratelimits.policy.put"]);
  });
});
