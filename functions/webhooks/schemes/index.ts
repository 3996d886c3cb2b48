// The table from scheme to verifier (as upstash/ratelimit maps an algorithm to its script), and the
// one verification every scheme goes through: HMAC over the raw body bytes with WebCrypto, whose
// verify() compares in constant time (in workerd and in Node), against every secret the source holds.
import { generic } from "./generic";
import { github } from "./github";
import type { Bytes, DeliverySource, Scheme, SchemeName, Signed } from "./scheme";
import { shopify } from "./shopify";
import { slack } from "./slack";
import { standardWebhooks } from "./standard-webhooks";
import { stripe } from "./stripe";

export const SCHEMES: Record<SchemeName, Scheme> = {
  "standard-webhooks": standardWebhooks,
  stripe,
  github,
  shopify,
  slack,
  hmac: generic,
};

/** Whether one of the request's signatures is the HMAC of the signed bytes under one of the source's secrets. */
export async function verifies(scheme: Scheme, source: DeliverySource, signed: Signed, body: Bytes): Promise<boolean> {
  const enc = new TextEncoder();
  const prefix = enc.encode(signed.prefix);
  const suffix = enc.encode(signed.suffix);
  const data = new Uint8Array(prefix.length + body.length + suffix.length);
  data.set(prefix, 0);
  data.set(body, prefix.length);
  data.set(suffix, prefix.length + body.length);
  for (const secret of source.secrets) {
    const bytes = scheme.key(secret);
    if (bytes.length === 0) continue;
    const key = await crypto.subtle.importKey("raw", bytes, { name: "HMAC", hash: signed.hash }, false, ["verify"]);
    for (const signature of signed.signatures) {
      if (await crypto.subtle.verify("HMAC", key, signature, data)) return true;
    }
  }
  return false;
}

export * from "./scheme";
