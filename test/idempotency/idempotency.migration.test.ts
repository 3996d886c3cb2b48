// Records stored before keys had callers (schema/000114_idempotency_callers.sql): a database migrated
// up to 000113, records written in the old shape, then the rest of the migrations. Each record still
// replays to a retry of its own request by the caller that could have sent it, and to nobody else.
import { createHash } from "node:crypto";
import { copyFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { newSecret, secretHash } from "../../functions/core/apikeys";
import { canonicalJson } from "../../functions/core/validation";
import { call } from "../../functions/http/rpc/call";
import { loadMigrations, migrate, SCHEMA_DIR } from "../../tools/migrate";
import { bindings, client, freshDatabase, type Served, SUITE_BUDGET_MS, serveApp, sql } from "../support";

const FIRST_WITH_CALLERS = 114;
const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");
const stay = (resource: string) => ({ resource, holder: "h", start: "2031-01-01T00:00:00Z", end: "2031-01-02T00:00:00Z" });

let db = "";
let scratch = "";
let server: Served;
const early = { id: "", secret: newSecret() };
const rpcInput = stay("old/rpc");
const rootBody = stay("old/root");
const sharedBody = stay("old/shared");

/** One record as the code before 000114 stored it (no caller), `ago` before now. */
async function oldRecord(key: string, method: string, path: string, hash: string, body: unknown, ago: string) {
  await sql(
    db,
    `INSERT INTO idempotency_keys (key, request_method, request_path, request_hash, response_status, response_headers, response_body, created_at, expires_at)
     VALUES ($1, $2, $3, $4, $5, '{"content-type": "application/json"}', convert_to($6, 'UTF8'), now() - $7::interval, now() + interval '1 h')`,
    [key, method, path, hash, method === "RPC" ? 200 : 201, JSON.stringify(body), ago],
  );
}

beforeAll(async () => {
  db = await freshDatabase("idem_migration", { migrated: false });
  scratch = await mkdtemp(join(tmpdir(), "admit-idem-schema-"));
  for (const m of await loadMigrations()) if (m.id < FIRST_WITH_CALLERS) await copyFile(join(SCHEMA_DIR, m.name), join(scratch, m.name));
  await migrate({ databaseUrl: db, wsProxy: inject("wsProxy"), dir: scratch });

  // Before any key existed: an RPC call's record and an HTTP one (only the root token could send it).
  const rpcHash = sha256((canonicalJson(rpcInput) as { json: string }).json);
  await oldRecord("rpc-old", "RPC", "Admit.reserve", rpcHash, { id: "old-rpc" }, "3 hours");
  await oldRecord("root-old", "POST", "/v1/reservations", sha256(JSON.stringify(rootBody)), { old: "root" }, "2 hours");
  // A key made an hour ago, then an HTTP record that it or the root token may have sent.
  const [{ id }] = await sql<{ id: string }>(
    db,
    "INSERT INTO admit_keys (name, scopes, created_at) VALUES ('early', '{reservations:decide}', now() - interval '1 hour') RETURNING id::text",
  );
  early.id = id;
  await sql(db, "INSERT INTO admit_key_secrets (hash, key_id, start) VALUES ($1::bytea, $2, $3)", [
    await secretHash(early.secret),
    id,
    early.secret.slice(0, 12),
  ]);
  await oldRecord("shared-old", "POST", "/v1/reservations", sha256(JSON.stringify(sharedBody)), { old: "shared" }, "30 minutes");

  await migrate({ databaseUrl: db, wsProxy: inject("wsProxy") });
  server = await serveApp(bindings(db, { DB_BUDGET_MS: SUITE_BUDGET_MS }));
}, 300_000);

afterAll(async () => {
  await server?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe("records stored before callers were recorded", () => {
  it("get the caller they certainly had (the binding's RPC, the root token's before any key), else legacy", async () => {
    expect(await sql(db, "SELECT key, caller FROM idempotency_keys ORDER BY key")).toEqual([
      { key: "root-old", caller: "root" },
      { key: "rpc-old", caller: "binding" },
      { key: "shared-old", caller: "legacy" },
    ]);
  });

  it("the root token's and the binding's retries replay their own records; a key's retry of the root token's runs anew", async () => {
    const root = await client(server.url)("POST", "/v1/reservations", rootBody, { "Idempotency-Key": "root-old" });
    expect([root.status, root.headers.get("idempotent-replayed"), root.json]).toEqual([201, "true", { old: "root" }]);
    const env = bindings(db, { DB_BUDGET_MS: SUITE_BUDGET_MS });
    expect(await call(env, undefined, "reserve", rpcInput, { idempotencyKey: "rpc-old" })).toEqual({ id: "old-rpc" });
    const byKey = await client(server.url, early.secret)("POST", "/v1/reservations", stay("old/root/by-key"), { "Idempotency-Key": "root-old" });
    expect([byKey.status, byKey.headers.get("idempotent-replayed")], byKey.text).toEqual([201, null]);
  });

  it("a legacy record replays to the same request from a caller that existed then, and to no later key", async () => {
    const mine = await client(server.url, early.secret)("POST", "/v1/reservations", sharedBody, { "Idempotency-Key": "shared-old" });
    expect([mine.status, mine.headers.get("idempotent-replayed"), mine.json]).toEqual([201, "true", { old: "shared" }]);
    const root = await client(server.url)("POST", "/v1/reservations", sharedBody, { "Idempotency-Key": "shared-old" });
    expect([root.status, root.headers.get("idempotent-replayed"), root.json]).toEqual([201, "true", { old: "shared" }]);
    const made = await client(server.url)("POST", "/v1/keys", { name: "later", scopes: ["reservations:decide"] });
    expect(made.status).toBe(201);
    // A key made after the record runs its own request: nothing of the record reaches it.
    const later = await client(server.url, made.json.secret)("POST", "/v1/reservations", sharedBody, { "Idempotency-Key": "shared-old" });
    expect([later.status, later.headers.get("idempotent-replayed"), later.json.old]).toEqual([201, null, undefined]);
    // Another request with the key is not told of the record (no 422 naming it): it runs.
    const other = await client(server.url, early.secret)("POST", "/v1/reservations", stay("old/shared/other"), { "Idempotency-Key": "shared-old" });
    expect([other.status, other.headers.get("idempotent-replayed")], other.text).toEqual([201, null]);
    const callers = (await sql<{ caller: string }>(db, "SELECT caller FROM idempotency_keys WHERE key = 'shared-old'")).map((r) => r.caller);
    expect(callers.sort()).toEqual([`key:${early.id}`, `key:${made.json.id}`, "legacy"].sort());
  });

  it("a Worker still running the old code (no caller argument) stores legacy records, which the new code replays", async () => {
    const body = stay("old/worker");
    const hash = sha256(JSON.stringify(body));
    const [{ r }] = await sql<{ r: { outcome: string } }>(db, "SELECT admit_idempotency_claim('old-worker', 'POST', '/v1/reservations', $1, 60, 1000) AS r", [
      hash,
    ]);
    expect(r.outcome).toBe("claimed");
    await sql(db, "SELECT admit_idempotency_store('old-worker', 201, '{\"content-type\": \"application/json\"}', $1)", [
      Buffer.from('{"old":"worker"}').toString("base64"),
    ]);
    const retry = await client(server.url)("POST", "/v1/reservations", body, { "Idempotency-Key": "old-worker" });
    expect([retry.status, retry.headers.get("idempotent-replayed"), retry.json]).toEqual([201, "true", { old: "worker" }]);
  });
});
