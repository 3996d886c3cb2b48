// webhook-duplicates: a redelivery storm. Every webhook-id is delivered 5 times, the copies at the
// same moment (consecutive requests are in flight together), each signed by the sender with the
// Standard Webhooks scheme. A decision = one delivery: the source lookup (scheme, secrets and the
// database clock the timestamp window is judged by), the receiver's own verifier (functions/webhooks/
// schemes/, WebCrypto HMAC), then the inbox insert (INSERT … ON CONFLICT DO NOTHING) — the receiver
// route's two statements, also what pgbench runs.
//
// Violations = duplicate inbox rows (more than one row per (source, webhook-id)) plus deliveries
// answered 200 whose event is not in the inbox, from the database afterwards.
import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { type DeliverySource, SCHEMES, verifies } from "../../functions/webhooks/schemes";
import { receiveWebhook } from "../../functions/webhooks/sql";
import { atEdgeConcurrencies, ceiling, edge, hasFunctions, library, rowKey, type Scenario } from "../measure";
import type { Row } from "../report";
import { dbOver } from "./ratelimit/common";

const NAME = "webhook-duplicates";
const COPIES = 5;
const LOCK_TIMEOUT_MS = 2000;
export const SOURCE_FOR_DELIVERY = "SELECT admit_webhook_source_for_delivery($1) AS s";

export const DUPLICATE_INBOX_ROWS = `
  SELECT (count(*) - count(DISTINCT webhook_id))::int AS n FROM webhook_events WHERE source = $1`;

/** Delivery i carries event floor(i / 5): the five copies of an event go out together. */
export function eventOf(i: number): number {
  return Math.floor(i / COPIES);
}

interface Delivery {
  id: string;
  body: string;
  headers: Record<string, string>;
}

/** What a sender would send for event n, signed once (signing is the sender's work, not timed). */
function deliveries(secret: string, timestampS: number, count: number): Delivery[] {
  const wh = new Webhook(secret);
  const at = new Date(timestampS * 1000);
  return Array.from({ length: count }, (_, n) => {
    const id = `evt_${n}`;
    const body = JSON.stringify({ type: "invoice.paid", data: { invoice: `in_${n}`, amount: 1200 + n } });
    return { id, body, headers: { "webhook-id": id, "webhook-timestamp": String(timestampS), "webhook-signature": wh.sign(id, at, body) } };
  });
}

/** The receiver's check: the timestamp window on the database clock, then the scheme's verifier over the body bytes. */
async function verified(source: DeliverySource, d: Delivery, ts: number): Promise<boolean> {
  if (source.tolerance_s === null || Math.abs(ts * 1000 - source.now_ms) > source.tolerance_s * 1000) return false;
  const scheme = SCHEMES[source.scheme];
  const signed = scheme.signed({ header: (name) => d.headers[name.toLowerCase()] }, source);
  return verifies(scheme, source, signed, new TextEncoder().encode(d.body));
}

export const PGBENCH_SCRIPT = [
  "\\set n random(0, 19999)",
  "SELECT admit_webhook_source_for_delivery(:source) AS s;",
  `SELECT admit_webhook_receive(:source, 'evt_' || :n, :ts::bigint, 'invoice.paid', json_build_object('type', 'invoice.paid', 'n', :n::integer)::text, NULL, NULL::bigint, ${LOCK_TIMEOUT_MS}::integer, '{}'::text[], NULL, NULL::bigint) AS r;`,
  "",
].join("\n");

export const webhookDuplicates: Scenario = {
  name: NAME,
  async unavailable(ctx) {
    return (await hasFunctions(ctx, "admit_webhook_receive", "admit_webhook_source_for_delivery", "admit_webhook_put_source"))
      ? null
      : "webhook receiving (admit_webhook_receive) not on this build";
  },
  async run(ctx) {
    const out: (Row | null)[] = [];
    const secret = "whsec_" + randomBytes(32).toString("base64");
    const [{ now }] = await ctx.sql<{ now: string }>("SELECT extract(epoch FROM now())::bigint AS now");
    const ts = Number(now);
    const events = Math.ceil(ctx.requests / COPIES) + 1;
    const signed = deliveries(secret, ts, events);
    const sourceFor = async (layer: string, impl: string, connection: string) => {
      const source = `wh-${rowKey(ctx, layer, impl, connection)}`;
      await ctx.sql("SELECT admit_webhook_put_source($1, 'standard-webhooks', $2, NULL, 300, NULL, NULL, NULL, NULL, NULL, NULL)", [source, secret]);
      return source;
    };
    const check = (source: string, ok: Set<string>) => async () => {
      const [{ n }] = await ctx.sql<{ n: number }>(DUPLICATE_INBOX_ROWS, [source]);
      const stored = new Set(
        (await ctx.sql<{ webhook_id: string }>("SELECT webhook_id FROM webhook_events WHERE source = $1", [source])).map((r) => r.webhook_id),
      );
      return n + [...ok].filter((id) => !stored.has(id)).length;
    };
    const note = `each event delivered ${COPIES}× at once`;

    for (const connection of ["pooled", "per-request"] as const) {
      const source = await sourceFor("ceiling", "pgbench", connection);
      out.push(
        await ceiling(ctx, {
          scenario: NAME,
          impl: "pgbench",
          connection,
          script: PGBENCH_SCRIPT,
          defines: { source, ts: String(ts) },
          note: "random events of 20 000: duplicates by chance",
          violations: check(source, new Set()),
        }),
      );
    }
    for (const connection of ["pooled", "per-request"] as const) {
      const source = await sourceFor("library", "admit", connection);
      const ok = new Set<string>();
      out.push(
        await library(ctx, {
          scenario: NAME,
          impl: "admit",
          connection,
          note,
          violations: check(source, ok),
          op: async (q, i) => {
            const d = signed[eventOf(i) % signed.length];
            const [s] = (await q(SOURCE_FOR_DELIVERY, [source])).rows;
            if (!s.s || !(await verified(s.s, d, ts))) return "401";
            // The receiver route's own statement (functions/webhooks/sql.ts), so the row cannot drift from it.
            const r = await receiveWebhook(dbOver(q), {
              source,
              webhookId: d.id,
              earlierIds: [],
              signedSha256: null,
              timestamp: ts,
              eventType: "invoice.paid",
              body: d.body,
              ordering: undefined,
            });
            ok.add(d.id);
            return r.duplicate ? "duplicate" : "received";
          },
        }),
      );
    }
    out.push(
      ...(await atEdgeConcurrencies(ctx, async (concurrency) => {
        const source = await sourceFor("edge", "admit", `http-c${concurrency}`);
        const ok = new Set<string>();
        return edge(ctx, {
          scenario: NAME,
          impl: "admit",
          connection: "http",
          concurrency,
          statementsPerDecision: 2,
          note: `${note}; a delivery = two statements (the source's secret, then the insert)`,
          violations: check(source, ok),
          op: async (call, i) => {
            const d = signed[eventOf(i) % signed.length];
            const res = await call("POST", `/v1/webhooks/${source}`, d.body, d.headers);
            if (res.status === 200) ok.add(d.id);
            return String(res.status);
          },
        });
      })),
    );
    return out;
  },
};
