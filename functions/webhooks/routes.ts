// The webhooks capability's request/response schemas and route definitions, one per operation.
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { optionalJson, problemResponses } from "../core/openapi";
import { fromParam, SIGNED, scoped } from "../core/scopes";
import { CURSOR_INVALID, PageQuery, Uuid } from "../core/validation";
import { MAX_WEBHOOK_ID } from "./schemes";
import { PutSourceBody, WebhookSource } from "./sources";

export { MAX_PREVIOUS_SECRET_TTL_MS, MAX_REPLAY_WINDOW_S, timestamped } from "./sources";
export { MAX_WEBHOOK_ID };
export const SOURCE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** The delivery route in the OpenAPI document. */
export const WEBHOOK_DELIVERY_PATH = "/v1/webhooks/{source}";

/**
 * The delivery route's {source}: one path segment, never `sources` (no source may have that name), so
 * `/v1/webhooks/sources` is the source list's alone and its other methods are a 405 with its Allow.
 */
const DELIVERY_SEGMENT = "(?!sources$)[^/]+";

/** The delivery route as the router matches it (index.ts mounts the handler on it). */
export const WEBHOOK_DELIVERY_ROUTE = `/v1/webhooks/:source{${DELIVERY_SEGMENT}}`;

const DELIVERY = new RegExp(`^/v1/webhooks/${DELIVERY_SEGMENT}$`);

/** Exactly the delivery route: POST /v1/webhooks/:source (one path segment, not `sources`). It carries no bearer token. */
export function isWebhookDelivery(c: Context): boolean {
  return c.req.method === "POST" && DELIVERY.test(c.req.path);
}

const SourceName = z
  .string()
  .regex(SOURCE_PATTERN, "must be 1–100 characters of A–Z, a–z, 0–9, '.', '_', '-', starting with a letter or digit")
  .refine((s) => s !== "sources", '"sources" is reserved');

const SourceParam = z.object({ source: SourceName.openapi({ param: { name: "source", in: "path" }, example: "billing" }) });

const Received = z.object({ id: z.uuid(), status: z.literal("received") }).openapi("WebhookReceived");

/** A sender's handshake, answered and not stored: Slack's url_verification (its challenge), GitHub's ping. */
const Handshake = z
  .union([
    z.object({ challenge: z.string() }).openapi({ description: "Slack url_verification: the challenge echoed" }),
    z.object({ status: z.literal("acknowledged"), event_type: z.literal("ping"), stored: z.literal(false) }).openapi({ description: "GitHub ping" }),
  ])
  .openapi("WebhookHandshake");

const ClaimedEvent = z
  .object({
    id: z.uuid(),
    webhook_id: z.string(),
    event_type: z.string().nullable(),
    payload: z.unknown(),
    ordering_value: z.string().nullable(),
    received_at: z.string().openapi({ format: "date-time" }),
    claim_expires_at: z.string().openapi({ format: "date-time" }),
    receipt: z.uuid().openapi({
      description:
        "This claim's receipt: the ack must carry it. A later claim of the event (after this one lapsed) gets another, and this one no longer acknowledges it.",
    }),
  })
  .openapi("ClaimedWebhookEvent");

const EventStatus = z.enum(["received", "claimed", "processed"]);

const WebhookEvent = z
  .object({
    id: z.uuid(),
    webhook_id: z.string().openapi({ description: "The sender's own id, which deliveries are deduplicated on" }),
    event_type: z.string().nullable().openapi({ description: "The sender's event type (Stripe type, X-GitHub-Event, X-Shopify-Topic, Slack event.type, …)" }),
    payload: z.unknown(),
    status: EventStatus,
    ordering_value: z.string().nullable(),
    webhook_timestamp: z.string().nullable().openapi({ format: "date-time", description: "The signed timestamp; null for schemes that sign none" }),
    received_at: z.string().openapi({ format: "date-time" }),
    claim_expires_at: z.string().nullable().openapi({ format: "date-time" }),
    claims: z.number().int(),
    processed_at: z.string().nullable().openapi({ format: "date-time" }),
  })
  .openapi("WebhookEvent");

export const ClaimBody = z
  .strictObject({
    limit: z.number().int().min(1).max(100).default(10).openapi({ description: "At most this many events (1–100, default 10)" }),
    visibility_ms: z
      .number()
      .int()
      .min(100)
      .max(43_200_000)
      .default(30_000)
      .openapi({ description: "Claim lifetime: unacknowledged events become claimable again after it (100 ms–12 h, default 30 s)" }),
  })
  .openapi("WebhookClaim");

const AckBody = z
  .strictObject({
    receipt: Uuid.openapi({ description: "The `receipt` the claim returned with this event" }),
  })
  .openapi("WebhookAck");

const EventParams = SourceParam.extend({ id: z.string().openapi({ param: { name: "id", in: "path" } }) });

const ListQuery = z.object({
  status: EventStatus.optional().openapi({
    param: { name: "status", in: "query" },
    description: "received (waiting), claimed (live claim) or processed; omitted = all",
  }),
  limit: PageQuery.shape.limit,
  cursor: z
    .string()
    .regex(/^\d{1,18}$/, CURSOR_INVALID)
    .optional()
    .openapi({ param: { name: "cursor", in: "query" } }),
});

export const putWebhookSource = scoped(
  { area: "webhooks", access: "admin", names: fromParam("source") },
  createRoute({
    method: "put",
    path: "/v1/webhooks/sources/{source}",
    tags: ["Webhooks"],
    summary: "Register or replace a webhook sender",
    description:
      "Stores the sender's scheme, signing secret (write-only: no endpoint returns it), timestamp tolerance and optional ordering key. Replacing a source keeps its events. A rotation keeps the previous secret accepted for `previous_secret_ttl_ms`.",
    request: { params: SourceParam, body: { required: true, content: { "application/json": { schema: PutSourceBody } } } },
    responses: {
      200: { description: "Replaced", content: { "application/json": { schema: WebhookSource } } },
      201: { description: "Registered", content: { "application/json": { schema: WebhookSource } } },
      ...problemResponses(400, 401, 413, 415, 422, 503, 504),
    },
  }),
);

export const listWebhookSources = scoped(
  { area: "webhooks", access: "read", list: "source" },
  createRoute({
    method: "get",
    path: "/v1/webhooks/sources",
    tags: ["Webhooks"],
    summary: "List webhook senders (never their secrets)",
    description: "Ordered by name; up to `limit` per page, then follow `next_cursor`.",
    request: { query: PageQuery },
    responses: {
      200: {
        description: "Sources",
        content: {
          "application/json": { schema: z.object({ items: z.array(WebhookSource), next_cursor: z.string().nullable() }).openapi("WebhookSourceList") },
        },
      },
      ...problemResponses(401, 422, 503),
    },
  }),
);

export const getWebhookSource = scoped(
  { area: "webhooks", access: "read", names: fromParam("source") },
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
);

/**
 * The signature headers and the raw body are not declared here: the handler reads them itself, and
 * openapi.ts adds them to this operation in the document.
 */
export const receiveWebhook = scoped(
  SIGNED,
  createRoute({
    method: "post",
    path: WEBHOOK_DELIVERY_PATH,
    tags: ["Webhooks"],
    summary: "Receive a signed webhook delivery",
    description: [
      "Authenticated by the signature of the source's `scheme` (no bearer token): standard-webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`), stripe (`Stripe-Signature`), github (`X-Hub-Signature-256`, `X-GitHub-Delivery`, `X-GitHub-Event`), shopify (`X-Shopify-Hmac-Sha256`, `X-Shopify-Webhook-Id`, `X-Shopify-Event-Id`, `X-Shopify-Topic`), slack (`X-Slack-Signature`, `X-Slack-Request-Timestamp`) or hmac (the headers the source names). Verified over the raw body bytes against the source's secret, or its previous secret during a rotation. The body is any JSON, up to 1 MiB (413 beyond).",
      "A signed timestamp must be within ±`tolerance_s` of the database clock. A missing or malformed header, a signature that does not match, a timestamp outside the tolerance and an unknown source all get one and the same 401 `/problems/webhook-signature` (status, headers and body alike), and nothing is stored: a sender learns nothing of which sources exist or how they are set up. Which it was is shown to the source's owner, in `recent_rejections` of `GET /v1/webhooks/sources/{source}`, and in the decision log.",
      "The event is stored once per (source, the sender's own id): the first delivery → 200 `{id, status: \"received\"}`; a redelivery → the same answer with `Idempotent-Replayed: true`; with the source's `replay_window_s`, so is a delivery whose signed bytes equal an event's received within it. Slack's `url_verification` → 200 `{challenge}` and GitHub's `ping` → 200 `{status: \"acknowledged\", stored: false}`, neither stored.",
    ].join("\n\n"),
    security: [],
    // The source's rule is documented, not checked here: a delivery to a source that cannot exist is the 401 of any unknown source.
    request: {
      params: z.object({
        source: z.string().openapi({
          param: { name: "source", in: "path" },
          example: "billing",
          pattern: SOURCE_PATTERN.source,
          description: "The source's name; never `sources` (`/v1/webhooks/sources`, a concrete path, is the source list's)",
        }),
      }),
    },
    responses: {
      200: {
        description: "Stored (or already stored: `Idempotent-Replayed: true`), or a handshake answered",
        content: { "application/json": { schema: z.union([Received, Handshake]) } },
      },
      401: {
        description:
          "Not verified (a missing or malformed header, a signature that does not match, a timestamp outside the tolerance, or an unknown source: one answer for all). Nothing stored",
        content: { "application/problem+json": { schema: problemResponses(401)[401].content["application/problem+json"].schema } },
      },
      ...problemResponses(400, 413, 415, 503, 504),
    },
  }),
);

export const claimWebhookEvents = scoped(
  { area: "webhooks", access: "decide", names: fromParam("source") },
  createRoute({
    method: "post",
    path: "/v1/webhooks/{source}/events/claim",
    tags: ["Webhooks"],
    summary: "Claim unprocessed webhook events",
    description:
      "Up to `limit` events, oldest first (fewer when their payloads pass about 2 MiB together; one event always), each held for `visibility_ms`; no two consumers get the same event while its claim is live, and an unacknowledged event becomes claimable again when its claim expires. With an ordering key, only the oldest unprocessed event of each ordering value is claimable: events sharing a value are never claimed concurrently and come in received order.",
    request: { params: SourceParam, body: optionalJson(ClaimBody) },
    responses: {
      200: { description: "The claimed events (possibly none)", content: { "application/json": { schema: z.object({ events: z.array(ClaimedEvent) }) } } },
      ...problemResponses(400, 401, 404, 413, 415, 422, 503, 504),
    },
  }),
);

export const ackWebhookEvent = scoped(
  { area: "webhooks", access: "decide", names: fromParam("source") },
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
);

export const listWebhookEvents = scoped(
  { area: "webhooks", access: "read", names: fromParam("source") },
  createRoute({
    method: "get",
    path: "/v1/webhooks/{source}/events",
    tags: ["Webhooks"],
    summary: "List a source's webhook events",
    description:
      "Optionally of one status; up to `limit` (default 100, max 1000) per page, fewer when their payloads pass about 2 MiB together, then follow `next_cursor`.\n\nNot ambiguous with `GET /v1/webhooks/sources/{source}` although a linter says so: no source may be named `sources` (422 on registering it), so `/v1/webhooks/sources/events` is always the settings of source `events`.",
    request: { params: SourceParam, query: ListQuery },
    responses: {
      200: {
        description: "A page of events",
        content: { "application/json": { schema: z.object({ items: z.array(WebhookEvent), next_cursor: z.string().nullable() }) } },
      },
      ...problemResponses(401, 404, 422, 503),
    },
  }),
);
