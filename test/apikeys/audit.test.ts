// The audit log: every configuration write has its row, written by the same statement (so the same
// transaction) as the change; a write that fails has none; GET /v1/audit pages and filters; secrets
// never reach it; the sweeper keeps AUDIT_RETENTION_DAYS. And the fault side: a connection cut at
// the statement or at COMMIT leaves both the change and its row, or neither.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Bridge, startBridge } from "../../dev/bridge";
import { auditEntry } from "../../functions/core/audit";
import { bindings, client, freshDatabase, type Served, serveApp, servedApp, settled, sql, withFaults } from "../support";

const suite = servedApp("audit");
const DAY = 86_400_000;
const WHSEC = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

async function auditOf(db: string, target: string) {
  return sql<{ action: string; key_name: string; key_id: string | null; change: any }>(
    db,
    "SELECT action, key_name, key_id, change FROM admit_audit WHERE target = $1 ORDER BY id",
    [target],
  );
}

describe("every configuration write has its audit row", () => {
  it("policies, overrides, semaphores, stock, webhook sources and keys, by root or by key", async () => {
    const k = await suite.api("POST", "/v1/keys", { name: "ops", scopes: ["*:admin"] });
    expect(k.status).toBe(201);
    const ops = client(suite.server.url, k.json.secret);
    const writes: Array<[string, string, unknown, string, string]> = [
      ["PUT", "/v1/ratelimits/policies/au-p", { algorithm: "fixed_window", limit: 5, window_ms: DAY }, "au-p", "ratelimits.policy.put"],
      ["PUT", "/v1/ratelimits/policies/au-p/overrides/cust", { limit: 9, valid_from: "2040-01-01T00:00:00Z" }, "au-p", "ratelimits.override.put"],
      ["DELETE", "/v1/ratelimits/policies/au-p/overrides/cust", undefined, "au-p", "ratelimits.override.delete"],
      ["DELETE", "/v1/ratelimits/policies/au-p", undefined, "au-p", "ratelimits.policy.delete"],
      ["PUT", "/v1/semaphores/au-s", { permits: 3 }, "au-s", "semaphores.put"],
      ["PUT", "/v1/inventory/au-i/stock", { from: "2040-01-01", to: "2040-01-03", quantity: 4 }, "au-i", "inventory.stock.put"],
      ["PUT", "/v1/webhooks/sources/au-w", { secret: WHSEC }, "au-w", "webhooks.source.put"],
    ];
    for (const [method, path, body, target, action] of writes) {
      const before = (await auditOf(suite.db, target)).length;
      const res = await ops(method, path, body);
      expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300);
      const rows = await auditOf(suite.db, target);
      expect(rows.length, `${method} ${path}`).toBe(before + 1);
      expect(rows.at(-1)).toMatchObject({ action, key_name: "ops", key_id: k.json.id });
    }
    // Keys' own changes, by root.
    const rotated = await suite.api("POST", `/v1/keys/${k.json.id}/rotate`, { overlap_ms: 0 });
    expect(rotated.status).toBe(200);
    const revoked = await suite.api("DELETE", `/v1/keys/${k.json.id}`);
    expect(revoked.status).toBe(200);
    expect((await auditOf(suite.db, k.json.id)).map((r) => [r.action, r.key_name, r.key_id])).toEqual([
      ["keys.create", "root", null],
      ["keys.rotate", "root", null],
      ["keys.revoke", "root", null],
    ]);
  });

  it("no secret reaches the log: a webhook source's is redacted, a key's is never there", async () => {
    await suite.api("PUT", "/v1/webhooks/sources/au-secret", { secret: WHSEC });
    const [row] = await auditOf(suite.db, "au-secret");
    expect(row.change.secret).toBe("[redacted]");
    const k = await suite.api("POST", "/v1/keys", { name: "secretive", scopes: ["audit:read"] });
    const r = await suite.api("POST", `/v1/keys/${k.json.id}/rotate`, {});
    const all = await sql<{ t: string }>(suite.db, "SELECT json_agg(a)::text AS t FROM admit_audit a");
    expect(all[0].t).not.toContain(WHSEC.slice(6));
    expect(all[0].t).not.toContain(k.json.secret.slice(12));
    expect(all[0].t).not.toContain(r.json.secret.slice(12));
  });

  it("a write that fails leaves no row: an overlapping override (409), stock below what is taken (409), an unknown policy (404)", async () => {
    await suite.api("PUT", "/v1/ratelimits/policies/au-f", { algorithm: "fixed_window", limit: 5, window_ms: DAY });
    await suite.api("PUT", "/v1/ratelimits/policies/au-f/overrides/cust", { limit: 9, valid_from: "2040-01-01T00:00:00Z" });
    const before = (await auditOf(suite.db, "au-f")).length;
    const overlap = await suite.api("PUT", "/v1/ratelimits/policies/au-f/overrides/cust", { limit: 3, valid_from: "2040-06-01T00:00:00Z" });
    expect(overlap.status).toBe(409);
    expect((await suite.api("DELETE", "/v1/ratelimits/policies/au-f/overrides/nobody")).status).toBe(404);
    expect((await auditOf(suite.db, "au-f")).length).toBe(before);

    await suite.api("PUT", "/v1/inventory/au-short/stock", { from: "2040-02-01", to: "2040-02-02", quantity: 1 });
    expect(
      (await suite.api("POST", "/v1/inventory/au-short/bookings", { check_in: "2040-02-01", check_out: "2040-02-02", quantity: 1, holder: "h" })).status,
    ).toBe(201);
    const n = (await auditOf(suite.db, "au-short")).length;
    expect((await suite.api("PUT", "/v1/inventory/au-short/stock", { from: "2040-02-01", to: "2040-02-02", quantity: 0 })).status).toBe(409);
    expect((await auditOf(suite.db, "au-short")).length).toBe(n);

    expect((await suite.api("DELETE", "/v1/ratelimits/policies/au-none")).status).toBe(404);
    expect(await auditOf(suite.db, "au-none")).toEqual([]);
  });
});

describe("GET /v1/audit", () => {
  it("newest first, paged, filtered by name, key and time; audit:read only", async () => {
    const k = await suite.api("POST", "/v1/keys", { name: "pager", scopes: ["semaphores:admin"] });
    const pager = client(suite.server.url, k.json.secret);
    for (let i = 1; i <= 5; i++) expect((await pager("PUT", "/v1/semaphores/au-page", { permits: i })).status).toBeLessThan(300);
    const seen: any[] = [];
    let cursor: string | null = null;
    do {
      const res = await suite.api("GET", `/v1/audit?target=au-page&limit=2${cursor ? `&cursor=${cursor}` : ""}`);
      expect(res.status, res.text).toBe(200);
      seen.push(...res.json.items);
      cursor = res.json.next_cursor;
    } while (cursor);
    expect(seen.map((e) => e.change.permits)).toEqual([5, 4, 3, 2, 1]);
    expect(seen[0]).toMatchObject({ action: "semaphores.put", target: "au-page", key: { id: k.json.id, name: "pager" } });

    const byKey = await suite.api("GET", `/v1/audit?key=${k.json.id}`);
    expect(byKey.json.items).toHaveLength(5);
    const byRoot = await suite.api("GET", "/v1/audit?key=root&target=au-page");
    expect(byRoot.json.items).toEqual([]);
    const future = await suite.api("GET", "/v1/audit?target=au-page&from=2100-01-01T00:00:00Z&to=2100-01-02T00:00:00Z");
    expect(future.json.items).toEqual([]);
    const upTo = await suite.api("GET", `/v1/audit?target=au-page&to=${encodeURIComponent(seen[2].at)}`);
    expect(upTo.json.items.map((e: any) => e.change.permits)).toEqual([2, 1]);

    expect((await pager("GET", "/v1/audit")).status).toBe(403);
    const reader = await suite.api("POST", "/v1/keys", { name: "auditor", scopes: ["audit:read"] });
    expect((await client(suite.server.url, reader.json.secret)("GET", "/v1/audit?limit=1")).status).toBe(200);
  });

  it("key=root and key=binding tell the root token's changes from the Service Binding's (neither has a key id)", async () => {
    expect((await suite.api("PUT", "/v1/semaphores/au-who", { permits: 2 })).status).toBeLessThan(300);
    // The row an audited change made over the binding writes: its actor is the binding (core/audit.ts).
    const entry = auditEntry({ kind: "binding" }, {}, "semaphores.put", "au-who", { permits: 3 });
    await sql(suite.db, "SELECT admit_audit_write($1::jsonb)", [JSON.stringify(entry)]);
    const who = async (key: string) =>
      (await suite.api("GET", `/v1/audit?target=au-who&key=${key}`)).json.items.map((e: any) => [e.key.name, e.change.permits]);
    expect(await who("root")).toEqual([["root", 2]]);
    expect(await who("binding")).toEqual([["binding", 3]]);
    expect((await suite.api("GET", "/v1/audit?target=au-who")).json.items.map((e: any) => e.key)).toEqual([
      { id: null, name: "binding" },
      { id: null, name: "root" },
    ]);
  });

  it("admit_sweep_audit deletes rows past their retention (AUDIT_RETENTION_DAYS, default 90) and keeps the rest", async () => {
    await suite.api("PUT", "/v1/semaphores/au-sweep", { permits: 1 });
    const [row] = await sql<{ days: number }>(
      suite.db,
      "SELECT round(extract(epoch FROM expires_at - at) / 86400)::int AS days FROM admit_audit WHERE target = 'au-sweep'",
    );
    expect(row.days).toBe(90);
    await sql(suite.db, "UPDATE admit_audit SET expires_at = now() - interval '1 s' WHERE target = 'au-sweep'");
    const [{ n }] = await sql<{ n: number }>(suite.db, "SELECT admit_sweep_batch('audit') AS n");
    expect(n).toBeGreaterThanOrEqual(1);
    expect(await auditOf(suite.db, "au-sweep")).toEqual([]);
    expect((await auditOf(suite.db, "au-page")).length).toBe(5);
  });
});

describe("the change and its row under connection faults", () => {
  let db: string;
  let bridge: Bridge;
  let app: Served;
  let api: ReturnType<typeof client>;
  beforeAll(async () => {
    db = await freshDatabase("audit_faults");
    bridge = await startBridge();
    app = await serveApp(bindings(db, { NEON_WS_PROXY: bridge.wsProxy, DB_BUDGET_MS: "1500", AUDIT_RETENTION_DAYS: "7" }));
    api = client(app.url);
  });
  afterAll(async () => {
    await app?.close();
    await bridge?.close();
  });

  const policy = async (name: string) => (await sql(db, "SELECT 1 FROM ratelimit_policies WHERE name = $1", [name])).length;
  const rows = async (name: string) => (await auditOf(db, name)).length;
  const settle = () => settled(bridge, (text) => sql(db, text));
  const put = (name: string, headers: Record<string, string> = {}) =>
    api("PUT", `/v1/ratelimits/policies/${name}`, { algorithm: "fixed_window", limit: 5, window_ms: DAY }, headers);

  it.each([
    ["the statement", "admit_ratelimit_put_policy"],
    ["COMMIT (an Idempotency-Key's transaction)", "COMMIT"],
  ] as const)("cut before %s: neither the policy nor its row; cut after it: both", async (_what, match) => {
    const tag = match === "COMMIT" ? "tx" : "st";
    const keyed = (k: string): Record<string, string> => (match === "COMMIT" ? { "Idempotency-Key": k } : {});
    const before = await withFaults(bridge, { statement: { match, action: "drop-before" } }, () => put(`f-${tag}-before`, keyed(`${tag}-before`)));
    expect([503, 504]).toContain(before.status);
    await settle();
    expect([await policy(`f-${tag}-before`), await rows(`f-${tag}-before`)]).toEqual([0, 0]);

    const after = await withFaults(bridge, { statement: { match, action: "drop-after" } }, () => put(`f-${tag}-after`, keyed(`${tag}-after`)));
    expect(after.status).toBe(504);
    await settle();
    expect([await policy(`f-${tag}-after`), await rows(`f-${tag}-after`)]).toEqual([1, 1]);
    // AUDIT_RETENTION_DAYS reached the row.
    const [r] = await sql<{ days: number }>(db, "SELECT round(extract(epoch FROM expires_at - at) / 86400)::int AS days FROM admit_audit WHERE target = $1", [
      `f-${tag}-after`,
    ]);
    expect(r.days).toBe(7);
  });
});
