// The webhooks capability's request/response schemas and the rules they carry (source names, secrets
// per scheme, bounded replay windows); routes.ts defines one route per operation over them.
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { CURSOR_INVALID, PageQuery, Uuid, unstorableText } from "../core/validation";
import { EventDelivery, ForwardInput, ForwardView, STANDARD_SECRET_PATTERN } from "./forward-schemas";
import { fromBase64, MAX_WEBHOOK_ID, SCHEME_NAMES, type SchemeName, signsId } from "./schemes";

export { MAX_WEBHOOK_ID };
export const SOURCE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** The delivery route in the OpenAPI document. */
export const WEBHOOK_DELIVERY_PATH = "/v1/webhooks/{source}";

/**
 * The delivery route's {source}: one path segment, never `sources` (no source may have that name), so
 * `/v1/webhooks/sources` is the source list's alone and its other methods are a 405 with its Allow.
 */
const DELIVERY_SEGMENT = "(?!sources$)[^/]+";

/** The delivery route as the router matches it (index.ts mounts the handler on it). */
export const WEBHOOK_DELIVERY_ROUTE = `/v1/webhooks/:source{${DELIVERY_SEGMENT}}`;

const DELIVERY = new RegExp(`^/v1/webhooks/${DELIVERY_SEGMENT}$`);

/** Exactly the delivery route: POST /v1/webhooks/:source (one path segment, not `sources`). It carries no bearer token. */
export function isWebhookDelivery(c: Context): boolean {
  return c.req.method === "POST" && DELIVERY.test(c.req.path);
}

/** The longest a previous secret stays accepted after a rotation: 30 days. */
export const MAX_PREVIOUS_SECRET_TTL_MS = 30 * 86_400_000;

/** The longest replay window: 7 days, as long as a processed event is kept. */
export const MAX_REPLAY_WINDOW_S = 7 * 86_400;

/** The schemes that take replay_window_s: those whose id may be outside the signed bytes. */
const WINDOWED = new Set<SchemeName>(["github", "shopify", "hmac"]);

/**
 * Whether an hmac source whose id is not signed still refuses every replay: its timestamp is signed,
 * so a replay older than tolerance_s is refused, and a younger one has the signed bytes of an event
 * received within the replay window (a timestamp may be tolerance_s ahead of the clock, then replayed
 * until tolerance_s behind it: twice tolerance_s).
 */
function replaysBounded(hmac: { timestamp_header: string | null; signed: string }, toleranceS: number, windowS: number | undefined): boolean {
  return !!hmac.timestamp_header && hmac.signed.includes("{timestamp}") && windowS !== undefined && windowS >= 2 * toleranceS;
}

/** Whether deliveries of this scheme (with these settings) carry a signed timestamp, so tolerance_s applies. */
export function timestamped(scheme: SchemeName, hmac?: { timestamp_header?: string | null } | null): boolean {
  return scheme === "standard-webhooks" || scheme === "stripe" || scheme === "slack" || (scheme === "hmac" && !!hmac?.timestamp_header);
}

/**
 * A secret of each scheme, as the document's patterns: standard-webhooks' is whsec_ and the base64 of
 * 24–64 bytes (32–86 characters before any `=`, never 4n+1 of them); stripe's the endpoint's whsec_…;
 * the others' 8–1024 printable ASCII characters. secretProblem() below is the check.
 */
const SECRET_PATTERNS = {
  standard: STANDARD_SECRET_PATTERN,
  stripe: "^whsec_[\\x21-\\x7E]{2,1018}$",
  printable: "^[\\x21-\\x7E]{8,1024}$",
};

/** Why `secret` is not a secret of `scheme`, or undefined. Never names the value. */
function secretProblem(scheme: SchemeName, secret: string): string | undefined {
  if (scheme === "standard-webhooks") {
    if (!/^whsec_[A-Za-z0-9+/]+={0,2}$/.test(secret)) return "must be whsec_ followed by base64 (the Standard Webhooks secret format)";
    const bytes = fromBase64(secret.slice("whsec_".length))?.length ?? 0;
    return bytes >= 24 && bytes <= 64 ? undefined : "must decode to 24–64 bytes";
  }
  if (!new RegExp(SECRET_PATTERNS.printable).test(secret)) return "must be 8–1024 printable ASCII characters without spaces, as the sender shows it";
  if (scheme === "stripe" && /^(sk|rk|pk)_/.test(secret)) return "is a Stripe API key: use the endpoint's signing secret (whsec_…)";
  if (scheme === "stripe" && !secret.startsWith("whsec_")) return "must be the endpoint's signing secret, whsec_…";
  return undefined;
}

const SourceName = z
  .string()
  .regex(SOURCE_PATTERN, "must be 1–100 characters of A–Z, a–z, 0–9, '.', '_', '-', starting with a letter or digit")
  .refine((s) => s !== "sources", '"sources" is reserved');

export const SourceParam = z.object({ source: SourceName.openapi({ param: { name: "source", in: "path" }, example: "billing" }) });

const POINTER = /^(\/([^~/]|~[01])*)+$/;
const Pointer = z.string().max(200).regex(POINTER, "must be a JSON pointer (RFC 6901) such as /data/id");
const HeaderName = z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/, "must be an HTTP header name");
const Place = z
  .union([z.object({ header: HeaderName }).strict(), z.object({ pointer: Pointer }).strict()])
  .openapi("WebhookPlace", { description: "A request header (`{header}`) or an RFC 6901 JSON pointer into the body (`{pointer}`)" });
const Text = (max: number) =>
  z
    .string()
    .max(max)
    .refine((s) => unstorableText(s) === undefined, "must be well-formed text without NUL");

const HmacSettings = z
  .strictObject({
    header: HeaderName.openapi({ example: "X-Signature", description: "The header carrying the signature" }),
    algorithm: z.enum(["sha256", "sha1", "sha512"]).default("sha256"),
    encoding: z.enum(["hex", "base64"]).default("hex"),
    prefix: Text(50).default("").openapi({ example: "sha256=", description: "Text before the signature in the header" }),
    signed: Text(500)
      .default("{body}")
      .refine((s) => s.split("{body}").length === 2, "must contain {body} exactly once")
      .openapi({
        example: "{timestamp}.{body}",
        description: "What is signed: {body} (the raw bytes) once, with {timestamp} and {id} around it as the sender signs them",
      }),
    timestamp_header: HeaderName.nullable()
      .default(null)
      .openapi({ description: "The header with the signed timestamp (Unix seconds); tolerance_s applies. null: the sender signs none" }),
    id: Place.openapi({
      description:
        "Where the sender's own event id is; deliveries are deduplicated on it. It must be inside the signed bytes (a JSON pointer into the body, or a header that `signed` uses as {id}) unless `allow_unsigned_id` is true or the source can tell a replay otherwise (a signed timestamp and `replay_window_s` at least twice `tolerance_s`)",
    }),
    event_type: Place.nullable().default(null).openapi({ description: "Where the event type is (stored as the event's event_type); null: none" }),
    allow_unsigned_id: z.boolean().default(false).openapi({
      description:
        "true: take the id from a header outside the signed bytes although a captured delivery replayed with a fresh id is then stored again (docs/webhooks.md, Replays)",
    }),
  })
  .superRefine((h, ctx) => {
    if (h.signed.includes("{timestamp}") && !h.timestamp_header)
      ctx.addIssue({ code: "custom", path: ["timestamp_header"], message: "is required when signed uses {timestamp}" });
    if (h.timestamp_header && !h.signed.includes("{timestamp}"))
      ctx.addIssue({
        code: "custom",
        path: ["signed"],
        message: "must contain {timestamp} when timestamp_header is set: an unsigned timestamp can be replaced by anyone",
      });
    if (h.signed.includes("{id}") && !("header" in h.id)) ctx.addIssue({ code: "custom", path: ["id"], message: "must be a header when signed uses {id}" });
  })
  .openapi("WebhookHmacSettings");

const Rejection = z
  .object({
    at: z.string().openapi({ format: "date-time" }),
    reason: z.enum(["missing-header", "malformed-header", "signature-mismatch", "timestamp-outside-tolerance"]),
    header: z.string().optional().openapi({ description: "The header at fault, when one is" }),
    detail: z.string().openapi({ description: "What to fix (never the expected signature or any part of a secret)" }),
  })
  .openapi("WebhookRejection");

export const WebhookSource = z
  .object({
    source: z.string(),
    scheme: z.enum(SCHEME_NAMES),
    tolerance_s: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "±seconds a signed timestamp may differ from the database clock; null: the scheme signs none" }),
    ordering_key: z.string().nullable(),
    // (A union, not .nullable(): that would make the shared component itself nullable, in the PUT's body too.)
    hmac: z.union([HmacSettings, z.null()]).openapi({ description: "The generic scheme's settings (scheme hmac); null otherwise" }),
    replay_window_s: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "Seconds within which a delivery with the same signed bytes is a duplicate whatever its id; null: none" }),
    previous_secret_expires_at: z
      .string()
      .nullable()
      .openapi({ format: "date-time", description: "Until when the previous secret is still accepted (a rotation); null: only the current one" }),
    recent_rejections: z.array(Rejection).openapi({
      description:
        "The latest deliveries refused before they were verified (at most 10, newest first), with why: the sender only ever gets the same 401. A rejection arriving while another of this source is being recorded may be left out",
    }),
    forward: z.union([ForwardView, z.null()]).openapi({ description: "Where its events are forwarded (never the forward secret); null: pull consumers only" }),
    created_at: z.string().openapi({ format: "date-time" }),
    updated_at: z.string().openapi({ format: "date-time" }),
  })
  .openapi("WebhookSource");

/**
 * The per-scheme rules of the source PUT (the superRefine below) in the document: one alternative per
 * kind of scheme, exactly one of which a body the server takes matches (scheme omitted is standard-webhooks).
 * `anyOf` rather than `oneOf` only because Redocly's linter cannot see that they exclude each other; inside
 * `allOf`, so that openapi-typescript types the body as its properties and one of these.
 */
const SCHEME_BODIES = (() => {
  const secret = (pattern: string) => ({ secret: { type: "string" as const, pattern } });
  const absent = { not: {} }; // the field may not be given at all
  return [
    {
      title: "standard-webhooks",
      properties: { scheme: { const: "standard-webhooks" }, ...secret(SECRET_PATTERNS.standard), hmac: absent, replay_window_s: absent },
    },
    {
      title: "stripe",
      required: ["scheme"],
      properties: { scheme: { const: "stripe" }, ...secret(SECRET_PATTERNS.stripe), hmac: absent, replay_window_s: absent },
    },
    {
      title: "slack",
      required: ["scheme"],
      properties: { scheme: { const: "slack" }, ...secret(SECRET_PATTERNS.printable), hmac: absent, replay_window_s: absent },
    },
    {
      title: "github or shopify (no signed timestamp)",
      required: ["scheme"],
      properties: { scheme: { enum: ["github", "shopify"] }, ...secret(SECRET_PATTERNS.printable), hmac: absent, tolerance_s: absent },
    },
    {
      title: "hmac with a signed timestamp",
      required: ["scheme", "hmac"],
      properties: {
        scheme: { const: "hmac" },
        ...secret(SECRET_PATTERNS.printable),
        hmac: { type: "object" as const, required: ["timestamp_header"], properties: { timestamp_header: { type: "string" as const } } },
      },
    },
    {
      title: "hmac without a signed timestamp",
      required: ["scheme", "hmac"],
      properties: {
        scheme: { const: "hmac" },
        ...secret(SECRET_PATTERNS.printable),
        hmac: { type: "object" as const, properties: { timestamp_header: { type: "null" as const } } },
        tolerance_s: absent,
      },
    },
  ];
})();
export const PutSourceBody = z
  .strictObject({
    scheme: z
      .enum(SCHEME_NAMES)
      .default("standard-webhooks")
      .openapi({ description: "How the sender signs (docs/webhooks.md has one section per sender). Default standard-webhooks" }),
    secret: z.string().openapi({
      pattern: SECRET_PATTERNS.printable,
      example: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
      description:
        "The signing secret shared with the sender, as the sender shows it (standard-webhooks: whsec_ + base64 of 24–64 bytes; stripe: the endpoint's whsec_…; others: 8–1024 printable characters). Write-only: never returned.",
    }),
    previous_secret_ttl_ms: z.number().int().min(0).max(MAX_PREVIOUS_SECRET_TTL_MS).optional().openapi({
      description:
        "Rotation: how much longer (ms, from now, up to 30 days) the previous secret is still accepted. With a new `secret`, the stored one becomes the previous secret; with the same `secret`, the previous one's time is set anew; 0 retires it. Omitted: a new secret replaces the old one outright, and the same secret leaves a previous one as it is.",
    }),
    tolerance_s: z
      .number()
      .int()
      .min(1)
      .max(86_400)
      .optional()
      .openapi({ description: "Accepted clock skew of the signed timestamp, ±seconds (default 300). Only for schemes that sign one" }),
    ordering_key: z.string().max(200).regex(POINTER, "must be a JSON pointer (RFC 6901) such as /data/subscription_id").nullable().optional().openapi({
      example: "/data/subscription_id",
      description: "Events with the same value at this JSON pointer are never claimed concurrently, and are handed out in received order",
    }),
    hmac: HmacSettings.optional().openapi({ description: "Required for scheme hmac (and only there)" }),
    replay_window_s: z.number().int().min(1).max(MAX_REPLAY_WINDOW_S).optional().openapi({
      description:
        "Only for the schemes whose id may be outside the signed bytes (github, shopify, hmac): a verified delivery whose signed bytes equal those of an event received within this many seconds (up to 7 days) is that event again, whatever id it carries. Omitted: none",
    }),
    forward: ForwardInput.nullable().optional().openapi({
      description:
        "Where each event stored is delivered, signed with Standard Webhooks headers (docs/webhooks.md, Forwarding). Omitted or null: nowhere, consumers pull. Putting the source again resumes forwarding a 410 stopped",
    }),
  })
  .superRefine((b, ctx) => {
    const why = secretProblem(b.scheme, b.secret);
    if (why) ctx.addIssue({ code: "custom", path: ["secret"], message: why });
    if ((b.scheme === "hmac") !== (b.hmac !== undefined))
      ctx.addIssue({ code: "custom", path: ["hmac"], message: b.scheme === "hmac" ? "is required for scheme hmac" : "is only for scheme hmac" });
    if (b.forward?.ordered && !b.ordering_key)
      ctx.addIssue({ code: "custom", path: ["forward", "ordered"], message: "needs ordering_key: events are ordered per value at it" });
    if (b.tolerance_s !== undefined && !timestamped(b.scheme, b.hmac))
      ctx.addIssue({ code: "custom", path: ["tolerance_s"], message: `does not apply: ${b.scheme} deliveries carry no signed timestamp` });
    if (b.replay_window_s !== undefined && !WINDOWED.has(b.scheme))
      ctx.addIssue({ code: "custom", path: ["replay_window_s"], message: `does not apply: ${b.scheme} signs the id, so a replay is a duplicate by its id` });
    if (
      b.scheme === "hmac" &&
      b.hmac &&
      !signsId(b.scheme, b.hmac) &&
      !b.hmac.allow_unsigned_id &&
      !replaysBounded(b.hmac, b.tolerance_s ?? 300, b.replay_window_s)
    )
      ctx.addIssue({
        code: "custom",
        path: ["hmac", "id"],
        message:
          "is outside the signed bytes, so a captured delivery replayed with a fresh id would be stored again: take it from the body (pointer), sign it ({id} in signed), set replay_window_s to at least twice tolerance_s with a signed timestamp, or set allow_unsigned_id: true",
      });
  })
  .openapi("WebhookSourceInput", {
    description:
      "Which fields and secrets each scheme takes (`anyOf`, one alternative per kind of scheme): `hmac` for scheme hmac only, and required there; `tolerance_s` only where deliveries carry a signed timestamp (not github or shopify, nor hmac without `timestamp_header`); `replay_window_s` only for github, shopify and hmac; `secret` in the scheme's format. An hmac source whose id is a header its `signed` template does not sign is refused (422 naming `hmac.id`) unless `hmac.allow_unsigned_id` is true or it has a signed timestamp and `replay_window_s` of at least twice `tolerance_s`.",
    allOf: [{ anyOf: SCHEME_BODIES }],
  });

export const Received = z.object({ id: z.uuid(), status: z.literal("received") }).openapi("WebhookReceived");

/** A sender's handshake, answered and not stored: Slack's url_verification (its challenge), GitHub's ping. */
export const Handshake = z
  .union([
    z.object({ challenge: z.string() }).openapi({ description: "Slack url_verification: the challenge echoed" }),
    z.object({ status: z.literal("acknowledged"), event_type: z.literal("ping"), stored: z.literal(false) }).openapi({ description: "GitHub ping" }),
  ])
  .openapi("WebhookHandshake");

export const ClaimedEvent = z
  .object({
    id: z.uuid(),
    webhook_id: z.string(),
    event_type: z.string().nullable(),
    payload: z.unknown(),
    ordering_value: z.string().nullable(),
    received_at: z.string().openapi({ format: "date-time" }),
    claim_expires_at: z.string().openapi({ format: "date-time" }),
    receipt: z.uuid().openapi({
      description:
        "This claim's receipt: the ack must carry it. A later claim of the event (after this one lapsed) gets another, and this one no longer acknowledges it.",
    }),
  })
  .openapi("ClaimedWebhookEvent");

const EventStatus = z.enum(["received", "claimed", "processed"]);

export const WebhookEvent = z
  .object({
    id: z.uuid(),
    webhook_id: z.string().openapi({ description: "The sender's own id, which deliveries are deduplicated on" }),
    event_type: z.string().nullable().openapi({ description: "The sender's event type (Stripe type, X-GitHub-Event, X-Shopify-Topic, Slack event.type, …)" }),
    payload: z.unknown(),
    status: EventStatus,
    ordering_value: z.string().nullable(),
    webhook_timestamp: z.string().nullable().openapi({ format: "date-time", description: "The signed timestamp; null for schemes that sign none" }),
    received_at: z.string().openapi({ format: "date-time" }),
    claim_expires_at: z.string().nullable().openapi({ format: "date-time" }),
    claims: z.number().int(),
    processed_at: z.string().nullable().openapi({ format: "date-time" }),
    delivery: z.union([EventDelivery, z.null()]),
  })
  .openapi("WebhookEvent");

export const ClaimBody = z
  .strictObject({
    limit: z.number().int().min(1).max(100).default(10).openapi({ description: "At most this many events (1–100, default 10)" }),
    visibility_ms: z
      .number()
      .int()
      .min(100)
      .max(43_200_000)
      .default(30_000)
      .openapi({ description: "Claim lifetime: unacknowledged events become claimable again after it (100 ms–12 h, default 30 s)" }),
  })
  .openapi("WebhookClaim");

export const AckBody = z
  .strictObject({
    receipt: Uuid.openapi({ description: "The `receipt` the claim returned with this event" }),
  })
  .openapi("WebhookAck");

export const EventParams = SourceParam.extend({ id: z.string().openapi({ param: { name: "id", in: "path" } }) });

export const ListQuery = z.object({
  status: z
    .enum([...EventStatus.options, "pending", "failed"])
    .optional()
    .openapi({
      param: { name: "status", in: "query" },
      description:
        "received (waiting), claimed (live claim) or processed (acked, or delivered); forwarding: pending or failed (the dead letters); omitted = all",
    }),
  limit: PageQuery.shape.limit,
  cursor: z
    .string()
    .regex(/^\d{1,18}$/, CURSOR_INVALID)
    .optional()
    .openapi({ param: { name: "cursor", in: "query" } }),
});
