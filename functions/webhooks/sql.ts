// The webhooks capability's SQL: one function per statement, the only place in functions/ that names
// admit_webhook_*. The ordering lock key is computed here from (source, ordering value).
import { type AuditEntry, audited } from "../core/audit";
import type { Queryable } from "../core/db";
import { lockKey } from "../core/lock-keys";
import { MAX_PAGE_BYTES } from "../core/validation";
import type { DeliverySource, HmacSettings, Rejection, SchemeName } from "./schemes";

export type { DeliverySource };

/** A refused delivery as its source's owner sees it. */
export interface RejectionRow {
  at: string;
  reason: Exclude<Rejection["reason"], "unknown-source">;
  header?: string;
  detail: string;
}

/** A registered sender's settings, as stored (never its secret), and its latest refused deliveries. */
export interface WebhookSourceRow {
  source: string;
  scheme: SchemeName;
  tolerance_s: number | null;
  ordering_key: string | null;
  hmac: HmacSettings | null;
  replay_window_s: number | null;
  previous_secret_expires_at: string | null;
  recent_rejections: RejectionRow[];
  created_at: string;
  updated_at: string;
}

export type EventStatus = "received" | "claimed" | "processed";

export interface WebhookEventRow {
  id: string;
  webhook_id: string;
  event_type: string | null;
  payload: unknown;
  status: EventStatus;
  ordering_value: string | null;
  webhook_timestamp: string | null;
  received_at: string;
  claim_expires_at: string | null;
  claims: number;
  processed_at: string | null;
}

export interface ClaimedEventRow {
  id: string;
  webhook_id: string;
  event_type: string | null;
  payload: unknown;
  ordering_value: string | null;
  received_at: string;
  claim_expires_at: string;
  receipt: string;
}

/** An ack with a receipt that is not the event's live claim; nothing was changed. */
export interface NotCurrent {
  status: "not_current";
  state: string;
  claim_expires_at: string | null;
}

export interface SourceSettings {
  scheme: SchemeName;
  secret: string;
  /** How much longer the previous secret is accepted; undefined: see admit_webhook_put_source. */
  previousSecretTtlMs: number | undefined;
  /** null: the scheme signs no timestamp. */
  toleranceS: number | null;
  orderingKey: string | null;
  hmac: HmacSettings | null;
  /** null: no duplicate by signed bytes. */
  replayWindowS: number | null;
}

/** Registers or replaces a source: one statement (with its audit row). */
export async function putWebhookSource(
  db: Queryable,
  source: string,
  s: SourceSettings,
  audit: AuditEntry,
): Promise<{ created: boolean; source: WebhookSourceRow }> {
  const q = audited(
    "SELECT admit_webhook_put_source($1, $2, $3, $4::bigint, $5::integer, $6, $7::jsonb, $8::integer) AS r",
    [source, s.scheme, s.secret, s.previousSecretTtlMs ?? null, s.toleranceS, s.orderingKey, s.hmac === null ? null : JSON.stringify(s.hmac), s.replayWindowS],
    "true",
    audit,
  );
  const [{ r }] = await db.query<{ r: { created: boolean; source: WebhookSourceRow } }>(q.text, q.params, { write: true });
  return r;
}

/** Sources by name after `after`, only those matching `names` (LIKE patterns; null: all) (at most limit + 1), never their secrets. */
export async function listWebhookSources(db: Queryable, after: string | null, limit: number, names: string[] | null): Promise<WebhookSourceRow[]> {
  const [{ r }] = await db.query<{ r: WebhookSourceRow[] }>("SELECT admit_webhook_list_sources($1, $2::integer, $3::text[]) AS r", [after, limit, names]);
  return r;
}

/** null: no such source. */
export async function getWebhookSource(db: Queryable, source: string): Promise<WebhookSourceRow | null> {
  const [{ r }] = await db.query<{ r: WebhookSourceRow | null }>("SELECT admit_webhook_get_source($1) AS r", [source]);
  return r;
}

/** The source's scheme, secrets and settings, and the database clock; null: no such source. */
export async function sourceForDelivery(db: Queryable, source: string): Promise<DeliverySource | null> {
  const [{ s }] = await db.query<{ s: DeliverySource | null }>("SELECT admit_webhook_source_for_delivery($1) AS s", [source]);
  return s;
}

/**
 * Records why a delivery to `source` was refused, on the source (its latest 10), if it exists; the same
 * statement for an unknown name. Never waits for a row another statement holds (it records nothing then).
 */
export async function rejectWebhook(db: Queryable, source: string, rejection: Rejection): Promise<void> {
  // (A rejection for an unknown source is recorded nowhere: it has no row.)
  await db.query("SELECT admit_webhook_reject($1, $2::jsonb)", [source, JSON.stringify(rejection)], { write: true });
}

export interface Delivery {
  source: string;
  /** The sender's own id. */
  webhookId: string;
  /** Ids the same delivery was stored under by earlier versions of its scheme (an event under one is this delivery). */
  earlierIds: string[];
  /** The hex SHA-256 of the signed bytes, where the scheme does not sign the id; else null. */
  signedSha256: string | null;
  /** The signed timestamp, epoch seconds; null: the scheme signs none. */
  timestamp: number | null;
  eventType: string | null;
  /** The raw body, as signed. */
  body: string;
  /** The payload's value at the source's ordering key; undefined: unordered. */
  ordering: string | undefined;
}

/**
 * Stores the event once per (source, the sender's id), or finds it under an earlier id or, within the
 * source's replay window, by its signed bytes; `id` null: the source was removed meanwhile.
 */
export async function receiveWebhook(db: Queryable, d: Delivery): Promise<{ id: string | null; duplicate: boolean }> {
  const [{ r }] = await db.query<{ r: { id: string | null; duplicate: boolean } }>(
    "SELECT admit_webhook_receive($1, $2, $3::bigint, $4, $5, $6, $7::bigint, $8::integer, $9::text[], $10, $11::bigint) AS r",
    [
      d.source,
      d.webhookId,
      d.timestamp,
      d.eventType,
      d.body,
      d.ordering ?? null,
      d.ordering === undefined ? null : lockKey("webhook", `${d.source}/${d.ordering}`),
      db.lockTimeoutMs,
      d.earlierIds,
      d.signedSha256,
      d.signedSha256 === null ? null : lockKey("webhook-signed", `${d.source}/${d.signedSha256}`),
    ],
    { write: true },
  );
  return r;
}

/** null: no such source. */
export async function claimWebhookEvents(db: Queryable, source: string, limit: number, visibilityMs: number): Promise<{ events: ClaimedEventRow[] } | null> {
  const [{ r }] = await db.query<{ r: { events: ClaimedEventRow[] } | null }>(
    "SELECT admit_webhook_claim($1, $2::integer, $3::integer, $4::integer) AS r",
    [source, limit, visibilityMs, MAX_PAGE_BYTES],
    { write: true },
  );
  return r;
}

/** `id` and `receipt` must be UUIDs. null: no such event of this source. */
export async function ackWebhookEvent(db: Queryable, source: string, id: string, receipt: string): Promise<WebhookEventRow | NotCurrent | null> {
  const [{ r }] = await db.query<{ r: WebhookEventRow | NotCurrent | null }>("SELECT admit_webhook_ack($1, $2::uuid, $3::uuid) AS r", [source, id, receipt], {
    write: true,
  });
  return r;
}

/** One page of events after `cursor` (a seq), each with its seq for the next cursor. null: no such source. */
export async function listWebhookEvents(
  db: Queryable,
  source: string,
  status: EventStatus | null,
  cursor: string | null,
  limit: number,
): Promise<{ items: { seq: number; event: WebhookEventRow }[]; more: boolean } | null> {
  const [{ r }] = await db.query<{ r: { items: { seq: number; event: WebhookEventRow }[]; more: boolean } | null }>(
    "SELECT admit_webhook_list($1, $2, $3::bigint, $4::integer, $5::integer) AS r",
    [source, status, cursor, limit, MAX_PAGE_BYTES],
  );
  return r;
}
