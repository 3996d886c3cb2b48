// Stripe: `Stripe-Signature: t=<unix s>,v1=<hex>[,v1=<hex>…]`, the hex HMAC-SHA256 of "t.body" keyed
// with the endpoint's signing secret as it is (the UTF-8 of `whsec_…`, not base64-decoded: stripe-node's
// computeHMACSignature). During a secret roll Stripe sends one v1 per live secret. Deduplicated on the
// event's `id` (evt_…) in the body, which Stripe's retries keep; the event type is the body's `type`.
import { type Bytes, field, fromHex, required, type Scheme, seconds, unverified, utf8 } from "./scheme";

export const stripe: Scheme = {
  key: utf8,
  signed(req) {
    const h = required(req, "Stripe-Signature");
    let t: string | undefined;
    const v1: Bytes[] = [];
    for (const item of h.value.split(",")) {
      const at = item.indexOf("=");
      const [k, v] = at < 0 ? [item, ""] : [item.slice(0, at).trim(), item.slice(at + 1).trim()];
      if (k === "t") t = v;
      else if (k === "v1") {
        const bytes = fromHex(v);
        if (bytes) v1.push(bytes);
      }
    }
    if (t === undefined) throw unverified("malformed-header", "Stripe-Signature has no t=<timestamp>.", h.name);
    if (v1.length === 0) throw unverified("malformed-header", "Stripe-Signature has no v1=<hex> signature.", h.name);
    return {
      prefix: `${t}.`,
      suffix: "",
      signatures: v1,
      hash: "SHA-256",
      header: h.name,
      timestamp: { seconds: seconds(t, "Stripe-Signature t="), header: h.name },
    };
  },
  identify: (payload) => ({ kind: "event", id: field(payload, "id"), idFrom: 'the body\'s "id" (evt_…)', type: field(payload, "type") }),
};
