// Scoped keys over real HTTP against real Postgres: creation (a secret shown once, only its hash
// stored), 401 for unknown/revoked/expired alike, 403 naming only what is lacking, rotation with an
// overlap, revocation and expiry reaching a cache within its bound, no escalation through
// POST /v1/keys, names bounding lists, and 200 simultaneous checks with a fresh key costing a single
// look-up.
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { CACHE_MS, KEY_PREFIX, KeyCache } from "../../functions/core/apikeys";
import { client, roomInDay, servedApp, sql, until } from "../support";

const suite = servedApp("keys");
const DAY = 86_400_000;

async function createKey(body: Record<string, unknown>, api = suite.api) {
  const res = await api("POST", "/v1/keys", body);
  expect(res.status, res.text).toBe(201);
  return res.json as { id: string; secret: string; name: string; scopes: string[]; names: string[] | null; secrets: Array<{ start: string }> };
}
const as = (secret: string) => client(suite.server.url, secret);

describe("a key's secret", () => {
  it("is admit_ + 43 base64url characters, shown once; Postgres holds its SHA-256 and first characters only", async () => {
    const k = await createKey({ name: "reader", scopes: ["ratelimits:read"] });
    expect(k.secret).toMatch(new RegExp(`^${KEY_PREFIX}[A-Za-z0-9_-]{43}$`));
    expect(k.secrets).toEqual([expect.objectContaining({ start: k.secret.slice(0, 12), expires_at: null })]);
    const rows = await sql<{ hash: string; start: string }>(suite.db, "SELECT encode(hash, 'hex') AS hash, start FROM admit_key_secrets WHERE key_id = $1", [
      k.id,
    ]);
    expect(rows).toEqual([{ hash: createHash("sha256").update(k.secret).digest("hex"), start: k.secret.slice(0, 12) }]);
    // Nowhere in the keys, their secrets or the audit log is the secret itself.
    const dump = await sql<{ t: string }>(
      suite.db,
      "SELECT (SELECT json_agg(k)::text FROM admit_keys k) || (SELECT json_agg(s)::text FROM admit_key_secrets s) || (SELECT json_agg(a)::text FROM admit_audit a) AS t",
    );
    expect(dump[0].t).not.toContain(k.secret.slice(12));
    const list = await suite.api("GET", "/v1/keys");
    expect(list.text).not.toContain(k.secret.slice(12));
    expect(list.json.items.find((i: any) => i.id === k.id)).toMatchObject({ name: "reader", scopes: ["ratelimits:read"], names: null, revoked_at: null });
    const got = await suite.api("GET", `/v1/keys/${k.id}`);
    expect(got.status).toBe(200);
    expect(got.json).not.toHaveProperty("secret");
  });

  it("works on a route of its scope, and last_used_at shows the look-up", async () => {
    const k = await createKey({ name: "reader-2", scopes: ["ratelimits:read"] });
    const res = await as(k.secret)("GET", "/v1/ratelimits/policies");
    expect(res.status, res.text).toBe(200);
    const [row] = await sql<{ last_used_at: Date | null }>(suite.db, "SELECT last_used_at FROM admit_keys WHERE id = $1", [k.id]);
    expect(row.last_used_at).not.toBeNull();
  });
});

describe("answers", () => {
  it("unknown, revoked and expired keys get one and the same 401", async () => {
    const revoked = await createKey({ name: "to-revoke", scopes: ["*:read"] });
    expect((await suite.api("DELETE", `/v1/keys/${revoked.id}`)).status).toBe(200);
    const expired = await createKey({ name: "expired", scopes: ["*:read"], expires_at: "2020-01-01T00:00:00Z" });
    const unknown = KEY_PREFIX + "A".repeat(43);
    const answers = await Promise.all([unknown, revoked.secret, expired.secret].map((s) => as(s)("GET", "/v1/ratelimits/policies")));
    for (const a of answers) {
      expect(a.status).toBe(401);
      expect(a.headers.get("www-authenticate")).toBe('Bearer realm="admit", error="invalid_token"');
    }
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
  });

  it("a key without the scope → 403 forbidden naming that scope and nothing of the key's own", async () => {
    const k = await createKey({ name: "gw", scopes: ["ratelimits:decide", "locks:read"], names: ["gw-*"] });
    const res = await as(k.secret)("PUT", "/v1/ratelimits/policies/gw-api", { algorithm: "fixed_window", limit: 1, window_ms: 1000 });
    expect(res.status).toBe(403);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(res.json).toMatchObject({ type: "/problems/forbidden", status: 403, scope: "ratelimits:admin" });
    expect(res.text).not.toContain("decide");
    expect(res.text).not.toContain("locks");
    expect(res.text).not.toContain("gw-*");
  });

  it("a name outside the key's patterns → 403 naming that name; a multi-policy check needs every policy", async () => {
    await suite.api("PUT", "/v1/ratelimits/policies/gw-a", { algorithm: "fixed_window", limit: 100, window_ms: DAY });
    await suite.api("PUT", "/v1/ratelimits/policies/other", { algorithm: "fixed_window", limit: 100, window_ms: DAY });
    const k = await createKey({ name: "gw-2", scopes: ["ratelimits:decide"], names: ["gw-*"] });
    const api = as(k.secret);
    // The usage read below is of the check's own window: both in one day (fixed windows start at midnight UTC).
    await roomInDay();
    expect((await api("POST", "/v1/ratelimits/check", { policy: "gw-a", key: "c" })).status).toBe(200);
    const one = await api("POST", "/v1/ratelimits/check", { policy: "other", key: "c" });
    expect(one.status).toBe(403);
    expect(one.json).toMatchObject({ type: "/problems/forbidden", name: "other" });
    const multi = await api("POST", "/v1/ratelimits/check", { policies: ["gw-a", "other"], key: "c" });
    expect(multi.status).toBe(403);
    expect(multi.json).toMatchObject({ name: "other" });
    // Nothing was counted for the refused checks.
    const usage = await suite.api("GET", "/v1/ratelimits/usage?policy=gw-a&key=c");
    expect(usage.json.attempted).toBe(1);
  });

  it("a list shows only the names the key may see", async () => {
    for (const n of ["ns-a", "ns-b", "zz-c"]) await suite.api("PUT", `/v1/semaphores/${n}`, { permits: 1 });
    const k = await createKey({ name: "sem-reader", scopes: ["semaphores:read"], names: ["ns-*"] });
    const res = await as(k.secret)("GET", "/v1/semaphores");
    expect(res.status).toBe(200);
    expect(res.json.items.map((s: any) => s.name).sort()).toEqual(["ns-a", "ns-b"]);
    const all = await suite.api("GET", "/v1/semaphores");
    expect(all.json.items.map((s: any) => s.name)).toContain("zz-c");
  });
});

describe("no escalation through POST /v1/keys", () => {
  it("a key makes keys within its own scopes and names only", async () => {
    const admin = await createKey({ name: "key-admin", scopes: ["keys:admin", "ratelimits:read"], names: ["team-*"] });
    const api = as(admin.secret);
    const wider = await api("POST", "/v1/keys", { name: "x", scopes: ["*:admin"], names: ["team-*"] });
    expect(wider.status).toBe(403);
    expect(wider.json).toMatchObject({ type: "/problems/forbidden", scope: "*:admin" });
    expect((await api("POST", "/v1/keys", { name: "x", scopes: ["ratelimits:admin"], names: ["team-*"] })).status).toBe(403);
    expect((await api("POST", "/v1/keys", { name: "x", scopes: ["ratelimits:read"] })).status).toBe(403); // no names = every name
    expect((await api("POST", "/v1/keys", { name: "x", scopes: ["ratelimits:read"], names: ["other-*"] })).status).toBe(403);
    const narrower = await api("POST", "/v1/keys", { name: "x", scopes: ["ratelimits:read"], names: ["team-a-*"] });
    expect(narrower.status, narrower.text).toBe(201);
  });

  it("a key rotates only keys it could have made: rotating a stronger one (and so learning its secret) is 403", async () => {
    const root = await createKey({ name: "strong", scopes: ["*:admin"] });
    const admin = await createKey({ name: "key-admin-2", scopes: ["keys:admin", "ratelimits:read"] });
    const api = as(admin.secret);
    const refused = await api("POST", `/v1/keys/${root.id}/rotate`, { overlap_ms: 0 });
    expect(refused.status).toBe(403);
    expect(refused.text).not.toContain("admit_");
    expect((await as(root.secret)("GET", "/v1/ratelimits/policies")).status).toBe(200); // not rotated
    const weak = await createKey({ name: "weak", scopes: ["ratelimits:read"] });
    expect((await api("POST", `/v1/keys/${weak.id}/rotate`, { overlap_ms: 0 })).status).toBe(200);
    expect((await api("POST", `/v1/keys/${admin.id}/rotate`, { overlap_ms: 60_000 })).status).toBe(200); // itself
  });
});

describe("rotation", () => {
  it("both secrets work during the overlap, only the new one after it", async () => {
    const k = await createKey({ name: "rotating", scopes: ["ratelimits:read"] });
    expect((await as(k.secret)("GET", "/v1/ratelimits/policies")).status).toBe(200);
    const r = await suite.api("POST", `/v1/keys/${k.id}/rotate`, { overlap_ms: 3_600_000 });
    expect(r.status, r.text).toBe(200);
    expect(r.json.id).toBe(k.id);
    expect(r.json.secret).not.toBe(k.secret);
    expect(r.json.secrets).toHaveLength(2);
    expect((await as(k.secret)("GET", "/v1/ratelimits/policies")).status).toBe(200);
    expect((await as(r.json.secret)("GET", "/v1/ratelimits/policies")).status).toBe(200);
    // The overlap ends (moved in the database, as another isolate's clock would see it): the old
    // secret is refused within the cache's bound, the new one goes on.
    await sql(suite.db, "UPDATE admit_key_secrets SET expires_at = now() - interval '1 ms' WHERE key_id = $1 AND expires_at IS NOT NULL", [k.id]);
    await until(async () => (await as(k.secret)("GET", "/v1/ratelimits/policies")).status === 401, CACHE_MS + 10_000, "old secret refused");
    expect((await as(r.json.secret)("GET", "/v1/ratelimits/policies")).status).toBe(200);
  });

  it("without a body, as with {}: the default overlap of one hour, then the old secret ends", async () => {
    for (const body of [undefined, {}]) {
      const k = await createKey({ name: "rotating-default", scopes: ["ratelimits:read"] });
      const r = await suite.api("POST", `/v1/keys/${k.id}/rotate`, body); // undefined: no body, no Content-Type
      expect(r.status, r.text).toBe(200);
      const [{ overlap_ms, unending }] = await sql<{ overlap_ms: number; unending: number }>(
        suite.db,
        `SELECT round(extract(epoch FROM ($2::timestamptz - s.created_at)) * 1000)::int AS overlap_ms,
                count(*) FILTER (WHERE old.expires_at IS NULL)::int AS unending
           FROM admit_key_secrets s JOIN admit_key_secrets old ON old.key_id = s.key_id AND old.hash <> s.hash
          WHERE s.key_id = $1 AND s.expires_at IS NULL GROUP BY s.created_at`,
        [k.id, r.json.old_secrets_expire_at],
      );
      // The rotation's own now() is its new secret's created_at: the overlap is exactly one hour.
      expect({ body, overlap_ms, unending }).toEqual({ body, overlap_ms: 3_600_000, unending: 0 });
      expect(r.json.secrets.map((s: { expires_at: string | null }) => s.expires_at)).toEqual([r.json.old_secrets_expire_at, null]);
    }
  });

  it("overlap 0 ends the old secret at once; a revoked key cannot be rotated (409)", async () => {
    const k = await createKey({ name: "rotating-0", scopes: ["ratelimits:read"] });
    expect((await as(k.secret)("GET", "/v1/ratelimits/policies")).status).toBe(200);
    const r = await suite.api("POST", `/v1/keys/${k.id}/rotate`, { overlap_ms: 0 });
    expect(r.status).toBe(200);
    expect((await as(k.secret)("GET", "/v1/ratelimits/policies")).status).toBe(401);
    expect((await as(r.json.secret)("GET", "/v1/ratelimits/policies")).status).toBe(200);
    await suite.api("DELETE", `/v1/keys/${k.id}`);
    const again = await suite.api("POST", `/v1/keys/${k.id}/rotate`, {});
    expect(again.status).toBe(409);
    expect((await suite.api("POST", "/v1/keys/00000000-0000-0000-0000-000000000000/rotate", {})).status).toBe(404);
  });
});

describe("revocation and expiry", () => {
  it("DELETE /v1/keys/{id} → 401 at once in the isolate that revoked it", async () => {
    const k = await createKey({ name: "revoke-here", scopes: ["ratelimits:read"] });
    expect((await as(k.secret)("GET", "/v1/ratelimits/policies")).status).toBe(200);
    expect((await suite.api("DELETE", `/v1/keys/${k.id}`)).status).toBe(200);
    expect((await as(k.secret)("GET", "/v1/ratelimits/policies")).status).toBe(401);
  });

  it("revoked or expired elsewhere (in the database) → 401 within the cache's bound", async () => {
    const a = await createKey({ name: "revoke-elsewhere", scopes: ["ratelimits:read"] });
    const b = await createKey({ name: "expire-elsewhere", scopes: ["ratelimits:read"] });
    for (const k of [a, b]) expect((await as(k.secret)("GET", "/v1/ratelimits/policies")).status).toBe(200);
    await sql(suite.db, "UPDATE admit_keys SET revoked_at = now() WHERE id = $1", [a.id]);
    await sql(suite.db, "UPDATE admit_keys SET expires_at = now() WHERE id = $1", [b.id]);
    for (const k of [a, b]) {
      await until(async () => (await as(k.secret)("GET", "/v1/ratelimits/policies")).status === 401, CACHE_MS + 10_000, `${k.name} refused`);
    }
  });

  it("the cache believes an answer for CACHE_MS at most, and never past the key's expiry (a test clock)", async () => {
    let now = 1_000_000;
    let validMs: number | null = null;
    let revoked = false;
    const cache = new KeyCache(
      async () => (revoked ? null : { id: "k", name: "k", scopes: ["*:read"], names: null, valid_ms: validMs }),
      () => now,
    );
    expect(await cache.verify("s", {})).not.toBeNull();
    revoked = true;
    now += CACHE_MS - 1;
    expect(await cache.verify("s", {})).not.toBeNull(); // still believed: the bound is not passed
    expect(cache.lookups).toBe(1);
    now += 1;
    expect(await cache.verify("s", {})).toBeNull(); // at the bound: asked again, refused
    expect(cache.lookups).toBe(2);
    // A key that expires in 1.2 s by the database's clock is believed for 1.2 s, not 5.
    revoked = false;
    validMs = 1_200;
    expect(await cache.verify("t", {})).not.toBeNull();
    revoked = true;
    now += 1_199;
    expect(await cache.verify("t", {})).not.toBeNull();
    now += 1;
    expect(await cache.verify("t", {})).toBeNull();
  });

  it("the cache is bounded in size: the oldest secret goes first", async () => {
    const cache = new KeyCache(async (s) => ({ id: s, name: s, scopes: ["*:read"], names: null, valid_ms: null }), Date.now, CACHE_MS, 3);
    for (const s of ["a", "b", "c", "d"]) await cache.verify(s, {});
    expect(cache.size).toBe(3);
    await cache.verify("a", {});
    expect(cache.lookups).toBe(5); // "a" had been dropped
  });
});

describe("no round trip added to a decision", () => {
  it("200 simultaneous checks with a freshly created key: all answered, exact counts, one look-up reached Postgres", async () => {
    await suite.api("PUT", "/v1/ratelimits/policies/cold", { algorithm: "fixed_window", limit: 50, window_ms: DAY });
    const k = await createKey({ name: "cold-gateway", scopes: ["ratelimits:decide"], names: ["cold"] });
    const api = as(k.secret);
    const results = await Promise.all(Array.from({ length: 200 }, () => api("POST", "/v1/ratelimits/check", { policy: "cold", key: "burst" })));
    const counts: Record<number, number> = {};
    for (const r of results) counts[r.status] = (counts[r.status] ?? 0) + 1;
    expect(counts).toEqual({ 200: 50, 429: 150 });
    const [row] = await sql<{ lookups: string }>(suite.db, "SELECT lookups FROM admit_keys WHERE id = $1", [k.id]);
    // Single flight: every request waited on the first one's look-up.
    expect(Number(row.lookups)).toBeLessThanOrEqual(2); // a second only if the burst outlasted CACHE_MS
    expect(Number(row.lookups)).toBeGreaterThanOrEqual(1);
    const usage = await suite.api("GET", "/v1/ratelimits/usage?policy=cold&key=burst");
    expect(usage.json).toMatchObject({ admitted: 50 });
  });
});
