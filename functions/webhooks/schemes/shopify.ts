// Shopify: `X-Shopify-Hmac-Sha256: <base64 HMAC-SHA256 of the body>` keyed with the app's client
// secret (or the store's webhook signing key; UTF-8), as @shopify/shopify-api validates it. No
// timestamp is signed (X-Shopify-Triggered-At is not covered by the HMAC). Deduplicated on
// X-Shopify-Webhook-Id, which Shopify's retries keep; the event type is X-Shopify-Topic. Shopify's
// newer event deliveries name the same headers without the X- (shopify-hmac-sha256, …): both are read.
import { fromBase64, required, type Scheme, unverified, utf8 } from "./scheme";

const HMAC = ["X-Shopify-Hmac-Sha256", "shopify-hmac-sha256"];
const ID = ["X-Shopify-Webhook-Id", "shopify-webhook-id"];
const TOPIC = ["X-Shopify-Topic", "shopify-topic"];
const first = (req: { header(n: string): string | undefined }, names: string[]) => names.map((n) => req.header(n)).find((v) => v);

export const shopify: Scheme = {
  key: utf8,
  signed(req) {
    const h = required(req, ...HMAC);
    required(req, ...ID);
    const sig = fromBase64(h.value);
    if (!sig) throw unverified("malformed-header", `${HMAC[0]} must be base64.`, HMAC[0]);
    return { prefix: "", suffix: "", signatures: [sig], hash: "SHA-256", header: HMAC[0], timestamp: null };
  },
  identify: (_payload, req) => ({ kind: "event", id: first(req, ID), idFrom: ID[0], type: first(req, TOPIC) }),
};
