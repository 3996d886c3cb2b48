// Forwarding's routes: an event's attempts, and redelivery of one event or of the failed ones of a
// time range. Where events go is a source setting (`forward` of PUT /v1/webhooks/sources/{source}).
import { createRoute, z } from "@hono/zod-openapi";
import { problemResponses } from "../core/openapi";
import { fromParam, scoped } from "../core/scopes";
import { Attempt, AttemptsQuery, RedeliverFailedBody } from "./forward-schemas";
import { EventParams, SourceParam, WebhookEvent } from "./schemas";

export const listWebhookAttempts = scoped(
  { area: "webhooks", access: "read", names: fromParam("source") },
  createRoute({
    method: "get",
    path: "/v1/webhooks/{source}/events/{id}/attempts",
    operationId: "listWebhookAttempts",
    tags: ["Webhooks"],
    summary: "List an event's forwarding attempts",
    description:
      "Oldest first: when each started and finished, what started it, the target's status, the latency, the outcome and the first 1024 characters of the answer. An attempt in flight has no outcome yet. Up to `limit` per page, then follow `next_cursor`.",
    request: { params: EventParams, query: AttemptsQuery },
    responses: {
      200: {
        description: "A page of attempts",
        content: {
          "application/json": { schema: z.object({ items: z.array(Attempt), next_cursor: z.string().nullable() }).openapi("WebhookAttemptList") },
        },
      },
      ...problemResponses(401, 404, 422, 503),
    },
  }),
);

export const redeliverWebhookEvent = scoped(
  { area: "webhooks", access: "admin", names: fromParam("source") },
  createRoute({
    method: "post",
    path: "/v1/webhooks/{source}/events/{id}/redeliver",
    operationId: "redeliverWebhookEvent",
    tags: ["Webhooks"],
    summary: "Forward an event again",
    description:
      "Makes the event due now, from the start of the retry schedule, whatever its state (failed, delivered, or received before the source forwarded), and starts the attempt after the answer. Audited. 409 while an attempt of it is in flight or a pull consumer holds it, or when the source does not forward.",
    request: { params: EventParams },
    responses: {
      202: { description: "Pending again; the attempt starts after this answer", content: { "application/json": { schema: WebhookEvent } } },
      ...problemResponses(401, 404, 409, 422, 503, 504),
    },
  }),
);

export const redeliverFailedWebhookEvents = scoped(
  { area: "webhooks", access: "admin", names: fromParam("source") },
  createRoute({
    method: "post",
    path: "/v1/webhooks/{source}/events/redeliver",
    operationId: "redeliverFailedWebhookEvents",
    tags: ["Webhooks"],
    summary: "Forward again the failed events of a time range",
    description:
      "The source's `failed` events received in [`since`, `until`), at most `limit` (1000) a call: each pending again from the start of the retry schedule; the attempts start after the answer and the cron goes on with the rest. `more: true`: call again for the next ones. Audited.",
    request: { params: SourceParam, body: { required: true, content: { "application/json": { schema: RedeliverFailedBody } } } },
    responses: {
      202: {
        description: "How many are pending again",
        content: { "application/json": { schema: z.object({ redelivered: z.number().int(), more: z.boolean() }).openapi("WebhookRedelivered") } },
      },
      ...problemResponses(400, 401, 404, 409, 413, 415, 422, 503, 504),
    },
  }),
);
