// Webhook receiving and the consumer queue against a sequential model (test/support/model.ts): random
// batches of simultaneous signed deliveries (a few webhook-ids, two payloads each), claims and acks;
// every batch's answers must be explained by some sequential order — each webhook-id stored once with
// the payload of the delivery that came first, a redelivery marked Idempotent-Replayed, a claim
// handing out only events that were claimable (never one already claimed or processed), an ack
// processing its event — and the inbox in the database must be that order's state.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { client, connect, servedApp, sql, until } from "../support";
import { delivery, webhooks } from "../support/capabilities";
import { checkRun, type Model } from "../support/model";

const suite = servedApp("webhooks_model");
const UNKNOWN = "00000000-0000-4000-8000-000000000000";

interface Event {
  id: string; // Admit's event id
  payload: string;
  claimed: boolean;
  processed: boolean;
  receipt?: string; // the latest claim's receipt
}
type State = Map<string, Event>; // by webhook-id
type Op =
  | { kind: "deliver"; webhookId: string; variant: number }
  | { kind: "claim"; limit: number }
  | { kind: "ack"; pick: number; id?: string; receipt?: string };

const payload = (webhookId: string, variant: number) => JSON.stringify({ type: "model", data: { webhook: webhookId, variant } });

const model: Model<State, Op> = {
  step(s, op, { status, json, headers }) {
    if (status === 503) return s;
    if (op.kind === "deliver") {
      if (status !== 200 || !json?.id) return undefined;
      const seen = s.get(op.webhookId);
      const replayed = headers?.get("idempotent-replayed") === "true";
      if (seen) return replayed && json.id === seen.id ? s : undefined;
      if (replayed || [...s.values()].some((e) => e.id === json.id)) return undefined;
      return new Map(s).set(op.webhookId, { id: json.id, payload: payload(op.webhookId, op.variant), claimed: false, processed: false });
    }
    if (op.kind === "claim") {
      if (status !== 200 || !Array.isArray(json?.events) || json.events.length > op.limit) return undefined;
      const next = new Map(s);
      for (const e of json.events as Array<{ id: string; webhook_id: string; receipt: string }>) {
        const known = next.get(e.webhook_id);
        if (!known || known.id !== e.id || known.claimed || known.processed || typeof e.receipt !== "string") return undefined;
        next.set(e.webhook_id, { ...known, claimed: true, receipt: e.receipt });
      }
      return next;
    }
    const entry = [...s.entries()].find(([, e]) => e.id === op.id);
    if (!entry) return status === 404 ? s : undefined;
    const [webhookId, e] = entry;
    // Only the live claim's receipt acknowledges (claims here outlive the run); again with it: a no-op.
    if (op.receipt !== undefined && op.receipt === e.receipt && (e.claimed || e.processed)) {
      if (status !== 200 || json?.status !== "processed") return undefined;
      return new Map(s).set(webhookId, { ...e, claimed: false, processed: true });
    }
    return status === 409 && json?.type === "/problems/claim-not-current" ? s : undefined;
  },
  same(a, b) {
    if (a.size !== b.size) return false;
    for (const [k, x] of a) {
      const y = b.get(k);
      if (!y || x.id !== y.id || x.payload !== y.payload || x.claimed !== y.claimed || x.processed !== y.processed) return false;
    }
    return true;
  },
};

const opArb = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant("deliver" as const),
      webhookId: fc.constantFrom("msg_1", "msg_2", "msg_3", "msg_4"),
      variant: fc.constantFrom(1, 2),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("claim" as const), limit: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("ack" as const), pick: fc.nat() }) },
);

describe("webhooks: concurrent batches against a sequential model", () => {
  it("every batch is linearizable and the inbox holds the state it ends in", async () => {
    let run = 0;
    let batchState: State | undefined;
    let ackedInBatch = new Set<string>();
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(opArb, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 4 }), async (batches) => {
        const source = `model-${++run}-${Math.random().toString(36).slice(2, 6)}`;
        // A source without an ordering key (the ordering rule has its own suite in test/webhooks/).
        const put = webhooks.prepare!(source)[0];
        expect((await suite.api("PUT", put.path, { ...(put.body as object), ordering_key: undefined })).status).toBe(201);
        const failure = await checkRun<State, Op>({
          model,
          initial: new Map(),
          batches,
          resolve: (op, s) => {
            if (op.kind !== "ack") return op;
            // One ack per event per batch: two simultaneous acks of one event are a known bug
            // (see the test below), kept out of the random runs so they test everything else.
            if (s !== batchState) [batchState, ackedInBatch] = [s, new Set()];
            const ids = [...s.values()].map((e) => e.id).sort();
            const id = ids.length && op.pick % 4 !== 0 ? ids[op.pick % ids.length] : UNKNOWN;
            if (id !== UNKNOWN && ackedInBatch.has(id)) return { ...op, id: UNKNOWN, receipt: UNKNOWN };
            ackedInBatch.add(id);
            // Mostly the event's own receipt (when it has one), sometimes a receipt that is not its claim's.
            const own = [...s.values()].find((e) => e.id === id)?.receipt;
            return { ...op, id, receipt: own && op.pick % 5 !== 1 ? own : UNKNOWN };
          },
          send: (op) => {
            if (op.kind === "deliver") {
              const d = delivery(source, op.webhookId, payload(op.webhookId, op.variant));
              return client(suite.server.url, null)(d.method, d.path, d.body, d.headers);
            }
            if (op.kind === "claim") return suite.api("POST", `/v1/webhooks/${source}/events/claim`, { limit: op.limit, visibility_ms: 600_000 });
            return suite.api("POST", `/v1/webhooks/${source}/events/${op.id}/ack`, { receipt: op.receipt });
          },
          actual: async () => {
            const rows = await sql<{ webhook_id: string; id: string; payload: string; claimed: boolean; processed: boolean }>(
              suite.db,
              "SELECT webhook_id, id, payload::text AS payload, claim_expires_at IS NOT NULL AS claimed, processed_at IS NOT NULL AS processed FROM webhook_events WHERE source = $1",
              [source],
            );
            return new Map(rows.map((r) => [r.webhook_id, { id: r.id, payload: r.payload, claimed: r.claimed, processed: r.processed }]));
          },
          show: (op) => JSON.stringify(op),
        });
        expect(failure, failure).toBeUndefined();
      }),
      { numRuns: 20 },
    );
  }, 180_000);
});

describe("webhooks: two simultaneous acks of one event", () => {
  // Found by the model test above: the ack used to be UPDATE … WHERE processed_at IS NULL with a
  // fallback SELECT, which read the statement's older snapshot after waiting for the other ack and
  // answered "received". It now locks the row first (FOR UPDATE reads the committed version).
  it("both answer status processed", async () => {
    const source = `double-ack-${Math.random().toString(36).slice(2, 8)}`;
    const put = webhooks.prepare!(source)[0];
    expect((await suite.api("PUT", put.path, { ...(put.body as object), ordering_key: undefined })).status).toBe(201);
    const d = delivery(source, "msg_double", JSON.stringify({ type: "x", data: {} }));
    const { json } = await client(suite.server.url, null)(d.method, d.path, d.body, d.headers);
    const [{ receipt }] = (await suite.api("POST", `/v1/webhooks/${source}/events/claim`, { limit: 1, visibility_ms: 600_000 })).json.events;
    // Hold the event's row so both acks are queued on it at once, then let them go.
    const holder = await connect(suite.db);
    let acks: Array<{ json: any }>;
    try {
      await holder.query("BEGIN");
      await holder.query("SELECT 1 FROM webhook_events WHERE id = $1 FOR UPDATE", [json.id]);
      const pending = Promise.all([1, 2].map(() => suite.api("POST", `/v1/webhooks/${source}/events/${json.id}/ack`, { receipt })));
      await until(
        async () => {
          const [{ n }] = await sql<{ n: number }>(
            suite.db,
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%admit_webhook_ack%'",
          );
          return n === 2;
        },
        10_000,
        "both acks waiting on the row",
      );
      await holder.query("ROLLBACK");
      acks = await pending;
    } finally {
      await holder.end();
    }
    expect(acks.map((a) => a.json.status)).toEqual(["processed", "processed"]);
  });
});
