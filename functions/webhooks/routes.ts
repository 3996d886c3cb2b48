// The webhooks capability's request/response schemas and route definitions, one per operation.

import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { Webhook } from "standardwebhooks";
import { problemResponses } from "../core/openapi";
import { fromParam, SIGNED, scoped } from "../core/scopes";
import { PageQuery } from "../core/validation";

export const SOURCE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
export const MAX_WEBHOOK_ID = 255;

/** The delivery route in the OpenAPI document. */
export const WEBHOOK_DELIVERY_PATH = "/v1/webhooks/{source}";

/** Exactly the delivery route: POST /v1/webhooks/:source (one path segment). It carries no bearer token. */
export function isWebhookDelivery(c: Context): boolean {
  return c.req.method === "POST" && /^\/v1\/webhooks\/[^/]+$/.test(c.req.path);
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

const SourceName = z
  .string()
  .regex(SOURCE_PATTERN, "must be 1–100 characters of A–Z, a–z, 0–9, '.', '_', '-', starting with a letter or digit")
  .refine((s) => s !== "sources", '"sources" is reserved');

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
    tolerance_s: z
      .number()
      .int()
      .min(1)
      .max(86_400)
      .default(300)
      .openapi({ description: "Accepted clock skew of `webhook-timestamp`, ±seconds (default 300)" }),
    ordering_key: z
      .string()
      .max(200)
      .regex(/^(\/([^~/]|~[01])*)+$/, "must be a JSON pointer (RFC 6901) such as /data/subscription_id")
      .nullable()
      .optional()
      .openapi({
        example: "/data/subscription_id",
        description: "Events with the same value at this JSON pointer are never claimed concurrently, and are handed out in received order",
      }),
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

export const ClaimBody = z
  .object({
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
  .object({
    receipt: z.uuid().openapi({ description: "The `receipt` the claim returned with this event" }),
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
    .regex(/^\d{1,18}$/, "not a next_cursor of this endpoint")
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
      "Stores the sender's signing secret (write-only: no endpoint returns it), its timestamp tolerance and optional ordering key. Replacing a source keeps its events.",
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
      "Authenticated by `webhook-id`, `webhook-timestamp` and `webhook-signature` (`v1,<base64 HMAC-SHA256 of id.timestamp.body>`, several space-separated for key rotation), verified with the `standardwebhooks` package over the raw body bytes. The body is any JSON.",
      "`webhook-timestamp` must be within ±`tolerance_s` of the database clock. A bad or missing signature, an unknown source or a stale/future timestamp → 401 and nothing is stored.",
      'The event is stored once per (source, webhook-id): the first delivery → 200 `{id, status: "received"}`; a redelivery → the same answer with `Idempotent-Replayed: true`.',
    ].join("\n\n"),
    security: [],
    request: { params: z.object({ source: z.string().openapi({ param: { name: "source", in: "path" }, example: "billing" }) }) },
    responses: {
      200: { description: "Stored (or already stored: `Idempotent-Replayed: true`)", content: { "application/json": { schema: Received } } },
      401: {
        description: "Not verified: missing/bad signature, unknown source, or timestamp outside the tolerance. Nothing stored",
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
    request: { params: SourceParam, body: { required: false, content: { "application/json": { schema: ClaimBody } } } },
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
