// The examples of the webhook operations in /openapi.json, by operationId
// (functions/http/examples.ts applies them to the document; test/docs/openapi.examples.test.ts checks
// each against its schema).
import { ID, type Json, LATER, NOW, type OperationExamples } from "../core/examples";

const RECEIPT = "c5d8e2f1-9a3b-4c7d-8e6f-0a1b2c3d4e5f";

const source = {
  source: "billing",
  scheme: "standard-webhooks",
  tolerance_s: 300,
  ordering_key: "/data/subscription_id",
  hmac: null,
  replay_window_s: null,
  previous_secret_expires_at: null,
  recent_rejections: [
    {
      at: NOW,
      reason: "timestamp-outside-tolerance",
      header: "webhook-timestamp",
      detail: "The timestamp in webhook-timestamp is 612 s old; this source accepts ±300 s.",
    },
  ],
  forward: {
    url: "https://api.example.com/hooks/billing",
    timeout_ms: 10000,
    retry_schedule_ms: [5000, 300000, 1800000, 7200000, 18000000, 36000000, 36000000],
    ordered: true,
    previous_secret_expires_at: null,
    stopped_at: null,
    stopped_reason: null,
  },
  created_at: NOW,
  updated_at: NOW,
};
const event = {
  id: ID,
  webhook_id: "msg_2Lh8fLZ0kC4nE6qY",
  event_type: "invoice.paid",
  payload: { type: "invoice.paid", data: { subscription_id: "SUB-1234" } },
  status: "processed",
  ordering_value: "SUB-1234",
  webhook_timestamp: "2030-04-30T11:59:58.000Z",
  received_at: "2030-04-30T11:59:58.120Z",
  claim_expires_at: null,
  claims: 0,
  processed_at: NOW,
  delivery: { state: "delivered", attempts: 2, in_flight: false, next_attempt_at: null, delivered_at: NOW, failed_at: null },
};
const failedEvent = {
  ...event,
  status: "received",
  processed_at: null,
  delivery: { state: "pending", attempts: 8, in_flight: false, next_attempt_at: NOW, delivered_at: null, failed_at: null },
};
const attempt = (n: number, status: number | null, outcome: string) => ({
  n,
  trigger: n === 1 ? "received" : "schedule",
  target: "https://api.example.com/hooks/billing",
  started_at: NOW,
  finished_at: NOW,
  status,
  outcome,
  latency_ms: 182,
  response: status === null ? null : status === 200 ? '{"ok":true}' : "upstream unavailable",
  error: status === null ? "No answer within timeout_ms (10000 ms)." : null,
  retry_after_ms: status === 503 ? 30000 : null,
});

export const WEBHOOK_EXAMPLES: Record<string, OperationExamples> = {
  putWebhookSource: {
    request: {
      scheme: "standard-webhooks",
      secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
      tolerance_s: 300,
      ordering_key: "/data/subscription_id",
      forward: { url: "https://api.example.com/hooks/billing", secret: "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD", ordered: true },
    },
    responses: { 200: source, 201: source },
  },
  listWebhookSources: { params: { limit: 100 }, responses: { 200: { items: [source], next_cursor: null } } },
  getWebhookSource: { responses: { 200: source }, problems: { 404: noSource() } },
  receiveWebhook: {
    request: { type: "invoice.paid", data: { subscription_id: "SUB-1234" } },
    responses: { 200: { id: ID, status: "received" } },
    problems: {
      401: {
        type: "/problems/webhook-signature",
        title: "Webhook not verified",
        detail:
          "The delivery was not verified, and nothing was stored. Why is shown to the source's owner (GET /v1/webhooks/sources/{source}: recent_rejections), not to the sender.",
      },
    },
  },
  claimWebhookEvents: {
    request: { limit: 10, visibility_ms: 30000 },
    responses: {
      200: {
        events: [
          {
            id: ID,
            webhook_id: event.webhook_id,
            event_type: event.event_type,
            payload: event.payload,
            ordering_value: "SUB-1234",
            received_at: event.received_at,
            claim_expires_at: LATER,
            receipt: RECEIPT,
          },
        ],
      },
    },
    problems: { 404: noSource() },
  },
  ackWebhookEvent: {
    params: { id: ID },
    request: { receipt: RECEIPT },
    responses: { 200: event },
    problems: {
      404: { detail: `No event "${ID}" of source "billing".` },
      409: {
        type: "/problems/claim-not-current",
        title: "Claim not current",
        detail: `Event ${ID} was not acknowledged: this claim lapsed before the ack. Nothing was changed; claim again to process it.`,
        state: "expired",
        claim_expires_at: LATER,
      },
    },
  },
  listWebhookEvents: { responses: { 200: { items: [event], next_cursor: null } }, problems: { 404: noSource() } },
  listWebhookAttempts: {
    params: { id: ID },
    responses: { 200: { items: [attempt(1, 503, "failed"), attempt(2, 200, "delivered")], next_cursor: null } },
    problems: { 404: { detail: `No event "${ID}" of source "billing".` } },
  },
  redeliverWebhookEvent: {
    params: { id: ID },
    responses: { 202: { ...failedEvent, delivery: { ...failedEvent.delivery, attempts: 8 } } },
    problems: {
      404: { detail: `No event "${ID}" of source "billing".` },
      409: {
        type: "/problems/conflict",
        title: "Conflict",
        detail: `An attempt of event ${ID} is in flight (until ${LATER}); its outcome is recorded first.`,
        reason: "in-flight",
      },
    },
  },
  redeliverFailedWebhookEvents: {
    request: { since: "2030-04-29T00:00:00Z", until: "2030-04-30T00:00:00Z", limit: 1000 },
    responses: { 202: { redelivered: 42, more: false } },
    problems: { 404: noSource() },
  },
};

function noSource(): Json {
  return { detail: 'No webhook source "billing". Register it with PUT /v1/webhooks/sources/billing.' };
}
