// The delivery operation's signature headers and raw body in the OpenAPI document.
import { HEADER_VALUE_PATTERN } from "../core/http";
import { MAX_WEBHOOK_ID, WEBHOOK_DELIVERY_PATH } from "./routes";

/**
 * The delivery's signature headers and raw body in the document. The route reads them itself (not
 * through a validator: a missing or bad header is a 401 like a bad signature, and the signature
 * covers the exact bytes), so they are added to its operation here.
 */
export function documentDelivery<D extends { paths?: object }>(doc: D): D {
  const op = (doc.paths as Record<string, Record<string, any>> | undefined)?.[WEBHOOK_DELIVERY_PATH]?.post;
  if (!op) return doc;
  const header = (name: string, description: string, schema: object, example: string) => ({
    name,
    in: "header",
    required: true,
    description,
    schema: { type: "string", ...schema },
    example,
  });
  op.parameters = [
    ...(op.parameters ?? []),
    header(
      "webhook-id",
      `The message id; one event is stored per (source, webhook-id). 1–${MAX_WEBHOOK_ID} characters.`,
      { minLength: 1, maxLength: MAX_WEBHOOK_ID, pattern: HEADER_VALUE_PATTERN },
      "msg_2KWPBgLlAfxdpx2AI54pPJ85f4W",
    ),
    header(
      "webhook-timestamp",
      "Integer seconds since the Unix epoch; must be within ±`tolerance_s` of the database clock.",
      { pattern: "^\\d{1,12}$" },
      "1735689600",
    ),
    header(
      "webhook-signature",
      "Space-separated `v1,<base64 HMAC-SHA256 of id.timestamp.body>` signatures (several for key rotation).",
      { minLength: 1, pattern: HEADER_VALUE_PATTERN },
      "v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=",
    ),
  ];
  op.requestBody = {
    required: true,
    description: "Any JSON, as the sender signed it: the signature covers these exact bytes (UTF-8), so send them unchanged.",
    content: { "application/json": { schema: {}, example: { type: "invoice.paid", data: { subscription_id: "SUB-1234" } } } },
  };
  return doc;
}
