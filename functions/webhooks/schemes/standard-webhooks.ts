// Standard Webhooks (standardwebhooks.com, the Svix family): webhook-id, webhook-timestamp and
// webhook-signature: space-separated `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, several during
// a key rotation. The secret is `whsec_` + base64 of the key bytes. Deduplicated on webhook-id; the
// event type is the payload's `type` (the spec's payload shape: type, timestamp, data).
import { field, fromBase64, MAX_WEBHOOK_ID, required, type Scheme, seconds, unverified } from "./scheme";

export const standardWebhooks: Scheme = {
  key: (secret) => fromBase64(secret.slice("whsec_".length)) ?? new Uint8Array(),
  signed(req) {
    const id = required(req, "webhook-id");
    const ts = required(req, "webhook-timestamp");
    const sig = required(req, "webhook-signature");
    if (id.value.length > MAX_WEBHOOK_ID) throw unverified("malformed-header", `webhook-id is longer than ${MAX_WEBHOOK_ID} characters.`, id.name);
    const signatures = sig.value
      .split(" ")
      .filter((s) => s.startsWith("v1,"))
      .map((s) => fromBase64(s.slice(3)))
      .filter((s) => s !== undefined);
    if (signatures.length === 0) throw unverified("malformed-header", "webhook-signature carries no v1,<base64> signature.", sig.name);
    return {
      prefix: `${id.value}.${ts.value}.`,
      suffix: "",
      signatures,
      hash: "SHA-256",
      header: sig.name,
      timestamp: { seconds: seconds(ts.value, ts.name), header: ts.name },
    };
  },
  identify: (payload, req) => ({ kind: "event", id: req.header("webhook-id"), idFrom: "webhook-id", type: field(payload, "type") }),
};
