// The table from scheme to verifier (as upstash/ratelimit maps an algorithm to its script), and the
// one verification every scheme goes through: HMAC over the raw body bytes with WebCrypto, whose
// verify() compares in constant time (in workerd and in Node), against every secret the source holds.
import { generic } from "./generic";
import { github } from "./github";
import { type Bytes, type DeliverySource, Rejection, type Request, type Scheme, type SchemeName, type Signed, unverified } from "./scheme";
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

/** The bytes a signature covers: prefix + body + suffix. */
export function signedBytes(signed: Pick<Signed, "prefix" | "suffix">, body: Bytes): Bytes {
  const enc = new TextEncoder();
  const prefix = enc.encode(signed.prefix);
  const suffix = enc.encode(signed.suffix);
  const data = new Uint8Array(prefix.length + body.length + suffix.length);
  data.set(prefix, 0);
  data.set(body, prefix.length);
  data.set(suffix, prefix.length + body.length);
  return data;
}

/** Whether one of the request's signatures is the HMAC of the signed bytes under one of the source's secrets. */
export async function verifies(scheme: Scheme, source: DeliverySource, signed: Signed, body: Bytes): Promise<boolean> {
  const data = signedBytes(signed, body);
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

/**
 * A signature that matches nothing, checked where a delivery has no usable one (its source unknown,
 * a header missing or malformed), so that such a refusal costs an HMAC over the body as a wrong
 * signature does: how long a refusal takes says little about which it was.
 */
const DECOY: Signed = { prefix: "", suffix: "", signatures: [new Uint8Array(32)], hash: "SHA-256", header: "", timestamp: null };
const DECOY_SOURCE: DeliverySource = {
  scheme: "hmac",
  secrets: ["admit-webhook-decoy-key"],
  tolerance_s: null,
  ordering_key: null,
  hmac: null,
  replay_window_s: null,
  now_ms: 0,
};

export type Verification = { ok: true; source: DeliverySource; scheme: Scheme; signed: Signed } | { ok: false; rejection: Rejection };

/**
 * Authenticates a delivery to `source` (null: no such source): its scheme's headers, a signature over
 * the raw body under one of its secrets, a signed timestamp within ±tolerance_s of the database
 * clock. A refusal says why, for the source's owner; the sender is told none of it.
 */
export async function verifyDelivery(source: DeliverySource | null, req: Request, body: Bytes): Promise<Verification> {
  if (!source) {
    await verifies(generic, DECOY_SOURCE, DECOY, body);
    return { ok: false, rejection: unverified("unknown-source", "No webhook source has this name.") };
  }
  const scheme = SCHEMES[source.scheme];
  let signed: Signed;
  try {
    signed = scheme.signed(req, source);
  } catch (e) {
    if (!(e instanceof Rejection)) throw e;
    await verifies(scheme, source, DECOY, body);
    return { ok: false, rejection: e };
  }
  if (!(await verifies(scheme, source, signed, body))) {
    return {
      ok: false,
      rejection: unverified("signature-mismatch", `No signature in ${signed.header} matches the body signed with this source's secret.`, signed.header),
    };
  }
  if (signed.timestamp && source.tolerance_s !== null) {
    const skewMs = signed.timestamp.seconds * 1000 - source.now_ms;
    if (Math.abs(skewMs) > source.tolerance_s * 1000) {
      const skewS = Math.round(skewMs / 1000);
      const when = skewS < 0 ? `${-skewS} s old` : `${skewS} s in the future`;
      return {
        ok: false,
        rejection: unverified(
          "timestamp-outside-tolerance",
          `The timestamp in ${signed.timestamp.header} is ${when}; this source accepts ±${source.tolerance_s} s.`,
          signed.timestamp.header,
        ),
      };
    }
  }
  return { ok: true, source, scheme, signed };
}

export * from "./scheme";
