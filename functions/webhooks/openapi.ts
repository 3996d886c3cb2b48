// The delivery operation's signature headers and raw body in the OpenAPI document.
import { HEADER_VALUE_PATTERN } from "../core/http";
import { MAX_WEBHOOK_ID, WEBHOOK_DELIVERY_PATH } from "./schemas";

/**
 * The delivery's signature headers and raw body in the document. The route reads them itself (not
 * through a validator: which headers a delivery needs depends on its source's scheme, a missing or
 * bad one is a 401 like a bad signature, and the signature covers the exact bytes), so they are
 * added to its operation here, each naming the scheme that sends it; none is required of every delivery.
 */
export function documentDelivery<D extends { paths?: object }>(doc: D): D {
  const op = (doc.paths as Record<string, Record<string, any>> | undefined)?.[WEBHOOK_DELIVERY_PATH]?.post;
  if (!op) return doc;
  const header = (name: string, description: string, schema: object, example: string) => ({
    name,
    in: "header",
    required: false,
    description,
    schema: { type: "string", ...schema },
    example,
  });
  // What each sender sends, and a client can send unchanged (core/http.ts HEADER_VALUE_PATTERN).
  const TEXT = { minLength: 1, pattern: HEADER_VALUE_PATTERN };
  op.parameters = [
    ...(op.parameters ?? []),
    header(
      "webhook-id",
      `standard-webhooks: the message id; one event is stored per (source, webhook-id). 1–${MAX_WEBHOOK_ID} characters.`,
      { minLength: 1, maxLength: MAX_WEBHOOK_ID, pattern: HEADER_VALUE_PATTERN },
      "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W",
    ),
    header(
      "webhook-timestamp",
      "standard-webhooks: integer seconds since the Unix epoch; must be within ±`tolerance_s` of the database clock.",
      { pattern: "^\\d{1,12}$" },
      "1735689600",
    ),
    header(
      "webhook-signature",
      "standard-webhooks: space-separated `v1,<base64 HMAC-SHA256 of id.timestamp.body>` signatures (several for key rotation).",
      TEXT,
      "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=",
    ),
    header(
      "Stripe-Signature",
      "stripe: `t=<unix s>,v1=<hex HMAC-SHA256 of t.body>` (one v1 per live secret during a roll). Deduplicated on the body's `id`.",
      TEXT,
      "t=1735689600,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd",
    ),
    header(
      "X-Hub-Signature-256",
      "github: `sha256=<hex HMAC-SHA256 of the body>`.",
      TEXT,
      "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17",
    ),
    header(
      "X-GitHub-Delivery",
      "github: the delivery's GUID (a redelivery keeps it); deliveries are deduplicated on it.",
      TEXT,
      "72d3162e-cc78-11e3-81ab-4c9367dc0958",
    ),
    header("X-GitHub-Event", "github: the event type (`ping` is acknowledged and not stored).", TEXT, "issues"),
    header("X-Shopify-Hmac-Sha256", "shopify: base64 HMAC-SHA256 of the body.", TEXT, "XWmrwMey6OsLMeiZKwP4FppHH3cmAiiJJAweH5Jo4bM="),
    header(
      "X-Shopify-Webhook-Id",
      "shopify: the webhook's id (retries keep it); deliveries without X-Shopify-Event-Id are deduplicated on it.",
      TEXT,
      "b54557e4-bdd9-4b37-8a5f-bf7d70bcd043",
    ),
    header(
      "X-Shopify-Event-Id",
      "shopify: the event's id (every webhook of one event carries it); deliveries are deduplicated on it.",
      TEXT,
      "98880550-7158-44d4-b7cd-2c97c8a091b5",
    ),
    header("X-Shopify-Topic", "shopify: the topic, stored as the event type.", TEXT, "orders/create"),
    header(
      "X-Slack-Signature",
      "slack: `v0=<hex HMAC-SHA256 of v0:timestamp:body>`. Deduplicated on the body's `event_id`.",
      TEXT,
      "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503",
    ),
    header(
      "X-Slack-Request-Timestamp",
      "slack: integer seconds since the Unix epoch; within ±`tolerance_s` (default 300).",
      { pattern: "^\\d{1,12}$" },
      "1735689600",
    ),
  ];
  op.requestBody = {
    required: true,
    description: "Any JSON, as the sender signed it: the signature covers these exact bytes (UTF-8), so send them unchanged.",
    content: { "application/json": { schema: {}, example: { type: "invoice.paid", data: { subscription_id: "SUB-1234" } } } },
  };
  return doc;
}
