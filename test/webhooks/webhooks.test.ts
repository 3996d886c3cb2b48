// Webhook receiving over HTTP against real Postgres: sources, signature checks (standardwebhooks),
// exactly-once storage, and the consumer queue (claim, visibility timeout, ack, ordering key).
import { randomBytes } from "node:crypto";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { orderingValue } from "../../functions/webhooks";
import { client, servedApp, sql } from "../support";
import { dbNowS, newSecret, signedHeaders } from "./webhooks.support";

const suite = servedApp("webhooks");

const anon = () => client(suite.server.url, null);

async function deliver(
  source: string,
  secrets: string[],
  id: string,
  payload: unknown,
  opts: { ageS?: number; body?: string; headers?: Record<string, string> } = {},
) {
  const body = opts.body ?? JSON.stringify(payload);
  const ts = (await dbNowS(suite.db)) - (opts.ageS ?? 0);
  return anon()("POST", `/v1/webhooks/${source}`, body, { ...signedHeaders(secrets, id, ts, JSON.stringify(payload)), ...opts.headers });
}

async function rows(source: string, webhookId?: string) {
  return sql<{ webhook_id: string }>(
    suite.db,
    "SELECT webhook_id FROM webhook_events WHERE source = $1 AND ($2::text IS NULL OR webhook_id = $2) ORDER BY seq",
    [source, webhookId ?? null],
  );
}

async function register(source: string, body: Record<string, unknown>) {
  const res = await suite.api("PUT", `/v1/webhooks/sources/${source}`, body);
  expect([200, 201]).toContain(res.status);
  return res;
}

describe("POST /v1/webhooks/:source — signature is the only authentication", () => {
  const secret = newSecret();
  let ready: Promise<unknown>;
  beforeAll(() => {
    ready = register("billing", { secret });
  });

  it("a signed delivery without a bearer token → 200 {id, status: received}; a redelivery → same answer, Idempotent-Replayed, one row", async () => {
    await ready;
    const payload = { type: "invoice.paid", data: { id: "in_1", amount: 1200 } };
    const first = await deliver("billing", [secret], "msg_first", payload);
    expect(first.status).toBe(200);
    expect(first.json).toEqual({ id: expect.any(String), status: "received" });
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    const again = await deliver("billing", [secret], "msg_first", payload);
    expect(again.status).toBe(200);
    expect(again.json).toEqual(first.json);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await rows("billing", "msg_first")).toHaveLength(1);
    const [stored] = await sql<{ payload: string; ts: string }>(suite.db, "SELECT payload::text AS payload FROM webhook_events WHERE webhook_id = 'msg_first'");
    expect(stored.payload).toBe(JSON.stringify(payload)); // stored as sent
  });

  it("tampered body, wrong secret, 10-minute-old or future timestamp, missing headers, unknown source → 401, nothing stored", async () => {
    await ready;
    const payload = { type: "invoice.paid", data: { id: "in_2" } };
    const cases: Array<[string, () => Promise<{ status: number; json: any; headers: Headers }>]> = [
      ["tampered", () => deliver("billing", [secret], "msg_bad_1", payload, { body: JSON.stringify({ ...payload, data: { id: "in_3" } }) })],
      ["wrong secret", () => deliver("billing", [newSecret()], "msg_bad_2", payload)],
      ["10 min old", () => deliver("billing", [secret], "msg_bad_3", payload, { ageS: 600 })],
      ["10 min ahead", () => deliver("billing", [secret], "msg_bad_4", payload, { ageS: -600 })],
      ["no signature", () => deliver("billing", [secret], "msg_bad_5", payload, { headers: { "webhook-signature": "" } })],
      ["v2 only", () => deliver("billing", [secret], "msg_bad_6", payload, { headers: { "webhook-signature": "v2,abc" } })],
      [
        "bad timestamp",
        () =>
          anon()("POST", "/v1/webhooks/billing", JSON.stringify(payload), {
            ...signedHeaders([secret], "msg_bad_7", 1, JSON.stringify(payload)),
            "webhook-timestamp": "soon",
          }),
      ],
      ["unknown source", () => deliver("nobody", [secret], "msg_bad_8", payload)],
    ];
    for (const [label, send] of cases) {
      const res = await send();
      expect(res.status, label).toBe(401);
      expect(res.headers.get("content-type"), label).toBe("application/problem+json");
      expect(res.json.type, label).toBe("/problems/webhook-signature");
    }
    const old = await deliver("billing", [secret], "msg_bad_3", payload, { ageS: 600 });
    expect(old.status).toBe(401);
    const [latest] = (await suite.api("GET", "/v1/webhooks/sources/billing")).json.recent_rejections;
    expect(latest).toMatchObject({ reason: "timestamp-outside-tolerance", header: "webhook-timestamp" });
    expect(latest.detail).toMatch(/s old; this source accepts ±300 s/);
    expect(await sql(suite.db, "SELECT webhook_id FROM webhook_events WHERE webhook_id LIKE 'msg_bad_%'")).toEqual([]);
  });

  it("rotated secrets: a header with two signatures verifies against either secret", async () => {
    const oldSecret = newSecret();
    const newer = newSecret();
    await register("rotating", { secret: oldSecret });
    const payload = { type: "x", data: {} };
    expect((await deliver("rotating", [oldSecret, newer], "msg_rot_1", payload)).status).toBe(200);
    await register("rotating", { secret: newer });
    expect((await deliver("rotating", [oldSecret, newer], "msg_rot_2", payload)).status).toBe(200);
    expect((await deliver("rotating", [oldSecret], "msg_rot_3", payload)).status).toBe(401);
    expect((await rows("rotating")).map((r) => r.webhook_id)).toEqual(["msg_rot_1", "msg_rot_2"]);
  });

  it("the window is the source's tolerance_s on the database clock, not the library's fixed 5 minutes", async () => {
    const s = newSecret();
    await register("lenient", { secret: s, tolerance_s: 900 });
    expect((await deliver("lenient", [s], "msg_len_1", { a: 1 }, { ageS: 600 })).status).toBe(200);
    expect((await deliver("lenient", [s], "msg_len_2", { a: 1 }, { ageS: 1000 })).status).toBe(401);
    await register("strict", { secret: s, tolerance_s: 60 });
    expect((await deliver("strict", [s], "msg_str_1", { a: 1 }, { ageS: 120 })).status).toBe(401);
    expect((await deliver("strict", [s], "msg_str_2", { a: 1 }, { ageS: 5 })).status).toBe(200);
  });

  it("a verified body that is not JSON → 400, nothing stored; Idempotency-Key on a delivery is ignored (dedup is by webhook-id)", async () => {
    await ready;
    const ts = await dbNowS(suite.db);
    const res = await anon()("POST", "/v1/webhooks/billing", "not json", signedHeaders([secret], "msg_text", ts, "not json"));
    expect(res.status).toBe(400);
    expect(await rows("billing", "msg_text")).toEqual([]);
    const a = await deliver("billing", [secret], "msg_key_a", { n: 1 }, { headers: { "Idempotency-Key": "same" } });
    const b = await deliver("billing", [secret], "msg_key_b", { n: 2 }, { headers: { "Idempotency-Key": "same" } });
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(b.headers.get("idempotent-replayed")).toBeNull();
    expect(a.json.id).not.toBe(b.json.id);
  });

  it("only the delivery route skips the bearer token: every consumer and source route still requires it", async () => {
    await ready;
    for (const [method, path] of [
      ["POST", "/v1/webhooks/billing/events/claim"],
      ["GET", "/v1/webhooks/billing/events"],
      ["POST", "/v1/webhooks/billing/events/00000000-0000-4000-8000-000000000000/ack"],
      ["PUT", "/v1/webhooks/sources/billing"],
      ["GET", "/v1/webhooks/sources/billing"],
      ["POST", "/v1/webhooks/billing/"],
      ["GET", "/v1/webhooks/billing"],
    ]) {
      const res = await anon()(method, path, method === "GET" ? undefined : { secret: newSecret() });
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(res.json.type, `${method} ${path}`).toBe("/problems/unauthorized");
    }
  });
});

describe("consumers", () => {
  it("claim → ack → listed by status; unknown source or event → 404", async () => {
    const s = newSecret();
    await register("queue", { secret: s });
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push((await deliver("queue", [s], `msg_q_${i}`, { i })).json.id);
    const claimed = await suite.api("POST", "/v1/webhooks/queue/events/claim", { limit: 2, visibility_ms: 60_000 });
    expect(claimed.status).toBe(200);
    expect(claimed.json.events.map((e: any) => e.id)).toEqual(ids.slice(0, 2));
    expect(claimed.json.events[0]).toEqual({
      id: ids[0],
      webhook_id: "msg_q_0",
      event_type: null,
      payload: { i: 0 },
      ordering_value: null,
      received_at: expect.any(String),
      claim_expires_at: expect.any(String),
      receipt: expect.any(String),
    });
    expect((await suite.api("GET", "/v1/webhooks/queue/events?status=claimed")).json.items.map((e: any) => e.id)).toEqual(ids.slice(0, 2));
    expect((await suite.api("GET", "/v1/webhooks/queue/events?status=received")).json.items.map((e: any) => e.id)).toEqual([ids[2]]);
    const receipt = claimed.json.events[0].receipt;
    const acked = await suite.api("POST", `/v1/webhooks/queue/events/${ids[0]}/ack`, { receipt });
    expect(acked.status).toBe(200);
    expect(acked.json).toMatchObject({ id: ids[0], status: "processed", processed_at: expect.any(String), claims: 1 });
    expect((await suite.api("POST", `/v1/webhooks/queue/events/${ids[0]}/ack`, { receipt })).json).toEqual(acked.json);
    expect((await suite.api("GET", "/v1/webhooks/queue/events?status=processed")).json.items.map((e: any) => e.id)).toEqual([ids[0]]);
    // The next claim (no body: the defaults) gets only what is left unclaimed.
    const rest1 = await suite.api("POST", "/v1/webhooks/queue/events/claim");
    expect(rest1.status).toBe(200);
    expect(rest1.json.events.map((e: any) => e.id)).toEqual([ids[2]]);
    // Paging.
    const page = await suite.api("GET", "/v1/webhooks/queue/events?limit=2");
    expect(page.json.items).toHaveLength(2);
    const rest = await suite.api("GET", `/v1/webhooks/queue/events?limit=2&cursor=${page.json.next_cursor}`);
    expect(rest.json.items.map((e: any) => e.id)).toEqual([ids[2]]);
    expect(rest.json.next_cursor).toBeNull();

    expect((await suite.api("POST", "/v1/webhooks/queue/events/00000000-0000-4000-8000-000000000000/ack", { receipt })).status).toBe(404);
    expect((await suite.api("POST", "/v1/webhooks/queue/events/nope/ack", { receipt })).status).toBe(404);
    expect((await suite.api("POST", `/v1/webhooks/queue/events/${ids[2]}/ack`, {})).status).toBe(422);
    expect((await suite.api("POST", "/v1/webhooks/nobody/events/claim", {})).status).toBe(404);
    expect((await suite.api("GET", "/v1/webhooks/nobody/events")).status).toBe(404);
    expect((await suite.api("POST", "/v1/webhooks/queue/events/claim", { limit: 0 })).status).toBe(422);
    expect((await suite.api("GET", "/v1/webhooks/queue/events?status=done")).status).toBe(422);
  });

  it("an unacknowledged event becomes claimable again after visibility_ms", async () => {
    const s = newSecret();
    await register("visibility", { secret: s });
    const { json } = await deliver("visibility", [s], "msg_vis", { v: 1 });
    const first = await suite.api("POST", "/v1/webhooks/visibility/events/claim", { limit: 5, visibility_ms: 300 });
    expect(first.json.events.map((e: any) => e.id)).toEqual([json.id]);
    // Poll (no timing assumption beyond an upper bound) until the claim lapses and the event comes back.
    let again: any[] = [];
    for (let i = 0; i < 100 && again.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      again = (await suite.api("POST", "/v1/webhooks/visibility/events/claim", { limit: 5, visibility_ms: 60_000 })).json.events;
    }
    expect(again.map((e) => e.id)).toEqual([json.id]);
    const [row] = await sql<{ claims: number; lapsed: boolean }>(
      suite.db,
      "SELECT claims, $1::timestamptz < claim_expires_at AS lapsed FROM webhook_events WHERE id = $2",
      [first.json.events[0].claim_expires_at, json.id],
    );
    expect(row).toEqual({ claims: 2, lapsed: true });
    // Claimed again with a long visibility: nobody else gets it now.
    expect((await suite.api("POST", "/v1/webhooks/visibility/events/claim", { limit: 5 })).json.events).toEqual([]);
  });

  it("ordering key: one event per ordering value at a time, in received order; events without the value are free", async () => {
    const s = newSecret();
    await register("ordered", { secret: s, ordering_key: "/data/subscription_id" });
    const send = async (id: string, sub?: string) => (await deliver("ordered", [s], id, { data: sub ? { subscription_id: sub } : {} })).json.id as string;
    const a1 = await send("a1", "SUB-1");
    const a2 = await send("a2", "SUB-1");
    const b1 = await send("b1", "SUB-2");
    const none = await send("n1");
    const a3 = await send("a3", "SUB-1");
    const receipts = new Map<string, string>();
    const claim = async () =>
      (await suite.api("POST", "/v1/webhooks/ordered/events/claim", { limit: 10, visibility_ms: 60_000 })).json.events.map((e: any) => {
        receipts.set(e.id, e.receipt);
        return e.id;
      });
    const ack = async (id: string) =>
      expect((await suite.api("POST", `/v1/webhooks/ordered/events/${id}/ack`, { receipt: receipts.get(id) })).status).toBe(200);
    expect(await claim()).toEqual([a1, b1, none]);
    expect(await claim()).toEqual([]);
    await ack(a1);
    expect(await claim()).toEqual([a2]);
    await ack(a2);
    expect(await claim()).toEqual([a3]);
    const [{ v }] = await sql<{ v: string }>(suite.db, "SELECT ordering_value AS v FROM webhook_events WHERE id = $1", [a3]);
    expect(v).toBe("SUB-1");
  });

  it("an ordering value Postgres cannot index or store (a large object, a NUL, over 200 characters) is stored as its digest: the delivery is taken and still ordered", async () => {
    const s = newSecret();
    await register("ordered-big", { secret: s, ordering_key: "/data" });
    // ~8 KB of JSON that does not compress: beyond a btree row (2 704 bytes) before this change.
    const big = { blob: randomBytes(4096).toString("hex") };
    const values: unknown[] = [big, { blob: big.blob.slice(1) }, "a\u0000b", "x".repeat(201), "y".repeat(200)];
    const ids: string[] = [];
    for (const [i, data] of [...values, big].entries()) {
      const r = await deliver("ordered-big", [s], `big-${i}`, { data });
      expect(r.status, `${i}: ${r.text}`).toBe(200);
      ids.push(r.json.id);
    }
    const stored = await sql<{ id: string; v: string }>(
      suite.db,
      "SELECT id, ordering_value AS v FROM webhook_events WHERE source = 'ordered-big' ORDER BY seq",
    );
    expect(stored.map((r) => r.id)).toEqual(ids);
    const v = stored.map((r) => r.v);
    for (const i of [0, 1, 2, 3]) expect(v[i], String(i)).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(v[4]).toBe("y".repeat(200));
    expect(new Set(v.slice(0, 5)).size).toBe(5);
    expect(v[5]).toBe(v[0]); // the same object again: the same group
    // Ordered: the repeat of the first value waits for it; every other event is free.
    const claimed = (await suite.api("POST", "/v1/webhooks/ordered-big/events/claim", { limit: 10, visibility_ms: 60_000 })).json.events;
    expect(claimed.map((e: any) => e.id)).toEqual(ids.slice(0, 5));
    expect(claimed[0].ordering_value).toBe(v[0]);
  });

  it("a claim with an Idempotency-Key is replayed, not claimed twice", async () => {
    const s = newSecret();
    await register("keyed-claim", { secret: s });
    await deliver("keyed-claim", [s], "k1", {});
    await deliver("keyed-claim", [s], "k2", {});
    const h = { "Idempotency-Key": "claim-once" };
    const first = await suite.api("POST", "/v1/webhooks/keyed-claim/events/claim", { limit: 1, visibility_ms: 60_000 }, h);
    const again = await suite.api("POST", "/v1/webhooks/keyed-claim/events/claim", { limit: 1, visibility_ms: 60_000 }, h);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.text).toBe(first.text);
    expect(await sql(suite.db, "SELECT webhook_id, claims FROM webhook_events WHERE source = 'keyed-claim' ORDER BY seq")).toEqual([
      { webhook_id: "k1", claims: 1 },
      { webhook_id: "k2", claims: 0 },
    ]);
  });

  it("the sweep deletes processed events older than 7 days, never unprocessed ones", async () => {
    const s = newSecret();
    await register("retention", { secret: s });
    const old = (await deliver("retention", [s], "r-old", {})).json.id;
    const pending = (await deliver("retention", [s], "r-pending", {})).json.id;
    const [{ receipt }] = (await suite.api("POST", "/v1/webhooks/retention/events/claim", { limit: 1 })).json.events;
    expect((await suite.api("POST", `/v1/webhooks/retention/events/${old}/ack`, { receipt })).status).toBe(200);
    await sql(
      suite.db,
      "UPDATE webhook_events SET received_at = now() - interval '8 days', processed_at = CASE WHEN processed_at IS NOT NULL THEN now() - interval '8 days' END WHERE id = ANY($1::uuid[])",
      [[old, pending]],
    );
    const [{ report }] = await sql<{ report: Record<string, number> }>(suite.db, "SELECT admit_sweep() AS report");
    expect(report.webhook_events).toBe(1);
    expect((await rows("retention")).map((r) => r.webhook_id)).toEqual(["r-pending"]);
  });
});

describe("orderingValue (RFC 6901 JSON pointer)", () => {
  it("reads strings as themselves, other values as JSON text, escapes ~0 ~1, array indexes; null or absent → undefined", () => {
    const doc = { data: { subscription_id: "SUB-1", n: 12, "a/b": { "m~n": true }, list: [{ id: 7 }], obj: { x: 1 }, nil: null } };
    expect(orderingValue(doc, "/data/subscription_id")).toBe("SUB-1");
    expect(orderingValue(doc, "/data/n")).toBe("12");
    expect(orderingValue(doc, "/data/a~1b/m~0n")).toBe("true");
    expect(orderingValue(doc, "/data/list/0/id")).toBe("7");
    expect(orderingValue(doc, "/data/obj")).toBe('{"x":1}');
    expect(orderingValue(doc, "/data/nil")).toBeUndefined();
    expect(orderingValue(doc, "/data/missing")).toBeUndefined();
    expect(orderingValue(doc, "/data/list/01/id")).toBeUndefined();
    expect(orderingValue(doc, "/data/subscription_id/x")).toBeUndefined();
    expect(orderingValue("text", "/a")).toBeUndefined();
  });
});

describe("the secret stays secret", () => {
  it("is never logged nor kept in an idempotency record, through registration, deliveries good and bad, and errors", async () => {
    const secret = newSecret();
    const spies = (["log", "info", "warn", "error", "debug"] as const).map((m) => vi.spyOn(console, m));
    try {
      await suite.api("PUT", "/v1/webhooks/sources/quiet", { secret }, { "Idempotency-Key": "quiet-put" });
      await suite.api("PUT", "/v1/webhooks/sources/quiet", { secret: secret + "!" });
      await deliver("quiet", [secret], "q1", { a: 1 });
      await deliver("quiet", [newSecret()], "q2", { a: 1 });
      await deliver("quiet", [secret], "q3", { a: 1 }, { ageS: 3600 });
      await suite.api("GET", "/v1/webhooks/sources/quiet");
      const logged = spies
        .flatMap((s) => s.mock.calls)
        .map((args) => args.map((a) => (a instanceof Error ? `${a.message} ${a.stack}` : typeof a === "string" ? a : JSON.stringify(a))).join(" "));
      for (const line of logged) expect(line).not.toContain(secret.slice(6));
    } finally {
      for (const s of spies) s.mockRestore();
    }
    const [{ found }] = await sql<{ found: number }>(
      suite.db,
      "SELECT count(*)::int AS found FROM idempotency_keys WHERE convert_from(response_body, 'UTF8') LIKE '%' || $1 || '%' OR response_headers::text LIKE '%' || $1 || '%'",
      [secret.slice(6)],
    );
    expect(found).toBe(0);
    expect(await sql(suite.db, "SELECT response_status FROM idempotency_keys WHERE key = 'quiet-put'")).toEqual([{ response_status: 201 }]);
  });
});
