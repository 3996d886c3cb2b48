// Keys inside the real Workers runtime (wrangler dev / workerd): the secret made with the runtime's
// crypto, the look-up, the cache and the scope check, and the audit row written with the change.
import { describe, expect, it } from "vitest";
import { ownSocket } from "../../dev/wrangler";
import { CACHE_MS } from "../../functions/core/apikeys";
import { client, roomInDay, sql, workerSuite } from "../support";

const suite = workerSuite("keys_runtime");

describe("scoped keys in wrangler dev", () => {
  it("a key created there decides within its scope and names, 403s outside them, 401s once revoked; its changes are audited", async () => {
    expect((await suite.api("PUT", "/v1/ratelimits/policies/rt-gw", { algorithm: "fixed_window", limit: 20, window_ms: 86_400_000 })).status).toBe(201);
    const created = await suite.api("POST", "/v1/keys", { name: "rt-gateway", scopes: ["ratelimits:decide"], names: ["rt-gw*"] });
    expect(created.status, created.text).toBe(201);
    const key = client(ownSocket(suite.worker), created.json.secret);
    // Its checks must fall in one of the window's days (fixed windows start at midnight UTC).
    await roomInDay();
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

  it("a steady stream of 64 at a time, across several lapses of the key's cache entry: every request answered, none cancelled as hung", async () => {
    expect(
      (await suite.api("PUT", "/v1/ratelimits/policies/rt-flight", { algorithm: "fixed_window", limit: 1_000_000_000, window_ms: 86_400_000 })).status,
    ).toBe(201);
    const created = await suite.api("POST", "/v1/keys", { name: "rt-flight", scopes: ["ratelimits:decide"], names: ["rt-flight"] });
    expect(created.status, created.text).toBe(201);
    const key = client(ownSocket(suite.worker), created.json.secret);
    // Each time the isolate's entry for the secret lapses (every CACHE_MS), the requests arriving then
    // join one look-up, each waiting for another request's promise. In workerd a request whose only
    // wait is another request's promise has nothing pending of its own and can be cancelled as hung;
    // each now waits with a timer of its own (ownWait, functions/core/db.ts). (This stream did not
    // fail without it here; the ad-hoc edge load at 2 000 checks/s with coalescing on did.)
    const statuses: Record<number, number> = {};
    const until = Date.now() + 2.5 * CACHE_MS;
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        while (Date.now() < until) {
          const r = await key("POST", "/v1/ratelimits/check", { policy: "rt-flight", key: "c" });
          statuses[r.status] = (statuses[r.status] ?? 0) + 1;
        }
      }),
    );
    expect(Object.keys(statuses)).toEqual(["200"]);
  }, 120_000);
});
