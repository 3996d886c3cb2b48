// Webhook races with real simultaneous HTTP against real Postgres: one delivery stored once, consumers
// that never share an event, and ordering values never processed concurrently.
import { describe, expect, it } from "vitest";
import { client, servedApp, sql } from "../support";
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
  return Promise.all(
    events.map((e) => anon("POST", `/v1/webhooks/${name}`, JSON.stringify(e.payload), signedHeaders([secret], e.id, ts, JSON.stringify(e.payload)))),
  );
}

describe("20 simultaneous deliveries of one signed webhook", () => {
  it("→ one inbox row; all 200 with the same id; exactly one is the first, the rest Idempotent-Replayed", async () => {
    const secret = await source("burst");
    const payload = { type: "invoice.created", data: { id: "in_burst" } };
    const results = await deliverAll(
      "burst",
      secret,
      Array.from({ length: 20 }, () => ({ id: "msg_burst", payload })),
    );
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
    await deliverAll(
      "shared-queue",
      secret,
      Array.from({ length: 150 }, (_, i) => ({ id: `ev_${i}`, payload: { i } })),
    );
    const claims = await Promise.all(
      Array.from({ length: 20 }, () => suite.api("POST", "/v1/webhooks/shared-queue/events/claim", { limit: 10, visibility_ms: 120_000 })),
    );
    expect(claims.every((c) => c.status === 200)).toBe(true);
    const got = claims.flatMap((c) => c.json.events.map((e: { id: string }) => e.id));
    expect(new Set(got).size).toBe(got.length); // disjoint
    expect(got).toHaveLength(150);
    const [{ c }] = await sql<{ c: number }>(suite.db, "SELECT count(*)::int AS c FROM webhook_events WHERE source = 'shared-queue' AND claims = 1");
    expect(c).toBe(150);
  });

  it("two consumers draining a queue concurrently (claim, ack, repeat) never receive the same event", async () => {
    const secret = await source("two-consumers");
    await deliverAll(
      "two-consumers",
      secret,
      Array.from({ length: 120 }, (_, i) => ({ id: `tc_${i}`, payload: { i } })),
    );
    const consume = async () => {
      const mine: string[] = [];
      for (;;) {
        const res = await suite.api("POST", "/v1/webhooks/two-consumers/events/claim", { limit: 4, visibility_ms: 120_000 });
        expect(res.status).toBe(200);
        if (res.json.events.length === 0) return mine;
        for (const e of res.json.events) {
          mine.push(e.id);
          expect((await suite.api("POST", `/v1/webhooks/two-consumers/events/${e.id}/ack`, { receipt: e.receipt })).status).toBe(200);
        }
      }
    };
    const [a, b] = await Promise.all([consume(), consume()]);
    expect(a.filter((id) => b.includes(id))).toEqual([]);
    expect(a.length + b.length).toBe(120);
    expect(a.length).toBeGreaterThan(0);
    expect(b.length).toBeGreaterThan(0);
    expect(
      await sql(suite.db, "SELECT count(*)::int AS c FROM webhook_events WHERE source = 'two-consumers' AND (processed_at IS NULL OR claims <> 1)"),
    ).toEqual([{ c: 0 }]);
  });

  it("ordering key: 4 consumers over 5 subscriptions × 8 events → never two of one subscription in hand at once, each in received order", async () => {
    const secret = await source("ordered-burst", { ordering_key: "/data/subscription_id" });
    const events = Array.from({ length: 40 }, (_, i) => ({ id: `ob_${i}`, payload: { data: { subscription_id: `SUB-${i % 5}`, n: Math.floor(i / 5) } } }));
    // Delivered one by one so received order is known: n = 0, 1, 2, … within each subscription.
    for (const e of events) expect((await deliverAll("ordered-burst", secret, [e]))[0].status).toBe(200);
    const run = orderedConsumers("ordered-burst", 40);
    await Promise.all([run.consume(), run.consume(), run.consume(), run.consume()]);
    expect(run.violations).toEqual([]);
    for (let s = 0; s < 5; s++) expect(run.order.get(`SUB-${s}`)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(await processedOutOfOrder("ordered-burst")).toEqual([]);
  });

  it("ordering key while deliveries of the same value race each other and the consumers: still one in hand per value, in received order", async () => {
    const secret = await source("ordered-race", { ordering_key: "/data/subscription_id" });
    const events = Array.from({ length: 45 }, (_, i) => ({ id: `or_${i}`, payload: { data: { subscription_id: `SUB-${i % 3}` } } }));
    const run = orderedConsumers("ordered-race", 45);
    const [deliveries] = await Promise.all([deliverAll("ordered-race", secret, events), run.consume(), run.consume(), run.consume(), run.consume()]);
    expect(deliveries.every((d) => d.status === 200)).toBe(true);
    expect(run.violations).toEqual([]);
    expect([...run.order.values()].reduce((n, l) => n + l.length, 0)).toBe(45);
    // Handed out per value in `seq` (received) order, and processed in that order.
    const seqs = await sql<{ id: string; seq: number }>(suite.db, "SELECT id, seq::int AS seq FROM webhook_events WHERE source = 'ordered-race'");
    const seqOf = new Map(seqs.map((r) => [r.id, r.seq]));
    for (const ids of run.ids.values()) {
      const got = ids.map((id) => seqOf.get(id)!);
      expect(got).toEqual([...got].sort((a, b) => a - b));
    }
    expect(await processedOutOfOrder("ordered-race")).toEqual([]);
  });
});

/** Pairs of one ordering value processed against received order: must be empty. */
function processedOutOfOrder(name: string) {
  return sql(
    suite.db,
    `
    SELECT a.webhook_id FROM webhook_events a JOIN webhook_events b
      ON a.source = b.source AND a.ordering_value = b.ordering_value AND a.seq < b.seq
     WHERE a.source = $1 AND a.processed_at >= b.processed_at`,
    [name],
  );
}

/**
 * Consumers that claim, note which event of each subscription they hold, and ack, until `total`
 * events were handled. A second event of a subscription arriving while one is held is a violation.
 */
function orderedConsumers(name: string, total: number) {
  const inHand = new Map<string, string>(); // subscription → event id claimed and not yet acked
  const order = new Map<string, number[]>();
  const ids = new Map<string, string[]>();
  const violations: string[] = [];
  let handled = 0;
  const consume = async () => {
    while (handled < total) {
      const res = await suite.api("POST", `/v1/webhooks/${name}/events/claim`, { limit: 3, visibility_ms: 120_000 });
      expect(res.status).toBe(200);
      if (res.json.events.length === 0) {
        await new Promise((r) => setTimeout(r, 20));
        continue;
      }
      for (const e of res.json.events) {
        const sub = e.payload.data.subscription_id;
        if (inHand.has(sub)) violations.push(`${e.id} claimed while ${inHand.get(sub)} of ${sub} was in hand`);
        inHand.set(sub, e.id);
      }
      for (const e of res.json.events) {
        const sub = e.payload.data.subscription_id;
        order.set(sub, [...(order.get(sub) ?? []), e.payload.data.n]);
        ids.set(sub, [...(ids.get(sub) ?? []), e.id]);
        inHand.delete(sub); // released before the ack is sent: the next one may only come after it commits
        expect((await suite.api("POST", `/v1/webhooks/${name}/events/${e.id}/ack`, { receipt: e.receipt })).status).toBe(200);
        handled += 1;
      }
    }
  };
  return { consume, violations, order, ids };
}
