// A key made by a key never outlives it (schema/000112_keys_made_by.sql, docs/api-keys.md): its expiry is
// at most its maker's (omitted: the maker's; later: 422), a maker revoked or expired by the database's
// clock makes nothing even while a cache still believes it, revoking a maker revokes everything it
// made (in this isolate at once, each with its audit row), and rotating the maker changes neither.
import { describe, expect, it } from "vitest";
import { CACHE_MS } from "../../functions/core/apikeys";
import { client, servedApp, sql, until } from "../support";

const suite = servedApp("keys_lineage");

type Made = { id: string; secret: string; expires_at: string | null; made_by: string | null };

async function createKey(body: Record<string, unknown>, api = suite.api): Promise<Made> {
  const res = await api("POST", "/v1/keys", body);
  expect(res.status, res.text).toBe(201);
  return res.json as Made;
}
const as = (secret: string) => client(suite.server.url, secret);
const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();
/** A route every key of these tests may call. */
const read = (secret: string) => as(secret)("GET", "/v1/ratelimits/policies");
const MAKER = ["keys:admin", "ratelimits:read"];

describe("a made key's expiry", () => {
  it("omitted: the maker's; earlier: as asked; later than the maker's: 422 naming expires_at, and no key made", async () => {
    const maker = await createKey({ name: "exp-maker", scopes: MAKER, expires_at: inAnHour() });
    const api = as(maker.secret);
    const inherited = await createKey({ name: "exp-inherited", scopes: ["ratelimits:read"] }, api);
    expect(inherited.expires_at).toBe(maker.expires_at);
    expect(inherited.made_by).toBe(maker.id);
    const earlier = new Date(Date.parse(maker.expires_at as string) - 60_000).toISOString();
    expect(Date.parse((await createKey({ name: "exp-earlier", scopes: ["ratelimits:read"], expires_at: earlier }, api)).expires_at as string)).toBe(
      Date.parse(earlier),
    );
    const before = await sql<{ n: number }>(suite.db, "SELECT count(*)::int AS n FROM admit_keys WHERE name = 'exp-later'");
    const later = await api("POST", "/v1/keys", {
      name: "exp-later",
      scopes: ["ratelimits:read"],
      expires_at: new Date(Date.now() + 86_400_000).toISOString(),
    });
    expect(later.status, later.text).toBe(422);
    expect(later.json.errors).toEqual([expect.objectContaining({ in: "body", path: "expires_at" })]);
    expect(await sql<{ n: number }>(suite.db, "SELECT count(*)::int AS n FROM admit_keys WHERE name = 'exp-later'")).toEqual(before);
    // The root token's keys are not bounded: omitted is never.
    expect((await createKey({ name: "exp-root", scopes: ["ratelimits:read"] })).expires_at).toBeNull();
  });

  it("a key made with no expiry stops working when its maker expires, and makes no key after that", async () => {
    // The maker expires a few seconds from now; its key is made at once, with no expiry asked for.
    const maker = await createKey({ name: "short-maker", scopes: MAKER, expires_at: new Date(Date.now() + 6_000).toISOString() });
    const made = await createKey({ name: "short-made", scopes: ["keys:admin", "ratelimits:read"] }, as(maker.secret));
    expect((await read(made.secret)).status).toBe(200);
    await until(async () => (await read(made.secret)).status === 401, 6_000 + CACHE_MS + 20_000, "the made key refused once its maker expired");
    expect((await as(made.secret)("POST", "/v1/keys", { name: "grandchild", scopes: ["ratelimits:read"] })).status).toBe(401);
    expect(await sql(suite.db, "SELECT 1 FROM admit_keys WHERE name = 'grandchild'")).toEqual([]);
  }, 60_000);

  it("a maker revoked or expired by the database's clock makes no key, even while this isolate's cache still believes it", async () => {
    for (const end of ["UPDATE admit_keys SET revoked_at = now() WHERE id = $1", "UPDATE admit_keys SET expires_at = now() WHERE id = $1"]) {
      const maker = await createKey({ name: "stale-maker", scopes: MAKER });
      expect((await read(maker.secret)).status).toBe(200); // cached now, for up to CACHE_MS
      await sql(suite.db, end, [maker.id]); // as another isolate's DELETE (or the clock) would
      const res = await as(maker.secret)("POST", "/v1/keys", { name: "from-stale-maker", scopes: ["ratelimits:read"] });
      expect(res.status, res.text).toBe(401);
      expect(await sql(suite.db, "SELECT 1 FROM admit_keys WHERE made_by = $1", [maker.id])).toEqual([]);
    }
  });
});

describe("revoking a maker revokes what it made", () => {
  it("every key it made, directly or not, at once in this isolate, each with its audit row; other keys go on", async () => {
    const maker = await createKey({ name: "tree-maker", scopes: MAKER });
    const child = await createKey({ name: "tree-child", scopes: MAKER }, as(maker.secret));
    const grandchild = await createKey({ name: "tree-grandchild", scopes: ["ratelimits:read"] }, as(child.secret));
    const bystander = await createKey({ name: "tree-bystander", scopes: ["ratelimits:read"] });
    for (const k of [maker, child, grandchild, bystander]) expect((await read(k.secret)).status).toBe(200);
    const revoked = await suite.api("DELETE", `/v1/keys/${maker.id}`);
    expect(revoked.status, revoked.text).toBe(200);
    expect([...revoked.json.also_revoked].sort()).toEqual([child.id, grandchild.id].sort());
    for (const k of [maker, child, grandchild]) expect((await read(k.secret)).status, k.id).toBe(401);
    expect((await read(bystander.secret)).status).toBe(200);
    const audit = await sql<{ target: string; change: { revoked_with?: string } }>(
      suite.db,
      "SELECT target, change FROM admit_audit WHERE action = 'keys.revoke' AND target = ANY($1::text[]) ORDER BY id",
      [[maker.id, child.id, grandchild.id]],
    );
    expect(audit.map((a) => [a.target, a.change.revoked_with ?? null])).toEqual(
      expect.arrayContaining([
        [maker.id, null],
        [child.id, maker.id],
        [grandchild.id, maker.id],
      ]),
    );
    expect(audit).toHaveLength(3);
  });

  it("keys made while the maker's revocation runs: every one that was made is revoked with it", async () => {
    const maker = await createKey({ name: "race-maker", scopes: MAKER });
    const api = as(maker.secret);
    expect((await read(maker.secret)).status).toBe(200);
    const creates = Array.from({ length: 20 }, (_, i) => api("POST", "/v1/keys", { name: `race-made-${i}`, scopes: ["ratelimits:read"] }));
    const revoke = suite.api("DELETE", `/v1/keys/${maker.id}`);
    const answers = await Promise.all(creates);
    expect((await revoke).status).toBe(200);
    // Each creation either happened (and its key is revoked with its maker) or was refused as the maker's own 401.
    for (const a of answers) expect([201, 401], a.text).toContain(a.status);
    const made = await sql<{ id: string; revoked_at: Date | null }>(suite.db, "SELECT id, revoked_at FROM admit_keys WHERE made_by = $1", [maker.id]);
    expect(made.map((m) => m.id).sort()).toEqual(
      answers
        .filter((a) => a.status === 201)
        .map((a) => a.json.id)
        .sort(),
    );
    expect(made.filter((m) => m.revoked_at === null)).toEqual([]);
    for (const a of answers.filter((x) => x.status === 201)) expect((await read(a.json.secret)).status).toBe(401);
  });
});

describe("rotation", () => {
  it("rotating the maker keeps both the bound and the revocation of what it made", async () => {
    const maker = await createKey({ name: "rot-maker", scopes: MAKER, expires_at: inAnHour() });
    const before = await createKey({ name: "rot-before", scopes: ["ratelimits:read"] }, as(maker.secret));
    const rotated = await as(maker.secret)("POST", `/v1/keys/${maker.id}/rotate`, { overlap_ms: 0 });
    expect(rotated.status, rotated.text).toBe(200);
    const after = await createKey({ name: "rot-after", scopes: ["ratelimits:read"] }, as(rotated.json.secret));
    expect(after.expires_at).toBe(maker.expires_at);
    const later = await as(rotated.json.secret)("POST", "/v1/keys", {
      name: "rot-later",
      scopes: ["ratelimits:read"],
      expires_at: new Date(Date.now() + 86_400_000).toISOString(),
    });
    expect(later.status).toBe(422);
    expect((await suite.api("DELETE", `/v1/keys/${maker.id}`)).json.also_revoked.sort()).toEqual([before.id, after.id].sort());
    for (const k of [before, after]) expect((await read(k.secret)).status).toBe(401);
  });

  it("a key rotates only keys that end no later than it does: it would hand itself a secret that outlives it (403)", async () => {
    const maker = await createKey({ name: "rot-bound", scopes: MAKER, expires_at: inAnHour() });
    const forever = await createKey({ name: "rot-forever", scopes: ["ratelimits:read"] });
    const refused = await as(maker.secret)("POST", `/v1/keys/${forever.id}/rotate`, { overlap_ms: 0 });
    expect(refused.status, refused.text).toBe(403);
    expect(refused.json).toMatchObject({ type: "/problems/forbidden", expires_at: maker.expires_at });
    expect(refused.text).not.toContain("admit_");
    expect((await read(forever.secret)).status).toBe(200); // not rotated
    const own = await createKey({ name: "rot-own", scopes: ["ratelimits:read"] }, as(maker.secret));
    expect((await as(maker.secret)("POST", `/v1/keys/${own.id}/rotate`, { overlap_ms: 0 })).status).toBe(200);
  });
});
