// Shopify: `X-Shopify-Hmac-Sha256: <base64 HMAC-SHA256 of the body>` keyed with the app's client
// secret (or the store's webhook signing key; UTF-8), as @shopify/shopify-api validates it. No
// timestamp is signed (X-Shopify-Triggered-At is not covered by the HMAC), nor any id. Deduplicated on
// X-Shopify-Event-Id, which Shopify's guidance (shopify.dev, "Ignore duplicate webhooks") names for one
// event delivered more than once: a retry, and the rare second webhook of one event with a new
// X-Shopify-Webhook-Id. A delivery without it falls back to X-Shopify-Webhook-Id (what a retry keeps).
// Its X-Shopify-Webhook-Id is also an earlier id: an event stored under it (as deliveries were keyed
// before) is this delivery again. The event type is X-Shopify-Topic. Shopify's newer event deliveries
// name the same headers without the X- (shopify-hmac-sha256, …): both are read.
import { fromBase64, type Request, required, type Scheme, unverified, utf8 } from "./scheme";

const HMAC = ["X-Shopify-Hmac-Sha256", "shopify-hmac-sha256"];
const EVENT_ID = ["X-Shopify-Event-Id", "shopify-event-id"];
const WEBHOOK_ID = ["X-Shopify-Webhook-Id", "shopify-webhook-id"];
const TOPIC = ["X-Shopify-Topic", "shopify-topic"];
const first = (req: Request, names: string[]) => names.map((n) => req.header(n)).find((v) => v);

export const shopify: Scheme = {
  key: utf8,
  signed(req) {
    const h = required(req, ...HMAC);
    required(req, ...WEBHOOK_ID);
    const sig = fromBase64(h.value);
    if (!sig) throw unverified("malformed-header", `${HMAC[0]} must be base64.`, HMAC[0]);
    return { prefix: "", suffix: "", signatures: [sig], hash: "SHA-256", header: HMAC[0], timestamp: null };
  },
  identify(_payload, req) {
    const event = first(req, EVENT_ID);
    const webhook = first(req, WEBHOOK_ID);
    const type = first(req, TOPIC);
    if (!event) return { kind: "event", id: webhook, idFrom: WEBHOOK_ID[0], type };
    return { kind: "event", id: event, idFrom: EVENT_ID[0], type, earlier: webhook ? [webhook] : [] };
  },
};
