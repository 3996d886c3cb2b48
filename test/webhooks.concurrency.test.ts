// Webhook races with real simultaneous HTTP against real Postgres: one delivery stored once, consumers
// that never share an event, and ordering values never processed concurrently.
import { describe, expect, it } from "vitest";
import { client, servedApp, sql } from "./support";
import { dbNowS, newSecret, signedHeaders } from "./webhooks.support";

const suite = servedApp("webhooks_burst");

async function source(name: string, extra: Record<string, unknown> = {}) {
  const secret = newSecret();
  const res = await suite.api("PUT", `/v1/webhooks/sources/${name}`, { secret, ...extra });
  expect(res.status).toBe(201);
  return secret;
}

async function deliverAll(name: string, secret: string, events: Array<{ id: string; payload: unknown }>) {
  const ts = await dbNowS(suite.db);
  const anon = client(suite.server.url, null);
  return Promise.all(events.map((e) => anon("POST", `/v1/webhooks/${name}`, JSON.stringify(e.payload), signedHeaders([secret], e.id, ts, JSON.stringify(e.payload)))));
}

describe("20 simultaneous deliveries of one signed webhook", () => {
  it("→ one inbox row; all 200 with the same id; exactly one is the first, the rest Idempotent-Replayed", async () => {
    const secret = await source("burst");
    const payload = { type: "invoice.created", data: { id: "in_burst" } };
    const results = await deliverAll("burst", secret, Array.from({ length: 20 }, () => ({ id: "msg_burst", payload })));
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(new Set(results.map((r) => r.json.id)).size).toBe(1);
    expect(results.filter((r) => r.headers.get("idempotent-replayed") === null)).toHaveLength(1);
    const rows = await sql<{ id: string }>(suite.db, "SELECT id FROM webhook_events WHERE source = 'burst'");
    expect(rows).toEqual([{ id: results[0].json.id }]);
  });
});

describe("consumers claiming at once", () => {
  it("20 simultaneous claims over 150 events: no event handed to two consumers, every event handed out once", async () => {
    const secret = await source("shared-queue");
    await deliverAll("shared-queue", secret, Array.from({ length: 150 }, (_, i) => ({ id: `ev_${i}`, payload: { i } })));
    const claims = await Promise.all(Array.from({ length: 20 }, () => suite.api("POST", "/v1/webhooks/shared-queue/events/claim", { limit: 10, visibility_ms: 120_000 })));
    expect(claims.every((c) => c.status === 200)).toBe(true);
    const got = claims.flatMap((c) => c.json.events.map((e: { id: string }) => e.id));
    expect(new Set(got).size).toBe(got.length); // disjoint
    expect(got).toHaveLength(150);
    const [{ c }] = await sql<{ c: number }>(suite.db, "SELECT count(*)::int AS c FROM webhook_events WHERE source = 'shared-queue' AND claims = 1");
    expect(c).toBe(150);
  });

  it("two consumers draining a queue concurrently (claim, ack, repeat) never receive the same event", async () => {
    const secret = await source("two-consumers");
    await deliverAll("two-consumers", secret, Array.from({ length: 120 }, (_, i) => ({ id: `tc_${i}`, payload: { i } })));
    const consume = async () => {
      const mine: string[] = [];
      for (;;) {
        const res = await suite.api("POST", "/v1/webhooks/two-consumers/events/claim", { limit: 4, visibility_ms: 120_000 });
        expect(res.status).toBe(200);
        if (res.json.events.length === 0) return mine;
        for (const e of res.json.events) {
          mine.push(e.id);
          expect((await suite.api("POST", `/v1/webhooks/two-consumers/events/${e.id}/ack`)).status).toBe(200);
        }
      }
    };
    const [a, b] = await Promise.all([consume(), consume()]);
    expect(a.filter((id) => b.includes(id))).toEqual([]);
    expect(a.length + b.length).toBe(120);
    expect(a.length).toBeGreaterThan(0);
    expect(b.length).toBeGreaterThan(0);
    expect(await sql(suite.db, "SELECT count(*)::int AS c FROM webhook_events WHERE source = 'two-consumers' AND (processed_at IS NULL OR claims <> 1)")).toEqual([{ c: 0 }]);
  });

  it("ordering key: 4 consumers over 5 subscriptions × 8 events → never two of one subscription in hand at once, each in received order", async () => {
    const secret = await source("ordered-burst", { ordering_key: "/data/subscription_id" });
    const events = Array.from({ length: 40 }, (_, i) => ({ id: `ob_${i}`, payload: { data: { subscription_id: `SUB-${i % 5}`, n: Math.floor(i / 5) } } }));
    // Delivered one by one so received order is known: n = 0, 1, 2, … within each subscription.
    for (const e of events) expect((await deliverAll("ordered-burst", secret, [e]))[0].status).toBe(200);

    const inHand = new Map<string, string>(); // subscription → event id currently claimed and not yet acked
    const order = new Map<string, number[]>();
    const violations: string[] = [];
    const consume = async () => {
      for (let idle = 0; idle < 30; ) {
        const res = await suite.api("POST", "/v1/webhooks/ordered-burst/events/claim", { limit: 3, visibility_ms: 120_000 });
        expect(res.status).toBe(200);
        if (res.json.events.length === 0) {
          if (order.size === 5 && [...order.values()].every((l) => l.length === 8)) return;
          idle += 1;
          await new Promise((r) => setTimeout(r, 20));
          continue;
        }
        idle = 0;
        for (const e of res.json.events) {
          const sub = e.payload.data.subscription_id;
          if (inHand.has(sub)) violations.push(`${e.id} claimed while ${inHand.get(sub)} of ${sub} was in hand`);
          inHand.set(sub, e.id);
        }
        for (const e of res.json.events) {
          const sub = e.payload.data.subscription_id;
          order.set(sub, [...(order.get(sub) ?? []), e.payload.data.n]);
          inHand.delete(sub); // released before the ack is sent: the next one may only come after it commits
          expect((await suite.api("POST", `/v1/webhooks/ordered-burst/events/${e.id}/ack`)).status).toBe(200);
        }
      }
    };
    await Promise.all([consume(), consume(), consume(), consume()]);
    expect(violations).toEqual([]);
    for (let s = 0; s < 5; s++) expect(order.get(`SUB-${s}`)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    // And in the database: within a subscription, processed strictly in received order.
    const outOfOrder = await sql(suite.db, `
      SELECT a.webhook_id FROM webhook_events a JOIN webhook_events b
        ON a.source = b.source AND a.ordering_value = b.ordering_value AND a.seq < b.seq
       WHERE a.source = 'ordered-burst' AND a.processed_at >= b.processed_at`);
    expect(outOfOrder).toEqual([]);
  });
});
