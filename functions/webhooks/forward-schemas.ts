// Forwarding's request/response schemas: a source's `forward` (where its events go and how), an
// event's attempts, and the redelivery bodies and answers.
import { z } from "@hono/zod-openapi";
import { isLater, PageQuery, Rfc3339 } from "../core/validation";
import { fromBase64 } from "./schemes";

/** Svix's schedule after the first attempt: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (about 28 h in all). */
export const DEFAULT_RETRY_SCHEDULE_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
export const DEFAULT_TIMEOUT_MS = 10_000;
/** Work after a response may go on for 30 s on Workers: an attempt and its record fit well inside. */
export const MAX_TIMEOUT_MS = 25_000;
/** The longest a previous forward secret keeps signing after a rotation: 30 days. */
const MAX_PREVIOUS_SECRET_TTL_MS = 30 * 86_400_000;

/** Loopback host names, where plain HTTP is allowed (local use): localhost, *.localhost, 127.0.0.0/8, [::1]. */
export function isLoopback(hostname: string): boolean {
  const h = hostname.toLowerCase();
  return h === "localhost" || h.endsWith(".localhost") || /^127(\.\d{1,3}){3}$/.test(h) || h === "[::1]";
}

/** Why `url` cannot be a forward target, or undefined. */
export function targetProblem(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return "must be an absolute URL";
  }
  if (u.username || u.password) return "must not carry credentials (user:password@)";
  if (u.hash) return "must not have a fragment";
  if (u.protocol === "https:") return undefined;
  if (u.protocol === "http:") return isLoopback(u.hostname) ? undefined : "must be https: (plain http only on loopback: localhost, 127.0.0.0/8, [::1])";
  return "must be an https: URL";
}

const B64 = "[A-Za-z0-9+/]";
/** A Standard Webhooks secret as the document's pattern: whsec_ and the base64 of 24–64 bytes (32–86 characters before any `=`, never 4n+1 of them). */
export const STANDARD_SECRET_PATTERN = `^whsec_(?:(?:${B64}{4}){8,20}(?:${B64}{2,3})?|(?:${B64}{4}){21}(?:${B64}{2})?)={0,2}$`;
const SECRET = /^whsec_[A-Za-z0-9+/]+={0,2}$/;

/**
 * A forward target as the document's pattern (targetProblem() is the check): https to a host name
 * (an address is accepted too, though not in the pattern), or plain http to loopback; an optional port; a path and query of visible ASCII, no
 * fragment, no credentials.
 */
const PORT = "(?::(?:6553[0-5]|655[0-2]\\d|65[0-4]\\d{2}|6[0-4]\\d{3}|[1-5]\\d{4}|\\d{1,4}))?";
const TARGET_PATTERN = `^(?:https://(?:[A-Za-z0-9-]+\\.)*[A-Za-z][A-Za-z0-9-]*|http://(?:localhost|(?:[A-Za-z0-9-]+\\.)+localhost|127(?:\\.(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3}|\\[::1\\]))${PORT}(?:[/?][\\x21\\x22\\x24-\\x7E]*)?$`;

export const ForwardInput = z
  .strictObject({
    url: z.string().max(2048).optional().openapi({
      pattern: TARGET_PATTERN,
      example: "https://api.example.com/hooks/billing",
      description: "Where events are POSTed: https, or plain http on loopback only (localhost, 127.0.0.0/8, [::1]). Exactly one of url and binding",
    }),
    binding: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, "must be the name of a Service Binding of this Worker (letters, digits, _)")
      .optional()
      .openapi({ example: "BILLING", description: "A Worker this one reaches over a Service Binding (`[[services]]` in wrangler.toml) of that name" }),
    path: z
      .string()
      .max(1024)
      .regex(/^\/[\x21-\x7E]*$/, "must be a path starting with /")
      .optional()
      .openapi({ description: "With binding only: the path requested of the bound Worker (default /)" }),
    secret: z.string().openapi({
      pattern: STANDARD_SECRET_PATTERN,
      example: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
      description:
        "The forward secret the target verifies with (Standard Webhooks: whsec_ + base64 of 24–64 bytes; the `standardwebhooks` library takes it as is). Write-only: never returned",
    }),
    previous_secret_ttl_ms: z.number().int().min(0).max(MAX_PREVIOUS_SECRET_TTL_MS).optional().openapi({
      description:
        "Rotation: how much longer (ms, up to 30 days) the forward secret stored until now keeps signing beside the new one (two v1 signatures), so the target can move to the new one; 0 retires it. Omitted: a new secret replaces the old one outright",
    }),
    timeout_ms: z
      .number()
      .int()
      .min(100)
      .max(MAX_TIMEOUT_MS)
      .default(DEFAULT_TIMEOUT_MS)
      .openapi({ description: "How long one attempt waits for the target's answer (100 ms–25 s, default 10 s); past it the attempt failed (timeout)" }),
    retry_schedule_ms: z.array(z.number().int().min(1_000).max(86_400_000)).max(20).default(DEFAULT_RETRY_SCHEDULE_MS).openapi({
      description:
        "The wait before each retry after a failed attempt (1 s–24 h each, at most 20; up to 20 % is added at random; a longer Retry-After from the target is honoured). Default 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. When it is spent the event is `failed`",
    }),
    ordered: z.boolean().default(false).openapi({
      description:
        "true: an event is not delivered before the earlier events of its ordering value (the source's ordering_key) are delivered or failed. Needs ordering_key",
    }),
  })
  .superRefine((f, ctx) => {
    if ((f.url === undefined) === (f.binding === undefined))
      ctx.addIssue({ code: "custom", path: ["url"], message: "exactly one of url and binding is required" });
    if (f.url !== undefined) {
      const why = targetProblem(f.url);
      if (why) ctx.addIssue({ code: "custom", path: ["url"], message: why });
    }
    if (f.path !== undefined && f.binding === undefined) ctx.addIssue({ code: "custom", path: ["path"], message: "is only for a binding" });
    const bytes = SECRET.test(f.secret) ? (fromBase64(f.secret.slice("whsec_".length))?.length ?? 0) : 0;
    if (bytes < 24 || bytes > 64) ctx.addIssue({ code: "custom", path: ["secret"], message: "must be whsec_ followed by the base64 of 24–64 bytes" });
  })
  .openapi("WebhookForwardInput");

export const ForwardView = z
  .object({
    url: z.string().optional(),
    binding: z.string().optional(),
    path: z.string().optional(),
    timeout_ms: z.number().int(),
    retry_schedule_ms: z.array(z.number().int()),
    ordered: z.boolean(),
    previous_secret_expires_at: z
      .string()
      .nullable()
      .openapi({ format: "date-time", description: "Until when the previous forward secret still signs beside the current one; null: only the current one" }),
    stopped_at: z
      .string()
      .nullable()
      .openapi({ format: "date-time", description: "When the target answered 410 Gone: nothing is forwarded until the source is PUT again; null: forwarding" }),
    stopped_reason: z.string().nullable(),
  })
  .openapi("WebhookForward");

export const EventDelivery = z
  .object({
    state: z
      .enum(["pending", "delivered", "failed"])
      .openapi({ description: "pending (an attempt due, waiting or in flight), delivered (a 2xx), failed (the schedule spent: a dead letter)" }),
    attempts: z.number().int(),
    in_flight: z.boolean(),
    next_attempt_at: z.string().nullable().openapi({ format: "date-time" }),
    delivered_at: z.string().nullable().openapi({ format: "date-time" }),
    failed_at: z.string().nullable().openapi({ format: "date-time" }),
  })
  .openapi("WebhookEventDelivery", { description: "Forwarding of the event; null when its source did not forward it" });

export const Attempt = z
  .object({
    n: z.number().int().openapi({ description: "1 for the event's first attempt, then 2, 3, …" }),
    trigger: z
      .enum(["received", "schedule", "redeliver"])
      .openapi({ description: "received: at once after storing; schedule: a retry (or a later event of an ordered value); redeliver: asked for" }),
    target: z.string(),
    started_at: z.string().openapi({ format: "date-time" }),
    finished_at: z.string().nullable().openapi({ format: "date-time" }),
    status: z.number().int().nullable().openapi({ description: "The target's HTTP status; null: no answer (timeout, network error) or still in flight" }),
    outcome: z
      .enum(["delivered", "failed", "timeout", "error", "gone", "lost"])
      .nullable()
      .openapi({ description: "null while in flight; lost: its sender stopped before recording it (it counts as a failed attempt)" }),
    latency_ms: z.number().int().nullable(),
    response: z.string().nullable().openapi({ description: "The first 1024 characters of the answer's body" }),
    error: z.string().nullable(),
    retry_after_ms: z.number().int().nullable().openapi({ description: "The target's Retry-After, when it sent one with a failure" }),
  })
  .openapi("WebhookAttempt");

export const AttemptsQuery = z.object({
  limit: PageQuery.shape.limit,
  cursor: z
    .string()
    .regex(/^\d{1,9}$/, "invalid cursor")
    .optional()
    .openapi({ param: { name: "cursor", in: "query" } }),
});

export const RedeliverFailedBody = z
  .strictObject({
    since: Rfc3339.openapi({ description: "Failed events received at or after this time" }),
    until: Rfc3339.openapi({ description: "… and before this time" }),
    limit: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .default(1000)
      .openapi({ description: "At most this many (default and most 1000); `more` says whether to call again" }),
  })
  .superRefine((b, ctx) => {
    if (!isLater(b.until, b.since)) ctx.addIssue({ code: "custom", path: ["until"], message: "must be later than since" });
  })
  .openapi("WebhookRedeliverFailed");
