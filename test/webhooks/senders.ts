// Deliveries as each sender makes them, signed by the sender's own npm library where it has one:
// - standard-webhooks: `standardwebhooks` (the spec's reference library) Webhook#sign;
// - stripe: `stripe`'s webhooks.generateTestHeaderString (one v1 per secret, as during a roll);
// - github: `@octokit/webhooks-methods` sign;
// - shopify: `@shopify/shopify-api`'s own test helper getHmac (test-helpers), the HMAC its validate() checks;
// - slack: Slack's packages verify but do not sign, so the documented algorithm (v0=hex HMAC-SHA256 of
//   "v0:ts:body") is written here; webhooks.senders.test.ts checks that @slack/bolt's verifySlackRequest
//   accepts what it makes, as it does for the others with their libraries' verifiers;
// - hmac (generic): no sender library by definition — node:crypto with the settings below.
// Bodies and headers are shaped as the senders send them (ids, types, the headers they add).
import { createHash, createHmac, randomBytes } from "node:crypto";
import { sign as githubSign } from "@octokit/webhooks-methods";
import { getHmac as shopifyHmac } from "@shopify/shopify-api/test-helpers";
import { Webhook } from "standardwebhooks";
import Stripe from "stripe";

export type SchemeName = "standard-webhooks" | "stripe" | "github" | "shopify" | "slack" | "hmac";
export const SCHEMES: SchemeName[] = ["standard-webhooks", "stripe", "github", "shopify", "slack", "hmac"];

/** The generic HMAC source these tests register: a sender that signs "id.timestamp.body" (its id and time signed, as Standard Webhooks does). */
export const HMAC_SETTINGS = {
  header: "X-Acme-Signature",
  algorithm: "sha256",
  encoding: "hex",
  prefix: "sha256=",
  signed: "{id}.{timestamp}.{body}",
  timestamp_header: "X-Acme-Timestamp",
  id: { header: "X-Acme-Delivery" },
  event_type: { pointer: "/event" },
} as const;

export interface Delivery {
  body: string;
  headers: Record<string, string>;
}

export interface Sender {
  scheme: SchemeName;
  /** Whether the scheme signs a timestamp (a stale one is refused). */
  timestamped: boolean;
  /** The header a delivery cannot go without (for the "missing header" refusal). */
  signatureHeader: string;
  /** A fresh secret in the form the sender hands out. */
  newSecret(): string;
  /** A secret derived from `seed`, the same every time (for suites that share no state). */
  secretFor(seed: string): string;
  /** What PUT /v1/webhooks/sources/{source} takes besides the secret. */
  settings: Record<string, unknown>;
  /** The JSON pointer at which `data.k` sits in this sender's body (for ordering keys). */
  dataPointer(field: string): string;
  /** Event `id` of type `type`, signed with each of `secrets` (several: the sender's own rotation, where it has one) at `timestampS`, by the sender's library. */
  deliver(secrets: string[], id: string, type: string, data: Record<string, unknown>, timestampS: number): Promise<Delivery>;
  /** The same delivery signed synchronously (the fuzz and fault suites build requests without awaiting): the same bytes as deliver(). */
  sign(secrets: string[], id: string, type: string, data: Record<string, unknown>, timestampS: number): Delivery;
}

const hex = (n: number) => randomBytes(n).toString("hex");
const seeded = (seed: string) => createHash("sha256").update(`admit-test/${seed}`).digest();

const standard: Sender = {
  scheme: "standard-webhooks",
  timestamped: true,
  signatureHeader: "webhook-signature",
  newSecret: () => `whsec_${randomBytes(32).toString("base64")}`,
  secretFor: (seed) => `whsec_${seeded(seed).toString("base64")}`,
  settings: {},
  dataPointer: (f) => `/data/${f}`,
  deliver: async (...a) => standard.sign(...a),
  sign(secrets, id, type, data, ts) {
    const body = JSON.stringify({ type, timestamp: new Date(ts * 1000).toISOString(), data });
    const at = new Date(ts * 1000);
    return {
      body,
      headers: {
        "webhook-id": id,
        "webhook-timestamp": String(ts),
        "webhook-signature": secrets.map((s) => new Webhook(s).sign(id, at, body)).join(" "),
      },
    };
  },
};

const stripe: Sender = {
  scheme: "stripe",
  timestamped: true,
  signatureHeader: "Stripe-Signature",
  newSecret: () => `whsec_${hex(16)}`,
  secretFor: (seed) => `whsec_${seeded(seed).toString("hex").slice(0, 32)}`,
  settings: { scheme: "stripe" },
  dataPointer: (f) => `/data/object/${f}`,
  deliver: async (...a) => stripe.sign(...a),
  sign(secrets, id, type, data, ts) {
    const body = JSON.stringify({ id, object: "event", api_version: "2025-01-27.acacia", created: ts, data: { object: data }, livemode: false, type }, null, 2);
    // During a roll Stripe signs with each live secret: one v1 each after the one t=.
    const headers = secrets.map((secret) => Stripe.webhooks.generateTestHeaderString({ payload: body, secret, timestamp: ts }));
    const v1s = headers.map((h) => h.split(",").slice(1).join(","));
    return { body, headers: { "Stripe-Signature": `t=${ts},${v1s.join(",")}`, "User-Agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)" } };
  },
};

const github: Sender = {
  scheme: "github",
  timestamped: false,
  signatureHeader: "X-Hub-Signature-256",
  newSecret: () => hex(20),
  secretFor: (seed) => seeded(seed).toString("hex").slice(0, 40),
  settings: { scheme: "github" },
  dataPointer: (f) => `/${f}`,
  async deliver(secrets, id, type, data, ts) {
    const d = github.sign(secrets, id, type, data, ts);
    // GitHub signs with its one secret; the library's signature replaces the synchronous one.
    return { body: d.body, headers: { ...d.headers, "X-Hub-Signature-256": await githubSign(secrets[0], d.body) } };
  },
  sign(secrets, id, type, data) {
    const body = JSON.stringify({ action: "opened", ...data, repository: { full_name: "acme/widgets" } });
    return {
      body,
      headers: {
        // What @octokit/webhooks-methods' sign computes (webhooks.schemes.test.ts checks its verify accepts it).
        "X-Hub-Signature-256": `sha256=${createHmac("sha256", secrets[0]).update(body).digest("hex")}`,
        "X-GitHub-Delivery": id,
        "X-GitHub-Event": type,
        "X-GitHub-Hook-ID": "292430182",
        "User-Agent": "GitHub-Hookshot/7c1e1f2",
      },
    };
  },
};

const shopify: Sender = {
  scheme: "shopify",
  timestamped: false,
  signatureHeader: "X-Shopify-Hmac-Sha256",
  newSecret: () => hex(32),
  secretFor: (seed) => seeded(seed).toString("hex"),
  settings: { scheme: "shopify" },
  dataPointer: (f) => `/${f}`,
  deliver: async (...a) => shopify.sign(...a),
  sign(secrets, id, type, data, ts) {
    const body = JSON.stringify({ id: 820982911946154500, ...data });
    return {
      body,
      headers: {
        "X-Shopify-Hmac-Sha256": shopifyHmac(body, secrets[0]),
        "X-Shopify-Topic": type,
        "X-Shopify-Shop-Domain": "acme.myshopify.com",
        "X-Shopify-API-Version": "2025-01",
        // One event (deduplicated on X-Shopify-Event-Id); this webhook of it, which Shopify's retries keep.
        "X-Shopify-Webhook-Id": `wh-${id}`,
        "X-Shopify-Event-Id": id,
        "X-Shopify-Triggered-At": new Date(ts * 1000).toISOString(),
      },
    };
  },
};

/** Slack's documented signature: v0= and the hex HMAC-SHA256 of "v0:<timestamp>:<body>" with the signing secret. */
export function slackSignature(secret: string, ts: number, body: string): string {
  return `v0=${createHmac("sha256", secret).update(`v0:${ts}:${body}`).digest("hex")}`;
}

const slack: Sender = {
  scheme: "slack",
  timestamped: true,
  signatureHeader: "X-Slack-Signature",
  newSecret: () => hex(16),
  secretFor: (seed) => seeded(seed).toString("hex").slice(0, 32),
  settings: { scheme: "slack" },
  dataPointer: (f) => `/event/${f}`,
  deliver: async (...a) => slack.sign(...a),
  sign(secrets, id, type, data, ts) {
    const body = JSON.stringify({
      token: "XXYYZZ",
      team_id: "T123ABC456",
      api_app_id: "A123ABC456",
      event: { type, event_ts: `${ts}.000100`, ...data },
      type: "event_callback",
      event_id: id,
      event_time: ts,
    });
    return { body, headers: { "X-Slack-Signature": slackSignature(secrets[0], ts, body), "X-Slack-Request-Timestamp": String(ts) } };
  },
};

const hmac: Sender = {
  scheme: "hmac",
  timestamped: true,
  signatureHeader: HMAC_SETTINGS.header,
  newSecret: () => hex(24),
  secretFor: (seed) => seeded(seed).toString("hex").slice(0, 48),
  settings: { scheme: "hmac", hmac: HMAC_SETTINGS },
  dataPointer: (f) => `/data/${f}`,
  deliver: async (...a) => hmac.sign(...a),
  sign(secrets, id, type, data, ts) {
    const body = JSON.stringify({ event: type, data });
    return {
      body,
      headers: {
        [HMAC_SETTINGS.header]: `sha256=${createHmac("sha256", secrets[0]).update(`${id}.${ts}.${body}`).digest("hex")}`,
        [HMAC_SETTINGS.timestamp_header]: String(ts),
        "X-Acme-Delivery": id,
      },
    };
  },
};

export const SENDERS: Record<SchemeName, Sender> = { "standard-webhooks": standard, stripe, github, shopify, slack, hmac };

/** A sender id of the form the sender uses, unique per call. */
export function senderId(scheme: SchemeName, n: string | number): string {
  switch (scheme) {
    case "stripe":
      return `evt_${n}_${hex(6)}`;
    case "github":
    case "shopify":
      return `${hex(4)}-${n}-4000-8000-${hex(6)}`;
    case "slack":
      return `Ev${n}${hex(4).toUpperCase()}`;
    default:
      return `msg_${n}_${hex(6)}`;
  }
}
