// Exactly-once webhook receiving from Standard Webhooks senders, and a pull queue for consumers.
// SQL: schema/000041_webhooks.sql. Tests: test/webhooks*.test.ts.
//
// The delivery route POST /v1/webhooks/:source is authenticated by its signature alone (app.ts
// exempts exactly that route from the bearer token): the `standardwebhooks` package verifies the
// HMAC over the raw body bytes (several signatures in the header, for key rotation, are tried in
// turn); the timestamp window is checked on the database clock with the source's own tolerance.
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { Webhook, WebhookVerificationError } from "standardwebhooks";
import type { AppEnv } from "../core/context";
import { httpProblem, notFound, problem } from "../core/errors";
import { REPLAYED_HEADER } from "../core/http";
import { lockKey } from "../core/keys";
import { problemResponses } from "../core/openapi";
import { validationHook } from "../core/validation";

const SOURCE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
const MAX_WEBHOOK_ID = 255;
const MAX_PAGE = 1000;

/** The delivery route in the OpenAPI document. */
export const WEBHOOK_DELIVERY_PATH = "/v1/webhooks/{source}";

/** Exactly the delivery route: POST /v1/webhooks/:source (one path segment). It carries no bearer token. */
export function isWebhookDelivery(c: Context): boolean {
  return c.req.method === "POST" && /^\/v1\/webhooks\/[^/]+$/.test(c.req.path);
}

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

/** Key length in bytes as the library decodes it; 0 when it cannot. */
function secretBytes(secret: string): number {
  try {
    new Webhook(secret);
    return atob(secret.slice("whsec_".length)).length;
  } catch {
    return 0;
  }
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

const SourceName = z
  .string()
  .regex(SOURCE_PATTERN, "must be 1–100 characters of A–Z, a–z, 0–9, '.', '_', '-', starting with a letter or digit")
  .refine((s) => s !== "sources", "\"sources\" is reserved");

const SourceParam = z.object({ source: SourceName.openapi({ param: { name: "source", in: "path" }, example: "billing" }) });

const WebhookSource = z
  .object({
    source: z.string(),
    tolerance_s: z.number().int(),
    ordering_key: z.string().nullable(),
    created_at: z.string().openapi({ format: "date-time" }),
    updated_at: z.string().openapi({ format: "date-time" }),
  })
  .openapi("WebhookSource");

const PutSourceBody = z
  .object({
    secret: z
      .string()
      .regex(/^whsec_[A-Za-z0-9+/]+={0,2}$/, "must be whsec_ followed by base64 (the Standard Webhooks secret format)")
      .refine((s) => secretBytes(s) >= 24 && secretBytes(s) <= 64, "must decode to 24–64 bytes")
      .openapi({ example: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", description: "The signing secret shared with the sender. Write-only: never returned." }),
    tolerance_s: z.number().int().min(1).max(86_400).default(300).openapi({ description: "Accepted clock skew of `webhook-timestamp`, ±seconds (default 300)" }),
    ordering_key: z
      .string()
      .max(200)
      .regex(/^(\/([^~/]|~[01])*)+$/, "must be a JSON pointer (RFC 6901) such as /data/subscription_id")
      .nullable()
      .optional()
      .openapi({ example: "/data/subscription_id", description: "Events with the same value at this JSON pointer are never claimed concurrently, and are handed out in received order" }),
  })
  .openapi("WebhookSourceInput");

const Received = z.object({ id: z.uuid(), status: z.literal("received") }).openapi("WebhookReceived");

const ClaimedEvent = z
  .object({
    id: z.uuid(),
    webhook_id: z.string(),
    payload: z.unknown(),
    ordering_value: z.string().nullable(),
    received_at: z.string().openapi({ format: "date-time" }),
    claim_expires_at: z.string().openapi({ format: "date-time" }),
    receipt: z.uuid().openapi({ description: "This claim's receipt: the ack must carry it. A later claim of the event (after this one lapsed) gets another, and this one no longer acknowledges it." }),
  })
  .openapi("ClaimedWebhookEvent");

const EventStatus = z.enum(["received", "claimed", "processed"]);

const WebhookEvent = z
  .object({
    id: z.uuid(),
    webhook_id: z.string(),
    payload: z.unknown(),
    status: EventStatus,
    ordering_value: z.string().nullable(),
    webhook_timestamp: z.string().openapi({ format: "date-time" }),
    received_at: z.string().openapi({ format: "date-time" }),
    claim_expires_at: z.string().nullable().openapi({ format: "date-time" }),
    claims: z.number().int(),
    processed_at: z.string().nullable().openapi({ format: "date-time" }),
  })
  .openapi("WebhookEvent");

const ClaimBody = z
  .object({
    limit: z.number().int().min(1).max(100).default(10).openapi({ description: "At most this many events (1–100, default 10)" }),
    visibility_ms: z.number().int().min(100).max(43_200_000).default(30_000).openapi({ description: "Claim lifetime: unacknowledged events become claimable again after it (100 ms–12 h, default 30 s)" }),
  })
  .openapi("WebhookClaim");

const AckBody = z
  .object({
    receipt: z.uuid().openapi({ description: "The `receipt` the claim returned with this event" }),
  })
  .openapi("WebhookAck");

const EventParams = SourceParam.extend({ id: z.string().openapi({ param: { name: "id", in: "path" } }) });

const ListQuery = z.object({
  status: EventStatus.optional().openapi({ param: { name: "status", in: "query" }, description: "received (waiting), claimed (live claim) or processed; omitted = all" }),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE).default(100).openapi({ param: { name: "limit", in: "query" } }),
  cursor: z.string().regex(/^\d{1,18}$/, "not a next_cursor of this endpoint").optional().openapi({ param: { name: "cursor", in: "query" } }),
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function unknownSource(source: string) {
  return notFound(`No webhook source ${JSON.stringify(source)}. Register it with PUT /v1/webhooks/sources/${source}.`);
}

/** Every failed authentication of a delivery is the same 401 problem; `detail` says what to fix. */
function unverified(detail: string) {
  return problem("webhook-signature", `${detail} Nothing was stored.`);
}

type SourceJson = z.infer<typeof WebhookSource>;

export const webhooks = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

webhooks.openapi(
  createRoute({
    method: "put",
    path: "/v1/webhooks/sources/{source}",
    tags: ["Webhooks"],
    summary: "Register or replace a webhook sender",
    description: "Stores the sender's signing secret (write-only: no endpoint returns it), its timestamp tolerance and optional ordering key. Replacing a source keeps its events.",
    request: { params: SourceParam, body: { required: true, content: { "application/json": { schema: PutSourceBody } } } },
    responses: {
      200: { description: "Replaced", content: { "application/json": { schema: WebhookSource } } },
      201: { description: "Registered", content: { "application/json": { schema: WebhookSource } } },
      ...problemResponses(400, 401, 413, 415, 422, 503, 504),
    },
  }),
  async (c) => {
    const { source } = c.req.valid("param");
    const body = c.req.valid("json");
    const [{ r }] = await c.var.db.query<{ r: { created: boolean; source: SourceJson } }>(
      "SELECT admit_webhook_put_source($1, $2, $3::integer, $4) AS r",
      [source, body.secret, body.tolerance_s, body.ordering_key ?? null],
      { write: true },
    );
    return r.created ? c.json(r.source, 201) : c.json(r.source, 200);
  },
);

webhooks.openapi(
  createRoute({
    method: "get",
    path: "/v1/webhooks/sources/{source}",
    tags: ["Webhooks"],
    summary: "A webhook sender's settings (never its secret)",
    request: { params: SourceParam },
    responses: {
      200: { description: "The source", content: { "application/json": { schema: WebhookSource } } },
      ...problemResponses(401, 404, 422, 503),
    },
  }),
  async (c) => {
    const { source } = c.req.valid("param");
    const [{ r }] = await c.var.db.query<{ r: SourceJson | null }>("SELECT admit_webhook_get_source($1) AS r", [source]);
    if (!r) throw unknownSource(source);
    return c.json(r, 200);
  },
);

webhooks.openapi(
  createRoute({
    method: "post",
    path: WEBHOOK_DELIVERY_PATH,
    tags: ["Webhooks"],
    summary: "Receive a signed webhook delivery",
    description: [
      "Authenticated by `webhook-id`, `webhook-timestamp` and `webhook-signature` (`v1,<base64 HMAC-SHA256 of id.timestamp.body>`, several space-separated for key rotation), verified with the `standardwebhooks` package over the raw body bytes. The body is any JSON.",
      "`webhook-timestamp` must be within ±`tolerance_s` of the database clock. A bad or missing signature, an unknown source or a stale/future timestamp → 401 and nothing is stored.",
      "The event is stored once per (source, webhook-id): the first delivery → 200 `{id, status: \"received\"}`; a redelivery → the same answer with `Idempotent-Replayed: true`.",
    ].join("\n\n"),
    security: [],
    request: { params: z.object({ source: z.string().openapi({ param: { name: "source", in: "path" }, example: "billing" }) }) },
    responses: {
      200: { description: "Stored (or already stored: `Idempotent-Replayed: true`)", content: { "application/json": { schema: Received } } },
      401: { description: "Not verified: missing/bad signature, unknown source, or timestamp outside the tolerance. Nothing stored", content: { "application/problem+json": { schema: problemResponses(401)[401].content["application/problem+json"].schema } } },
      ...problemResponses(400, 413, 415, 503, 504),
    },
  }),
  async (c) => {
    const source = c.req.param("source");
    const id = c.req.header("webhook-id");
    const timestamp = c.req.header("webhook-timestamp");
    const signature = c.req.header("webhook-signature");
    if (!id || !timestamp || !signature) throw unverified("Send the webhook-id, webhook-timestamp and webhook-signature headers (Standard Webhooks).");
    if (id.length > MAX_WEBHOOK_ID) throw unverified(`webhook-id is longer than ${MAX_WEBHOOK_ID} characters.`);
    if (!/^\d{1,12}$/.test(timestamp)) throw unverified("webhook-timestamp must be integer seconds since the Unix epoch.");
    if (!SOURCE_PATTERN.test(source)) throw unverified("The signature does not verify for this source.");

    let body: string;
    try {
      // The signature covers the exact bytes: decode strictly, keep a BOM, so re-encoding gives them back.
      body = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(await c.req.arrayBuffer());
    } catch {
      throw httpProblem(400, "The body is not UTF-8.");
    }

    const db = c.var.db;
    const [{ s }] = await db.query<{ s: { secret: string; tolerance_s: number; ordering_key: string | null; skew_s: number; fresh: boolean } | null }>(
      "SELECT admit_webhook_source_for_delivery($1, $2::bigint) AS s",
      [source, timestamp],
    );
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
    const ordering = s.ordering_key === null ? undefined : orderingValue(payload, s.ordering_key);
    const [{ r }] = await db.query<{ r: { id: string | null; duplicate: boolean } }>(
      "SELECT admit_webhook_receive($1, $2, $3::bigint, $4, $5, $6::bigint, $7::integer) AS r",
      [source, id, timestamp, body, ordering ?? null, ordering === undefined ? null : lockKey("webhook", `${source}/${ordering}`), db.lockTimeoutMs],
      { write: true },
    );
    if (!r.id) throw unverified("The source was removed.");
    return c.json({ id: r.id, status: "received" as const }, 200, r.duplicate ? { [REPLAYED_HEADER]: "true" } : {});
  },
);

/**
 * The delivery's signature headers and raw body in the document. The route reads them itself (not
 * through a validator: a missing or bad header is a 401 like a bad signature, and the signature
 * covers the exact bytes), so they are added to its operation here.
 */
export function documentDelivery<D extends { paths?: object }>(doc: D): D {
  const op = (doc.paths as Record<string, Record<string, any>> | undefined)?.[WEBHOOK_DELIVERY_PATH]?.post;
  if (!op) return doc;
  const header = (name: string, description: string, schema: object, example: string) => ({ name, in: "header", required: true, description, schema: { type: "string", ...schema }, example });
  op.parameters = [
    ...(op.parameters ?? []),
    header("webhook-id", `The message id; one event is stored per (source, webhook-id). 1–${MAX_WEBHOOK_ID} characters.`, { minLength: 1, maxLength: MAX_WEBHOOK_ID }, "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W"),
    header("webhook-timestamp", "Integer seconds since the Unix epoch; must be within ±`tolerance_s` of the database clock.", { pattern: "^\\d{1,12}$" }, "1735689600"),
    header("webhook-signature", "Space-separated `v1,<base64 HMAC-SHA256 of id.timestamp.body>` signatures (several for key rotation).", { minLength: 1 }, "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4="),
  ];
  op.requestBody = {
    required: true,
    description: "Any JSON, as the sender signed it: the signature covers these exact bytes (UTF-8), so send them unchanged.",
    content: { "application/json": { schema: {}, example: { type: "invoice.paid", data: { subscription_id: "SUB-1234" } } } },
  };
  return doc;
}

webhooks.openapi(
  createRoute({
    method: "post",
    path: "/v1/webhooks/{source}/events/claim",
    tags: ["Webhooks"],
    summary: "Claim unprocessed webhook events",
    description:
      "Up to `limit` events, oldest first, each held for `visibility_ms`; no two consumers get the same event while its claim is live, and an unacknowledged event becomes claimable again when its claim expires. With an ordering key, only the oldest unprocessed event of each ordering value is claimable: events sharing a value are never claimed concurrently and come in received order.",
    request: { params: SourceParam, body: { required: false, content: { "application/json": { schema: ClaimBody } } } },
    responses: {
      200: { description: "The claimed events (possibly none)", content: { "application/json": { schema: z.object({ events: z.array(ClaimedEvent) }) } } },
      ...problemResponses(400, 401, 404, 413, 415, 422, 503, 504),
    },
  }),
  async (c) => {
    const { source } = c.req.valid("param");
    const body = ClaimBody.parse(c.req.valid("json") ?? {});
    const [{ r }] = await c.var.db.query<{ r: { events: z.infer<typeof ClaimedEvent>[] } | null }>(
      "SELECT admit_webhook_claim($1, $2::integer, $3::integer) AS r",
      [source, body.limit, body.visibility_ms],
      { write: true },
    );
    if (!r) throw unknownSource(source);
    return c.json(r, 200);
  },
);

webhooks.openapi(
  createRoute({
    method: "post",
    path: "/v1/webhooks/{source}/events/{id}/ack",
    tags: ["Webhooks"],
    summary: "Acknowledge a claimed webhook event",
    description:
      "Only the live claim's `receipt` acknowledges the event: the receipt of a claim that lapsed (the event was claimed again, or could be) gets 409 `/problems/claim-not-current` and changes nothing, so a late consumer never closes another consumer's claim. Acknowledging again with the receipt that processed it is a no-op that returns the event. An acknowledged event is never claimed again.",
    request: { params: EventParams, body: { required: true, content: { "application/json": { schema: AckBody } } } },
    responses: {
      200: { description: "The event, processed", content: { "application/json": { schema: WebhookEvent } } },
      ...problemResponses(400, 401, 404, 409, 413, 415, 422, 503, 504),
    },
  }),
  async (c) => {
    const { source, id } = c.req.valid("param");
    const { receipt } = c.req.valid("json");
    const eventNotFound = notFound(`No event ${JSON.stringify(id)} of source ${JSON.stringify(source)}.`);
    if (!UUID.test(id)) throw eventNotFound;
    type NotCurrent = { status: "not_current"; state: string; claim_expires_at: string | null };
    const [{ r }] = await c.var.db.query<{ r: z.infer<typeof WebhookEvent> | NotCurrent | null }>(
      "SELECT admit_webhook_ack($1, $2::uuid, $3::uuid) AS r",
      [source, id, receipt],
      { write: true },
    );
    if (!r) throw eventNotFound;
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
  },
);

webhooks.openapi(
  createRoute({
    method: "get",
    path: "/v1/webhooks/{source}/events",
    tags: ["Webhooks"],
    summary: "List a source's webhook events",
    description:
      "Optionally of one status; up to `limit` (default 100, max 1000) per page, then follow `next_cursor`.\n\nNot ambiguous with `GET /v1/webhooks/sources/{source}` although a linter says so: no source may be named `sources` (422 on registering it), so `/v1/webhooks/sources/events` is always the settings of source `events`.",
    request: { params: SourceParam, query: ListQuery },
    responses: {
      200: { description: "A page of events", content: { "application/json": { schema: z.object({ items: z.array(WebhookEvent), next_cursor: z.string().nullable() }) } } },
      ...problemResponses(401, 404, 422, 503),
    },
  }),
  async (c) => {
    const { source } = c.req.valid("param");
    const q = c.req.valid("query");
    const [{ r }] = await c.var.db.query<{ r: { items: z.infer<typeof WebhookEvent>[]; seqs: number[] } | null }>(
      "SELECT admit_webhook_list($1, $2, $3::bigint, $4::integer) AS r",
      [source, q.status ?? null, q.cursor ?? null, q.limit],
    );
    if (!r) throw unknownSource(source);
    const more = r.items.length > q.limit;
    return c.json({ items: r.items.slice(0, q.limit), next_cursor: more ? String(r.seqs[q.limit - 1]) : null }, 200);
  },
);
