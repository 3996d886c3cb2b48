// Idempotency-Key contract over HTTP against real Postgres: replay, mismatch, what is stored, what
// rolls back, in-progress keys, expiry and the sweep.
import { request as httpRequest } from "node:http";
import { createServer, type Server, type Socket, connect as tcpConnect } from "node:net";
import { describe, expect, it } from "vitest";
import { lockKey } from "../../functions/core/lock-keys";
import { bindings, client, connect, serveApp, servedApp, sql, TOKEN, whileHolding, withServedApp } from "../support";

const suite = servedApp("idempotency");

let n = 0;
/** A reservation body on a resource of its own. */
function booking(label: string) {
  n += 1;
  return { resource: `idem/${label}/${n}`, holder: "h", start: "2021-01-01T00:00:00Z", end: "2021-01-02T00:00:00Z" };
}

const key = (label: string) => `${label}-${Math.random().toString(36).slice(2)}`;

async function reservationCount(resource: string): Promise<number> {
  const [{ c }] = await sql<{ c: number }>(suite.db, "SELECT count(*)::int AS c FROM reservations WHERE resource = $1", [resource]);
  return c;
}

async function storedKeys(k: string) {
  return sql<{ response_status: number }>(suite.db, "SELECT response_status FROM idempotency_keys WHERE key = $1", [k]);
}

/** One request on its own connection, returning the exact body bytes as received. */
function rawPost(
  base: string,
  path: string,
  body: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, unknown>; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, base);
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: "POST",
        agent: false,
        headers: { ...headers, "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, bytes: Buffer.concat(chunks) }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

describe("Idempotency-Key on POST /v1/reservations", () => {
  it("a retry with the same key and body replays the stored 201 (Idempotent-Replayed: true), no second reservation", async () => {
    const body = booking("replay");
    const k = key("replay");
    const first = await suite.api("POST", "/v1/reservations", body, { "Idempotency-Key": k });
    expect(first.status).toBe(201);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const again = await suite.api("POST", "/v1/reservations", body, { "Idempotency-Key": k });
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.text).toBe(first.text);
    expect(again.headers.get("content-type")).toBe(first.headers.get("content-type"));
    expect(again.headers.get("location")).toBe(`/v1/reservations/${first.json.id}`);
    expect(await reservationCount(body.resource)).toBe(1);
    expect(await storedKeys(k)).toEqual([{ response_status: 201 }]);
  });

  it("the replayed body is byte-identical on the wire", async () => {
    const payload = JSON.stringify({ ...booking("bytes"), metadata: { note: "naïve café ✓", n: 1.5 } });
    const headers = { Authorization: `Bearer ${TOKEN}`, "Idempotency-Key": key("bytes") };
    const first = await rawPost(suite.server.url, "/v1/reservations", payload, headers);
    const second = await rawPost(suite.server.url, "/v1/reservations", payload, headers);
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(first.headers["idempotent-replayed"]).toBeUndefined();
    expect(second.headers["idempotent-replayed"]).toBe("true");
    expect(second.bytes.length).toBeGreaterThan(100);
    expect(Buffer.compare(second.bytes, first.bytes)).toBe(0);
    expect(second.headers["content-type"]).toBe(first.headers["content-type"]);
  });

  it("the same key with a different body, path or method → 422 problem, and nothing runs", async () => {
    const body = booking("mismatch");
    const k = key("mismatch");
    expect((await suite.api("POST", "/v1/reservations", body, { "Idempotency-Key": k })).status).toBe(201);
    const other = booking("mismatch-other");
    const res = await suite.api("POST", "/v1/reservations", other, { "Idempotency-Key": k });
    expect(res.status).toBe(422);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(res.json).toMatchObject({ type: "/problems/idempotency-key-reused", status: 422 });
    expect(res.json.detail).toMatch(/different body/);
    expect(await reservationCount(other.resource)).toBe(0);
    // Other path or method.
    const del = await suite.api("DELETE", "/v1/reservations/00000000-0000-4000-8000-000000000000", undefined, { "Idempotency-Key": k });
    expect(del.status).toBe(422);
    expect(del.json.detail).toMatch(/POST \/v1\/reservations/);
  });

  it("a key of 0 or more than 255 characters → 422 with a field error; 255 is fine", async () => {
    const long = await suite.api("POST", "/v1/reservations", booking("long"), { "Idempotency-Key": "k".repeat(256) });
    expect(long.status).toBe(422);
    expect(long.json.errors).toEqual([{ in: "header", path: "Idempotency-Key", message: expect.stringContaining("1–255") }]);
    const empty = await suite.api("POST", "/v1/reservations", booking("empty"), { "Idempotency-Key": "" });
    expect(empty.status).toBe(422);
    const max = key("max").padEnd(255, "m");
    expect((await suite.api("POST", "/v1/reservations", booking("max"), { "Idempotency-Key": max })).status).toBe(201);
  });

  it("without the header nothing changes: two identical POSTs → 201 then 409 reservation-conflict, no record", async () => {
    const body = booking("plain");
    expect((await suite.api("POST", "/v1/reservations", body)).status).toBe(201);
    const second = await suite.api("POST", "/v1/reservations", body);
    expect(second.status).toBe(409);
    expect(second.json.type).toBe("/problems/reservation-conflict");
    expect(second.headers.get("idempotent-replayed")).toBeNull();
  });

  it("GET ignores the header", async () => {
    const res = await suite.api("GET", "/v1/reservations?resource=nothing", undefined, { "Idempotency-Key": "get-key" });
    expect(res.status).toBe(200);
    expect(await storedKeys("get-key")).toEqual([]);
  });
});

describe("what is stored", () => {
  it("a 409 overlap is the request's outcome: stored and replayed even after the overlap is gone", async () => {
    const body = booking("conflict");
    const blocker = await suite.api("POST", "/v1/reservations", body);
    const k = key("conflict");
    const refused = await suite.api("POST", "/v1/reservations", { ...body, holder: "other" }, { "Idempotency-Key": k });
    expect(refused.status).toBe(409);
    expect(refused.json.type).toBe("/problems/reservation-conflict");
    expect((await suite.api("DELETE", `/v1/reservations/${blocker.json.id}`)).status).toBe(204);
    const replay = await suite.api("POST", "/v1/reservations", { ...body, holder: "other" }, { "Idempotency-Key": k });
    expect(replay.status).toBe(409);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.text).toBe(refused.text);
    expect(await reservationCount(body.resource)).toBe(1); // only the cancelled blocker
  });

  it("a 422 validation failure is not stored: the key then serves a corrected request", async () => {
    const k = key("invalid");
    const body = booking("invalid");
    const bad = await suite.api("POST", "/v1/reservations", { ...body, end: "2020-01-01T00:00:00Z" }, { "Idempotency-Key": k });
    expect(bad.status).toBe(422);
    expect(await storedKeys(k)).toEqual([]);
    const good = await suite.api("POST", "/v1/reservations", body, { "Idempotency-Key": k });
    expect(good.status).toBe(201);
    expect(good.headers.get("idempotent-replayed")).toBeNull();
  });

  it("a 204 DELETE is stored and replayed without a body", async () => {
    const made = await suite.api("POST", "/v1/reservations", booking("delete"));
    const k = key("delete");
    const first = await suite.api("DELETE", `/v1/reservations/${made.json.id}`, undefined, { "Idempotency-Key": k });
    expect(first.status).toBe(204);
    const again = await suite.api("DELETE", `/v1/reservations/${made.json.id}`, undefined, { "Idempotency-Key": k });
    expect(again.status).toBe(204);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.text).toBe("");
  });

  it("a 503 (lock wait timed out) rolls back the effect and the key: the retry runs and succeeds", async () => {
    const body = booking("rollback");
    const k = key("rollback");
    await whileHolding(suite.db, "SELECT pg_advisory_xact_lock($1::bigint)", [lockKey("reservation", body.resource)], () =>
      withServedApp(bindings(suite.db, { LOCK_TIMEOUT_MS: "300" }), async (api) => {
        const res = await api("POST", "/v1/reservations", body, { "Idempotency-Key": k });
        expect(res.status).toBe(503);
        expect(await storedKeys(k)).toEqual([]);
      }),
    );
    expect(await reservationCount(body.resource)).toBe(0);
    const retry = await suite.api("POST", "/v1/reservations", body, { "Idempotency-Key": k });
    expect(retry.status).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBeNull();
    expect(await reservationCount(body.resource)).toBe(1);
  });

  it("a key still held by an open transaction → 409 + Retry-After within lock_timeout, nothing run; then it runs", async () => {
    const body = booking("held");
    const k = key("held");
    const claim =
      "INSERT INTO idempotency_keys (caller, key, request_method, request_path, request_hash, expires_at) VALUES ('root', $1, 'POST', '/v1/reservations', 'x', now() + interval '1 h')";
    await whileHolding(suite.db, claim, [k], () =>
      withServedApp(bindings(suite.db, { LOCK_TIMEOUT_MS: "300" }), async (api) => {
        const res = await api("POST", "/v1/reservations", body, { "Idempotency-Key": k });
        expect(res.status).toBe(409);
        expect(res.json.type).toBe("/problems/idempotency-key-in-use");
        expect(res.headers.get("retry-after")).toBe("1");
        expect(await reservationCount(body.resource)).toBe(0);
      }),
    );
    expect((await suite.api("POST", "/v1/reservations", body, { "Idempotency-Key": k })).status).toBe(201);
  });
});

// Issue 28, item 6: the keyed 429 is not stored (a retry must decide again), but rolling the key
// back rolled back the check itself: on the old code usage read attempted 2, rejected 1 and two log
// rows where four calls were made.
describe("a keyed rate-limit denial", () => {
  it("is not stored, yet counted and logged like an unkeyed one: attempted 4, rejected 3, four log rows", async () => {
    const put = await suite.api("PUT", "/v1/ratelimits/policies/idem-logged", { algorithm: "fixed_window", limit: 1, window_ms: 366 * 86_400_000, log: true });
    expect(put.status).toBe(201);
    const checkBody = { policy: "idem-logged", key: "k" };
    const keys = [key("rl-a"), key("rl-b"), key("rl-c")];
    const statuses = [];
    for (const k of keys) statuses.push((await suite.api("POST", "/v1/ratelimits/check", checkBody, { "Idempotency-Key": k })).status);
    statuses.push((await suite.api("POST", "/v1/ratelimits/check", checkBody)).status);
    expect(statuses).toEqual([200, 429, 429, 429]);
    const usage = await suite.api("GET", "/v1/ratelimits/usage?policy=idem-logged&key=k");
    expect([usage.json.admitted, usage.json.attempted, usage.json.rejected]).toEqual([1, 4, 3]);
    expect(await sql(suite.db, "SELECT allowed FROM ratelimit_log WHERE policy = 'idem-logged' ORDER BY id")).toEqual([
      { allowed: true },
      { allowed: false },
      { allowed: false },
      { allowed: false },
    ]);
    // The 200 is stored; the 429s are not: their keys are free, and a retry decides again (and is counted).
    expect(await storedKeys(keys[0])).toEqual([{ response_status: 200 }]);
    expect([...(await storedKeys(keys[1])), ...(await storedKeys(keys[2]))]).toEqual([]);
    const retry = await suite.api("POST", "/v1/ratelimits/check", checkBody, { "Idempotency-Key": keys[1] });
    expect([retry.status, retry.headers.get("idempotent-replayed")]).toEqual([429, null]);
    expect((await suite.api("GET", "/v1/ratelimits/usage?policy=idem-logged&key=k")).json.attempted).toBe(5);
  });

  it("a same-key request waiting on it claims the released key once it commits, and decides again", async () => {
    // Logged: never answered from the deny cache, so every call reaches the database and is counted.
    await suite.api("PUT", "/v1/ratelimits/policies/idem-release", { algorithm: "fixed_window", limit: 1, window_ms: 366 * 86_400_000, log: true });
    const checkBody = { policy: "idem-release", key: "k" };
    expect((await suite.api("POST", "/v1/ratelimits/check", checkBody)).status).toBe(200);
    const k = key("released");
    const hash = (await import("node:crypto")).createHash("sha256").update(JSON.stringify(checkBody)).digest("hex");
    const first = await connect(suite.db);
    try {
      // What a keyed 429's transaction does: claim the key, decide (counted), release the key, commit.
      await first.query("BEGIN");
      await first.query("SELECT admit_idempotency_claim($1, 'POST', '/v1/ratelimits/check', $2, 60, 1000, 'root')", [k, hash]);
      await first.query("SELECT admit_ratelimit_check('idem-release', 'k', 1, NULL, 1000)");
      const waiting = suite.api("POST", "/v1/ratelimits/check", checkBody, { "Idempotency-Key": k });
      for (let i = 0; i < 100; i++) {
        const [{ w }] = await sql<{ w: number }>(suite.db, "SELECT count(*)::int AS w FROM pg_locks WHERE NOT granted AND locktype = 'transactionid'");
        if (w > 0) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      await first.query("SELECT admit_idempotency_release($1, 'root')", [k]);
      await first.query("COMMIT");
      const res = await waiting;
      expect([res.status, res.headers.get("idempotent-replayed")]).toEqual([429, null]);
    } finally {
      await first.end();
    }
    expect(await storedKeys(k)).toEqual([]);
    const usage = await suite.api("GET", "/v1/ratelimits/usage?policy=idem-release&key=k");
    expect([usage.json.attempted, usage.json.rejected]).toEqual([3, 2]);
  });
});

describe("a same-key request waiting on the first", () => {
  it("blocks on the uncommitted key and, once the first commits, replays its response", async () => {
    const body = booking("waiter");
    const k = key("waiter");
    const hash = (await import("node:crypto")).createHash("sha256").update(JSON.stringify(body)).digest("hex");
    const holder = await connect(suite.db);
    try {
      await holder.query("BEGIN");
      // What the first request's transaction holds just before COMMIT: its key and stored response.
      await holder.query(
        "INSERT INTO idempotency_keys (caller, key, request_method, request_path, request_hash, response_status, response_headers, response_body, expires_at) VALUES ('root', $1, 'POST', '/v1/reservations', $2, 201, '{\"content-type\": \"application/json\"}', convert_to('{\"first\":true}', 'UTF8'), now() + interval '1 h')",
        [k, hash],
      );
      const waiting = suite.api("POST", "/v1/reservations", body, { "Idempotency-Key": k });
      // Commit only once the second request is seen waiting on the key in pg_locks (no sleep-and-hope).
      for (let i = 0; i < 100; i++) {
        const [{ w }] = await sql<{ w: number }>(suite.db, "SELECT count(*)::int AS w FROM pg_locks WHERE NOT granted AND locktype = 'transactionid'");
        if (w > 0) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      await holder.query("COMMIT");
      const res = await waiting;
      expect(res.status).toBe(201);
      expect(res.headers.get("idempotent-replayed")).toBe("true");
      expect(res.json).toEqual({ first: true });
    } finally {
      await holder.end();
    }
    expect(await reservationCount(body.resource)).toBe(0); // the waiter did not run the request
  });
});

describe("expiry", () => {
  it("records live IDEMPOTENCY_TTL_S seconds; an expired key runs afresh; the sweep removes expired records", async () => {
    const short = await serveApp(bindings(suite.db, { IDEMPOTENCY_TTL_S: "120" }));
    const body = booking("ttl");
    const k = key("ttl");
    try {
      expect((await client(short.url)("POST", "/v1/reservations", body, { "Idempotency-Key": k })).status).toBe(201);
    } finally {
      await short.close();
    }
    const [{ ttl }] = await sql<{ ttl: number }>(
      suite.db,
      "SELECT extract(epoch FROM expires_at - created_at)::int AS ttl FROM idempotency_keys WHERE key = $1",
      [k],
    );
    expect(ttl).toBe(120);
    const [{ dflt }] = await sql<{ dflt: number }>(
      suite.db,
      "SELECT max(extract(epoch FROM expires_at - created_at))::int AS dflt FROM idempotency_keys WHERE key <> $1",
      [k],
    );
    expect(dflt).toBe(86_400);

    await sql(suite.db, "UPDATE idempotency_keys SET expires_at = now() - interval '1 s' WHERE key = $1", [k]);
    // Expired: the same request runs again (and meets its own first reservation).
    const rerun = await suite.api("POST", "/v1/reservations", body, { "Idempotency-Key": k });
    expect(rerun.status).toBe(409);
    expect(rerun.json.type).toBe("/problems/reservation-conflict");
    expect(rerun.headers.get("idempotent-replayed")).toBeNull();

    await sql(suite.db, "UPDATE idempotency_keys SET expires_at = now() - interval '1 s' WHERE key = $1", [k]);
    const [{ swept }] = await sql<{ swept: number }>(suite.db, "SELECT admit_sweep_idempotency() AS swept");
    expect(swept).toBe(1);
    expect(await storedKeys(k)).toEqual([]);
    const [{ report }] = await sql<{ report: Record<string, number> }>(suite.db, "SELECT admit_sweep() AS report");
    expect(report.idempotency).toBe(0);
  });
});

describe("documentation", () => {
  it("the OpenAPI document lists the Idempotency-Key header on every write under /v1 except the webhook delivery", async () => {
    const doc = (await suite.api("GET", "/openapi.json")).json;
    const has = (method: string, path: string) =>
      (doc.paths[path][method].parameters ?? []).some((p: { name: string; in: string }) => p.in === "header" && p.name === "Idempotency-Key");
    expect(has("post", "/v1/reservations")).toBe(true);
    expect(has("delete", "/v1/reservations/{id}")).toBe(true);
    expect(has("put", "/v1/webhooks/sources/{source}")).toBe(true);
    expect(has("post", "/v1/webhooks/{source}/events/claim")).toBe(true);
    expect(has("get", "/v1/reservations")).toBe(false);
    expect(has("post", "/v1/webhooks/{source}")).toBe(false);
    expect(doc.paths["/v1/webhooks/{source}"].post.security).toEqual([]);
  });
});

/**
 * A TCP proxy in front of the suite's Postgres that, once the client sends COMMIT, either forwards it
 * and swallows every answer ("lost reply": it commits, the Worker never hears) or swallows the COMMIT
 * itself ("lost commit": nothing commits while the connection lives).
 */
async function commitEater(target: URL, mode: "lost reply" | "lost commit") {
  const sockets = new Set<Socket>();
  const server: Server = createServer((down) => {
    const up = tcpConnect(Number(target.port), target.hostname);
    sockets.add(down).add(up);
    let silent = false;
    down.on("data", (chunk: Buffer) => {
      const isCommit = chunk[0] === 0x51 /* 'Q' */ && chunk.includes(Buffer.from("COMMIT\0"));
      if (isCommit) silent = true;
      if (!(isCommit && mode === "lost commit")) up.write(chunk);
    });
    up.on("data", (chunk: Buffer) => {
      if (!silent) down.write(chunk);
    });
    for (const s of [up, down]) s.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = new URL(target);
  url.port = String((server.address() as { port: number }).port);
  return {
    url: url.toString(),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe("504 outcome unknown, then a retry with the same key", () => {
  it("COMMIT applied but its answer lost → 504; the retry replays the stored 201, no second reservation", async () => {
    const proxy = await commitEater(new URL(suite.db), "lost reply");
    const flaky = await serveApp(bindings(proxy.url, { DB_BUDGET_MS: "1500" }));
    const body = booking("lost-reply");
    const k = key("lost-reply");
    try {
      const res = await client(flaky.url)("POST", "/v1/reservations", body, { "Idempotency-Key": k });
      expect(res.status).toBe(504);
      expect(res.json.type).toBe("/problems/outcome-unknown");
      expect(res.json.detail).toMatch(/same Idempotency-Key returns the real outcome/);
    } finally {
      await flaky.close();
      await proxy.close();
    }
    const retry = await suite.api("POST", "/v1/reservations", body, { "Idempotency-Key": k });
    expect(retry.status).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(await sql(suite.db, "SELECT id FROM reservations WHERE resource = $1", [body.resource])).toEqual([{ id: retry.json.id }]);
  });

  it("COMMIT never arrived → 504; the retry (once the dead connection is gone) runs the request for real", async () => {
    const proxy = await commitEater(new URL(suite.db), "lost commit");
    const flaky = await serveApp(bindings(proxy.url, { DB_BUDGET_MS: "1500" }));
    const body = booking("lost-commit");
    const k = key("lost-commit");
    try {
      const res = await client(flaky.url)("POST", "/v1/reservations", body, { "Idempotency-Key": k });
      expect(res.status).toBe(504);
    } finally {
      await flaky.close();
      await proxy.close();
    }
    // Postgres rolls the transaction back when the connection drops; poll until it has noticed.
    let retry = await suite.api("POST", "/v1/reservations", body, { "Idempotency-Key": k });
    for (let i = 0; i < 50 && retry.status === 409 && retry.json.type === "/problems/idempotency-key-in-use"; i++) {
      await new Promise((r) => setTimeout(r, 100));
      retry = await suite.api("POST", "/v1/reservations", body, { "Idempotency-Key": k });
    }
    expect(retry.status).toBe(201);
    expect(retry.headers.get("idempotent-replayed")).toBeNull();
    expect(await reservationCount(body.resource)).toBe(1);
  });
});
