// The webhooks capability's handlers: HTTP ↔ webhook calls (sql.ts), outcomes mapped to answers and problems.
//
// The delivery route is authenticated by its signature alone (http/app.ts exempts exactly that route
// from the bearer token): the `standardwebhooks` package verifies the HMAC over the raw body bytes
// (several signatures in the header, for key rotation, are tried in turn); the timestamp window is
// checked on the database clock with the source's own tolerance.

import type { RouteHandler } from "@hono/zod-openapi";
import { sha256 } from "hono/utils/crypto";
import { Webhook, WebhookVerificationError } from "standardwebhooks";
import { auditEntry, redact } from "../core/audit";
import type { AppEnv } from "../core/context";
import { httpProblem, notFound, problem } from "../core/errors";
import { REPLAYED_HEADER } from "../core/http";
import { cutPage, isUuid, namePage, unstorableText } from "../core/validation";
import * as routes from "./routes";
import * as sql from "./sql";

/**
 * The library's `verify()` also checks the timestamp against the Worker's clock with a fixed ±5 min.
 * Admit checks the window on the database clock with each source's `tolerance_s` instead, so the
 * library's own check is replaced by a plain parse; signature parsing, the HMAC and the
 * constant-time comparison stay the library's. (If a library version renamed that method, its
 * ±5 min check would simply apply as well: stricter, never looser.)
 */
function verifier(secret: string): Webhook {
  const wh = new Webhook(secret);
  Object.defineProperty(wh, "verifyTimestamp", { value: (header: string) => new Date(Number(header) * 1000) });
  return wh;
}

/**
 * The value at an RFC 6901 JSON pointer, as the text events are grouped by: a string as itself,
 * any other JSON value as its JSON text; null or absent → undefined (the event is unordered).
 */
export function orderingValue(payload: unknown, pointer: string): string | undefined {
  let at: unknown = payload;
  for (const raw of pointer.split("/").slice(1)) {
    const token = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(at) && /^(0|[1-9]\d*)$/.test(token)) at = at[Number(token)];
    else if (at !== null && typeof at === "object" && !Array.isArray(at) && Object.hasOwn(at, token)) at = (at as Record<string, unknown>)[token];
    else return undefined;
  }
  if (at === null || at === undefined) return undefined;
  return typeof at === "string" ? at : JSON.stringify(at);
}

/** The most characters an ordering value is stored (and shown) as itself. */
export const MAX_ORDERING_CHARS = 200;

/**
 * An ordering value as stored and indexed: itself when it is at most MAX_ORDERING_CHARS and text
 * Postgres stores as itself, else `sha256:` and the hex digest of its JSON text (which keeps a lone
 * surrogate distinct). Equal values still group together and different ones apart; a signed
 * delivery is never refused for its ordering value (a large object overflowed the index row, a NUL
 * was refused by Postgres: a 422, retried by the sender forever).
 */
export async function storedOrdering(value: string): Promise<string> {
  if (value.length <= MAX_ORDERING_CHARS && unstorableText(value) === undefined) return value;
  return `sha256:${await sha256(JSON.stringify(value))}`;
}

export function unknownSource(source: string) {
  return notFound(`No webhook source ${JSON.stringify(source)}. Register it with PUT /v1/webhooks/sources/${source}.`);
}

export function eventNotFound(source: string, id: string) {
  return notFound(`No event ${JSON.stringify(id)} of source ${JSON.stringify(source)}.`);
}

/** Every failed authentication of a delivery is the same 401 problem; `detail` says what to fix. */
function unverified(detail: string) {
  return problem("webhook-signature", `${detail} Nothing was stored.`);
}

export const putWebhookSource: RouteHandler<typeof routes.putWebhookSource, AppEnv> = async (c) => {
  const { source } = c.req.valid("param");
  const body = c.req.valid("json");
  const audit = auditEntry(c.var.caller, c.env ?? {}, "webhooks.source.put", source, redact(body, "secret", "secrets"));
  const r = await sql.putWebhookSource(c.var.db, source, { secret: body.secret, toleranceS: body.tolerance_s, orderingKey: body.ordering_key ?? null }, audit);
  return r.created ? c.json(r.source, 201) : c.json(r.source, 200);
};

export const listWebhookSources: RouteHandler<typeof routes.listWebhookSources, AppEnv> = async (c) => {
  const q = c.req.valid("query");
  const rows = await sql.listWebhookSources(c.var.db, q.cursor ?? null, q.limit);
  return c.json(
    namePage(rows, q.limit, (s) => s.source),
    200,
  );
};

export const getWebhookSource: RouteHandler<typeof routes.getWebhookSource, AppEnv> = async (c) => {
  const { source } = c.req.valid("param");
  const r = await sql.getWebhookSource(c.var.db, source);
  if (!r) throw unknownSource(source);
  return c.json(r, 200);
};

export const receiveWebhook: RouteHandler<typeof routes.receiveWebhook, AppEnv> = async (c) => {
  const source = c.req.param("source");
  const id = c.req.header("webhook-id");
  const timestamp = c.req.header("webhook-timestamp");
  const signature = c.req.header("webhook-signature");
  if (!id || !timestamp || !signature) throw unverified("Send the webhook-id, webhook-timestamp and webhook-signature headers (Standard Webhooks).");
  if (id.length > routes.MAX_WEBHOOK_ID) throw unverified(`webhook-id is longer than ${routes.MAX_WEBHOOK_ID} characters.`);
  if (!/^\d{1,12}$/.test(timestamp)) throw unverified("webhook-timestamp must be integer seconds since the Unix epoch.");
  if (!routes.SOURCE_PATTERN.test(source)) throw unverified("The signature does not verify for this source.");

  let body: string;
  try {
    // The signature covers the exact bytes: decode strictly, keep a BOM, so re-encoding gives them back.
    body = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(await c.req.arrayBuffer());
  } catch {
    throw httpProblem(400, "The body is not UTF-8.");
  }

  const db = c.var.db;
  const s = await sql.sourceForDelivery(db, source, timestamp);
  if (!s) throw unverified("The signature does not verify for this source.");
  try {
    verifier(s.secret).verify(body, { "webhook-id": id, "webhook-timestamp": timestamp, "webhook-signature": signature }, { jsonParse: false });
  } catch (err) {
    if (err instanceof WebhookVerificationError) throw unverified("The signature does not verify for this source.");
    throw err;
  }
  if (!s.fresh) {
    const when = s.skew_s < 0 ? `${-s.skew_s} s old` : `${s.skew_s} s in the future`;
    throw unverified(`webhook-timestamp is ${when}; this source accepts ±${s.tolerance_s} s.`);
  }
  let payload: unknown;
  try {
    payload = JSON.parse(body);
  } catch {
    throw httpProblem(400, "The body is not JSON.");
  }
  const value = s.ordering_key === null ? undefined : orderingValue(payload, s.ordering_key);
  const ordering = value === undefined ? undefined : await storedOrdering(value);
  const r = await sql.receiveWebhook(db, { source, webhookId: id, timestamp, body, ordering });
  if (!r.id) throw unverified("The source was removed.");
  return c.json({ id: r.id, status: "received" as const }, 200, r.duplicate ? { [REPLAYED_HEADER]: "true" } : {});
};

export const claimWebhookEvents: RouteHandler<typeof routes.claimWebhookEvents, AppEnv> = async (c) => {
  const { source } = c.req.valid("param");
  const body = routes.ClaimBody.parse(c.req.valid("json") ?? {});
  const r = await sql.claimWebhookEvents(c.var.db, source, body.limit, body.visibility_ms);
  if (!r) throw unknownSource(source);
  return c.json(r, 200);
};

export const ackWebhookEvent: RouteHandler<typeof routes.ackWebhookEvent, AppEnv> = async (c) => {
  const { source, id } = c.req.valid("param");
  const { receipt } = c.req.valid("json");
  if (!isUuid(id)) throw eventNotFound(source, id);
  const r = await sql.ackWebhookEvent(c.var.db, source, id, receipt);
  if (!r) throw eventNotFound(source, id);
  if (r.status === "not_current") {
    const why: Record<string, string> = {
      processed: "it was already processed under another claim",
      expired: "this claim lapsed before the ack",
      superseded: "this receipt is not the event's latest claim (it was claimed again after this claim lapsed)",
      unclaimed: "the event has not been claimed",
    };
    throw problem("claim-not-current", `Event ${id} was not acknowledged: ${why[r.state] ?? r.state}. Nothing was changed; claim again to process it.`, {
      state: r.state,
      claim_expires_at: r.claim_expires_at,
    });
  }
  return c.json(r, 200);
};

export const listWebhookEvents: RouteHandler<typeof routes.listWebhookEvents, AppEnv> = async (c) => {
  const { source } = c.req.valid("param");
  const q = c.req.valid("query");
  const r = await sql.listWebhookEvents(c.var.db, source, q.status ?? null, q.cursor ?? null, q.limit);
  if (!r) throw unknownSource(source);
  const page = cutPage(r, (e) => String(e.seq));
  return c.json({ items: page.items.map((e) => e.event), next_cursor: page.next_cursor }, 200);
};
