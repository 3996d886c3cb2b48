// Whose Idempotency-Key it is: each caller (a key by its id, the root token, the RPC binding) has
// keys of its own. The same key sent by another caller is a new key: never a replay of someone
// else's answer, never a 422 naming someone else's request, never blocked by someone else's use.
import { describe, expect, it } from "vitest";
import { call } from "../../functions/http/rpc/call";
import { bindings, client, SUITE_BUDGET_MS, servedApp, sql } from "../support";

const suite = servedApp("idempotency_callers");

let n = 0;
const key = (label: string) => `${label}-${++n}-${Math.random().toString(36).slice(2)}`;

async function makeKey(name: string, scopes: string[]) {
  const res = await suite.api("POST", "/v1/keys", { name, scopes });
  expect(res.status, res.text).toBe(201);
  return res.json as { id: string; secret: string };
}
const as = (secret: string) => client(suite.server.url, secret);

async function policy(name: string) {
  const put = await suite.api("PUT", `/v1/ratelimits/policies/${name}`, { algorithm: "fixed_window", limit: 10, window_ms: 366 * 86_400_000 });
  expect(put.status, put.text).toBe(201);
}

async function usage(name: string, k: string) {
  const u = await suite.api("GET", `/v1/ratelimits/usage?policy=${name}&key=${k}`);
  return [u.json.attempted, u.json.admitted];
}

describe("an Idempotency-Key belongs to the caller that sent it", () => {
  it("two keys sending the same Idempotency-Key and body each get their own effect; each replays only its own answer", async () => {
    await policy("idem-callers");
    const a = await makeKey("idem-a", ["ratelimits:decide"]);
    const b = await makeKey("idem-b", ["ratelimits:decide"]);
    const k = key("shared");
    const body = { policy: "idem-callers", key: "c" };
    const first = await as(a.secret)("POST", "/v1/ratelimits/check", body, { "Idempotency-Key": k });
    expect([first.status, first.json.remaining]).toEqual([200, 9]);
    const other = await as(b.secret)("POST", "/v1/ratelimits/check", body, { "Idempotency-Key": k });
    expect([other.status, other.headers.get("idempotent-replayed"), other.json.remaining]).toEqual([200, null, 8]);
    expect(await usage("idem-callers", "c")).toEqual([2, 2]);
    // Each caller's retry replays its own answer, byte for byte, and counts nothing.
    const againA = await as(a.secret)("POST", "/v1/ratelimits/check", body, { "Idempotency-Key": k });
    const againB = await as(b.secret)("POST", "/v1/ratelimits/check", body, { "Idempotency-Key": k });
    expect([againA.headers.get("idempotent-replayed"), againA.text]).toEqual(["true", first.text]);
    expect([againB.headers.get("idempotent-replayed"), againB.text]).toEqual(["true", other.text]);
    expect(await usage("idem-callers", "c")).toEqual([2, 2]);
  });

  it("another caller's use of the key neither blocks a first request nor tells it where and when the key was used", async () => {
    await policy("idem-first");
    const a = await makeKey("idem-first-a", ["reservations:decide", "ratelimits:decide"]);
    const b = await makeKey("idem-first-b", ["ratelimits:decide"]);
    const k = key("order-1234");
    // B uses the key first, on another route.
    expect((await as(b.secret)("POST", "/v1/ratelimits/check", { policy: "idem-first", key: "x" }, { "Idempotency-Key": k })).status).toBe(200);
    const booking = { resource: `idem-first/${k}`, holder: "a", start: "2031-01-01T00:00:00Z", end: "2031-01-02T00:00:00Z" };
    const mine = await as(a.secret)("POST", "/v1/reservations", booking, { "Idempotency-Key": k });
    expect([mine.status, mine.headers.get("idempotent-replayed")], mine.text).toEqual([201, null]);
    expect(mine.text).not.toContain("ratelimits");
    // The same caller using its key for another request is still told (its own request only).
    const reused = await as(a.secret)("POST", "/v1/ratelimits/check", { policy: "idem-first", key: "x" }, { "Idempotency-Key": k });
    expect([reused.status, reused.json.type]).toEqual([422, "/problems/idempotency-key-reused"]);
    expect(reused.json.detail).toContain("POST /v1/reservations");
  });

  it("a stored answer is not replayed to another caller: it runs the request itself (here: 409, the slot is taken)", async () => {
    const a = await makeKey("idem-replay-a", ["reservations:decide"]);
    const b = await makeKey("idem-replay-b", ["reservations:decide"]);
    const k = key("replay");
    const booking = { resource: `idem-replay/${k}`, holder: "h", start: "2031-01-01T00:00:00Z", end: "2031-01-02T00:00:00Z" };
    const first = await as(a.secret)("POST", "/v1/reservations", booking, { "Idempotency-Key": k });
    expect(first.status).toBe(201);
    const theirs = await as(b.secret)("POST", "/v1/reservations", booking, { "Idempotency-Key": k });
    expect([theirs.status, theirs.headers.get("idempotent-replayed"), theirs.json.type]).toEqual([409, null, "/problems/reservation-conflict"]);
    // The root token is a caller of its own too.
    const root = await suite.api("POST", "/v1/reservations", booking, { "Idempotency-Key": k });
    expect([root.status, root.headers.get("idempotent-replayed")]).toEqual([409, null]);
    const mine = await as(a.secret)("POST", "/v1/reservations", booking, { "Idempotency-Key": k });
    expect([mine.status, mine.headers.get("idempotent-replayed"), mine.text]).toEqual([201, "true", first.text]);
  });

  it("a rotated key keeps its keys: the new secret replays what the old one stored", async () => {
    await policy("idem-rotate");
    const a = await makeKey("idem-rotating", ["ratelimits:decide"]);
    const k = key("rotate");
    const body = { policy: "idem-rotate", key: "r" };
    const first = await as(a.secret)("POST", "/v1/ratelimits/check", body, { "Idempotency-Key": k });
    expect(first.status).toBe(200);
    const rotated = await suite.api("POST", `/v1/keys/${a.id}/rotate`, { overlap_ms: 0 });
    expect(rotated.status).toBe(200);
    expect((await as(a.secret)("POST", "/v1/ratelimits/check", body, { "Idempotency-Key": k })).status).toBe(401);
    const again = await as(rotated.json.secret)("POST", "/v1/ratelimits/check", body, { "Idempotency-Key": k });
    expect([again.status, again.headers.get("idempotent-replayed"), again.text]).toEqual([200, "true", first.text]);
    expect(await usage("idem-rotate", "r")).toEqual([1, 1]);
  });

  it("the RPC binding is a caller of its own: its key is not the root token's, nor a key's", async () => {
    const env = bindings(suite.db, { DB_BUDGET_MS: SUITE_BUDGET_MS });
    const k = key("rpc");
    const stay = { resource: `idem-rpc/${k}`, holder: "rpc", start: "2031-01-01T00:00:00Z", end: "2031-01-02T00:00:00Z" };
    const viaRpc = (await call(env, undefined, "reserve", stay, { idempotencyKey: k })) as { id: string };
    expect(viaRpc.id).toEqual(expect.any(String));
    // Over HTTP, the same key on another route runs: no 422 naming Admit.reserve.
    const other = { ...stay, resource: `${stay.resource}/http` };
    const http = await suite.api("POST", "/v1/reservations", other, { "Idempotency-Key": k });
    expect([http.status, http.headers.get("idempotent-replayed")], http.text).toEqual([201, null]);
    expect(await call(env, undefined, "reserve", stay, { idempotencyKey: k })).toEqual(viaRpc);
    expect(await sql(suite.db, "SELECT count(*)::int AS n FROM reservations WHERE resource LIKE $1", [`${stay.resource}%`])).toEqual([{ n: 2 }]);
  });
});
