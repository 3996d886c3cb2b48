// The webhooks capability's SQL: one function per statement, the only place in functions/ that names
// admit_webhook_*. The ordering lock key is computed here from (source, ordering value).
import { type AuditEntry, audited } from "../core/audit";
import type { Queryable } from "../core/db";
import { lockKey } from "../core/lock-keys";
import { MAX_PAGE_BYTES } from "../core/validation";
import type { AttemptResult, ClaimedAttempt, ForwardSettings } from "./forward-send";
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
  /** Where events are forwarded (never the forward secret); null: pull consumers only. */
  forward: (ForwardSettings & { previous_secret_expires_at: string | null; stopped_at: string | null; stopped_reason: string | null }) | null;
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
  delivery: {
    state: "pending" | "delivered" | "failed";
    attempts: number;
    in_flight: boolean;
    next_attempt_at: string | null;
    delivered_at: string | null;
    failed_at: string | null;
  } | null;
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
  /** Where events go; null: nowhere (pull consumers). */
  forward: ForwardSettings | null;
  forwardSecret: string | null;
  /** How much longer the previous forward secret signs beside the new one; undefined: see admit_webhook_put_source. */
  forwardPreviousSecretTtlMs: number | undefined;
}

/** Registers or replaces a source: one statement (with its audit row). */
export async function putWebhookSource(
  db: Queryable,
  source: string,
  s: SourceSettings,
  audit: AuditEntry,
): Promise<{ created: boolean; source: WebhookSourceRow }> {
  const q = audited(
    "SELECT admit_webhook_put_source($1, $2, $3, $4::bigint, $5::integer, $6, $7::jsonb, $8::integer, $9::jsonb, $10, $11::bigint) AS r",
    [
      source,
      s.scheme,
      s.secret,
      s.previousSecretTtlMs ?? null,
      s.toleranceS,
      s.orderingKey,
      s.hmac === null ? null : JSON.stringify(s.hmac),
      s.replayWindowS,
      s.forward === null ? null : JSON.stringify(s.forward),
      s.forwardSecret,
      s.forwardPreviousSecretTtlMs ?? null,
    ],
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
export async function receiveWebhook(db: Queryable, d: Delivery): Promise<{ id: string | null; duplicate: boolean; forward: boolean }> {
  const [{ r }] = await db.query<{ r: { id: string | null; duplicate: boolean; forward: boolean } }>(
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
  status: EventStatus | "pending" | "failed" | null,
  cursor: string | null,
  limit: number,
): Promise<{ items: { seq: number; event: WebhookEventRow }[]; more: boolean } | null> {
  const [{ r }] = await db.query<{ r: { items: { seq: number; event: WebhookEventRow }[]; more: boolean } | null }>(
    "SELECT admit_webhook_list($1, $2, $3::bigint, $4::integer, $5::integer) AS r",
    [source, status, cursor, limit, MAX_PAGE_BYTES],
  );
  return r;
}

/** Who started a forwarding attempt: the event's arrival, the schedule (cron), or a redelivery. */
export type AttemptTrigger = "received" | "schedule" | "redeliver";

/**
 * Claims due forwarding attempts — of one event, of one source, or of any (SKIP LOCKED, one short
 * transaction): each is leased and recorded before this returns, so no one else claims it.
 */
export async function claimForwardAttempts(
  db: Queryable,
  which: { source?: string; event?: string },
  limit: number,
  trigger: AttemptTrigger,
): Promise<ClaimedAttempt[]> {
  const [{ r }] = await db.query<{ r: ClaimedAttempt[] }>(
    "SELECT admit_webhook_forward_claim($1, $2::uuid, $3::integer, $4) AS r",
    [which.source ?? null, which.event ?? null, limit, trigger],
    { write: true },
  );
  return r;
}

/** Records an attempt's outcome (another short transaction); `recorded` false: its lease had lapsed. */
export async function recordForwardAttempt(
  db: Queryable,
  a: Pick<ClaimedAttempt, "id" | "lease">,
  r: AttemptResult,
): Promise<{ recorded: boolean; state: string | null; next_attempt_at?: string | null }> {
  const [{ x }] = await db.query<{ x: { recorded: boolean; state: string | null; next_attempt_at?: string | null } }>(
    "SELECT admit_webhook_forward_record($1::uuid, $2::uuid, $3::integer, $4, $5::integer, $6, $7, $8::bigint) AS x",
    [a.id, a.lease, r.status, r.outcome, r.latencyMs, r.response, r.error, r.retryAfterMs === null ? null : Math.round(r.retryAfterMs)],
    { write: true },
  );
  return x;
}

/** How long until the soonest pending attempt is due (null: none pending). */
export async function nextForwardDue(db: Queryable): Promise<number | null> {
  const [{ r }] = await db.query<{ r: { in_ms: number | string | null } }>("SELECT admit_webhook_forward_next_due() AS r");
  return r.in_ms === null ? null : Number(r.in_ms);
}

export interface AttemptRow {
  n: number;
  trigger: AttemptTrigger;
  target: string;
  started_at: string;
  finished_at: string | null;
  status: number | null;
  outcome: "delivered" | "failed" | "timeout" | "error" | "gone" | "lost" | null;
  latency_ms: number | null;
  response: string | null;
  error: string | null;
  retry_after_ms: number | null;
}

/** One page of an event's attempts after attempt `after`; null: no such event of this source. */
export async function listForwardAttempts(
  db: Queryable,
  source: string,
  id: string,
  after: number | null,
  limit: number,
): Promise<{ items: AttemptRow[]; more: boolean } | null> {
  const [{ r }] = await db.query<{ r: { items: AttemptRow[]; more: boolean } | null }>(
    "SELECT admit_webhook_forward_attempts($1, $2::uuid, $3::integer, $4::integer) AS r",
    [source, id, after, limit],
  );
  return r;
}

export type Redelivered =
  | { redelivered: true; event: WebhookEventRow }
  | { redelivered: false; why: "not-forwarding" | "in-flight" | "claimed"; in_flight_until?: string };

/** Makes one event due again now (audited); null: no such event of this source. */
export async function redeliverEvent(db: Queryable, source: string, id: string, audit: AuditEntry): Promise<Redelivered | null> {
  const q = audited("SELECT admit_webhook_forward_redeliver($1, $2::uuid) AS r", [source, id], "(c.r->>'redelivered')::boolean", audit);
  const [{ r }] = await db.query<{ r: Redelivered | null }>(q.text, q.params, { write: true });
  return r;
}

/** Makes the failed events received in [since, until) due again, at most `limit` (audited); null: no such source. */
export async function redeliverFailed(
  db: Queryable,
  source: string,
  since: string,
  until: string,
  limit: number,
  audit: AuditEntry,
): Promise<{ redelivered: number; more: boolean; forwarding: boolean } | null> {
  const q = audited(
    "SELECT admit_webhook_forward_redeliver_failed($1, $2::timestamptz, $3::timestamptz, $4::integer) AS r",
    [source, since, until, limit],
    "(c.r->>'redelivered')::integer > 0",
    audit,
  );
  const [{ r }] = await db.query<{ r: { redelivered: number; more: boolean; forwarding: boolean } | null }>(q.text, q.params, { write: true });
  return r;
}
