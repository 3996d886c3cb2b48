// The webhooks capability's handlers: HTTP ↔ webhook calls (sql.ts), outcomes mapped to answers and problems.
//
// The delivery route is authenticated by its signature alone (http/app.ts exempts exactly that route
// from the bearer token). The source's scheme (schemes/: one verifier per sender) reads its headers;
// the HMAC is checked over the raw body bytes with WebCrypto against each secret the source holds;
// a signed timestamp is judged by the database clock with the source's tolerance. Every refusal
// before that is one answer to the sender (an unknown source's too); why goes to the source's owner.
// Then the one inbox path for every scheme: stored once per (source, the sender's own id).
import type { RouteHandler } from "@hono/zod-openapi";
import type { Context } from "hono";
import { sha256 } from "hono/utils/crypto";
import { auditEntry, redact } from "../core/audit";
import { visibleNames } from "../core/auth";
import type { AppEnv } from "../core/context";
import { logSample, writeLog } from "../core/decision-log";
import { httpProblem, notFound, problem, validationProblem } from "../core/errors";
import { executionCtxOf, headerValueProblem, REPLAYED_HEADER } from "../core/http";
import { cutPage, isUuid, namePage, unstorableText } from "../core/validation";
import { forwardNow } from "./forward";
import type * as routes from "./routes";
import * as schemas from "./schemas";
import { MAX_WEBHOOK_ID, pointerValue, Rejection, signedBytes, signsId, unverified, verifyDelivery } from "./schemes";
import * as sql from "./sql";

/** The value at an RFC 6901 JSON pointer, as the text events are grouped by (undefined: unordered). */
export const orderingValue = pointerValue;

/** The most characters an ordering value is stored (and shown) as itself. */
export const MAX_ORDERING_CHARS = 200;

/**
 * A value of a signed delivery as stored and indexed (an ordering value, the sender's id): itself
 * when it is at most `max` characters of text Postgres stores as itself, else `sha256:` and the hex
 * digest of its JSON text (which keeps a lone surrogate distinct). Equal values stay equal and
 * different ones apart; a signed delivery is never refused for such a value (a large object
 * overflowed the index row, a NUL was refused by Postgres: a 422, retried by the sender forever).
 */
async function storedText(value: string, max: number): Promise<string> {
  if (value.length <= max && unstorableText(value) === undefined) return value;
  return `sha256:${await sha256(JSON.stringify(value))}`;
}

/**
 * A header a scheme reads from a delivery, held to what the document says of every such header
 * (HEADER_VALUE_PATTERN: visible ASCII, spaces only inside) by the same rule: a value outside it is
 * refused as a malformed header is (the one 401 to the sender; the header named to the owner). No
 * sender sends one (a header's value is ASCII by convention, RFC 9110 5.5); an empty one is left to
 * the scheme, which asks for the header.
 */
function deliveryHeader(value: string | undefined, name: string): string | undefined {
  const bad = value ? headerValueProblem(value) : undefined;
  if (bad) throw unverified("malformed-header", `${name} ${bad}.`, name);
  return value;
}

export function unknownSource(source: string) {
  return notFound(`No webhook source ${JSON.stringify(source)}. Register it with PUT /v1/webhooks/sources/${source}.`);
}

export function eventNotFound(source: string, id: string) {
  return notFound(`No event ${JSON.stringify(id)} of source ${JSON.stringify(source)}.`);
}

/** Bindings Admit itself uses (the pages Worker): never a forward target. */
const OWN_BINDINGS = new Set(["PAGES"]);

/** The most characters an event type is stored as itself (a longer or unstorable one is not kept). */
const MAX_EVENT_TYPE = 200;

export const putWebhookSource: RouteHandler<typeof routes.putWebhookSource, AppEnv> = async (c) => {
  const { source } = c.req.valid("param");
  const body = c.req.valid("json");
  const { secret: forwardSecret, previous_secret_ttl_ms: forwardTtl, ...forward } = body.forward ?? { secret: null, previous_secret_ttl_ms: undefined };
  const binding = body.forward?.binding;
  if (
    binding !== undefined &&
    (OWN_BINDINGS.has(binding) || typeof (c.env as Record<string, { fetch?: unknown } | undefined> | undefined)?.[binding]?.fetch !== "function")
  ) {
    const message = OWN_BINDINGS.has(binding)
      ? `${binding} is Admit's own binding, not a target`
      : `no Service Binding named ${binding} in this Worker: add it under [[services]] in wrangler.toml`;
    throw validationProblem(`body forward.binding: ${message}`, [{ in: "body", path: "forward.binding", message }]);
  }
  const change = { ...redact(body, "secret", "secrets"), ...(body.forward ? { forward: redact(body.forward, "secret") } : {}) };
  const audit = auditEntry(c.var.caller, c.env ?? {}, "webhooks.source.put", source, change);
  const r = await sql.putWebhookSource(
    c.var.db,
    source,
    {
      scheme: body.scheme,
      secret: body.secret,
      previousSecretTtlMs: body.previous_secret_ttl_ms,
      toleranceS: schemas.timestamped(body.scheme, body.hmac) ? (body.tolerance_s ?? 300) : null,
      orderingKey: body.ordering_key ?? null,
      hmac: body.hmac ?? null,
      replayWindowS: body.replay_window_s ?? null,
      forward: body.forward ? (forward as sql.SourceSettings["forward"]) : null,
      forwardSecret: body.forward ? forwardSecret : null,
      forwardPreviousSecretTtlMs: forwardTtl,
    },
    audit,
  );
  return r.created ? c.json(r.source, 201) : c.json(r.source, 200);
};

export const listWebhookSources: RouteHandler<typeof routes.listWebhookSources, AppEnv> = async (c) => {
  const q = c.req.valid("query");
  const rows = await sql.listWebhookSources(c.var.db, q.cursor ?? null, q.limit, visibleNames(c));
  return c.json(
    namePage(rows, q.limit, (s) => s.source),
    200,
  );
};

export const getWebhookSource: RouteHandler<typeof routes.getWebhookSource, AppEnv> = async (c) => {
  const { source } = c.req.valid("param");
  const r = await sql.getWebhookSource(c.var.db, source);
  if (!r) throw unknownSource(source);
  return c.json(r, 200);
};

/**
 * The one answer to every delivery that is not verified, whatever the reason, and to one for a source
 * that does not exist: the same status, headers and body, so a sender learns nothing of which sources
 * exist or how they are set up. Why is for the source's owner (recent_rejections) and the decision log.
 */
export const NOT_VERIFIED_DETAIL =
  "The delivery was not verified, and nothing was stored. Why is shown to the source's owner (GET /v1/webhooks/sources/{source}: recent_rejections), not to the sender.";

/**
 * Records a refusal on the source (known or not: the same statement either way, and a failure to
 * record changes nothing of the answer), logs it, and answers NOT_VERIFIED. A refusal of an existing
 * source is a `warn` line of the decision log (a sender misconfigured, or someone forging), one for a
 * name no source has an `info` line.
 */
async function refuse(c: Context<AppEnv>, source: string, known: boolean, rejection: Rejection): Promise<never> {
  if (schemas.SOURCE_PATTERN.test(source)) await sql.rejectWebhook(c.var.db, source, rejection).catch(() => undefined);
  const level = known ? "warn" : "info";
  const rate = logSample(c.env, level);
  if (rate !== null) {
    writeLog(level, {
      message: `webhook delivery rejected: ${rejection.reason}`,
      level,
      event: "admit.webhook.rejected",
      source: schemas.SOURCE_PATTERN.test(source) ? source : null,
      known_source: known,
      ...rejection.toJSON(),
      sample_rate: rate,
    });
  }
  throw problem("webhook-signature", NOT_VERIFIED_DETAIL);
}

export const receiveWebhook: RouteHandler<typeof routes.receiveWebhook, AppEnv> = async (c) => {
  const source = c.req.param("source");
  const db = c.var.db;
  const s = schemas.SOURCE_PATTERN.test(source) ? await sql.sourceForDelivery(db, source) : null;
  const req = { header: (name: string) => deliveryHeader(c.req.header(name), name) };
  const raw = new Uint8Array(await c.req.arrayBuffer()) as Uint8Array<ArrayBuffer>;
  const verified = await verifyDelivery(s, req, raw);
  if (!verified.ok) return refuse(c, source, s !== null, verified.rejection);
  const { source: src, scheme, signed } = verified;

  let body: string;
  try {
    // Signed bytes are kept as they came: decode strictly, keep a BOM.
    body = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(raw);
  } catch {
    throw httpProblem(400, "The body is not UTF-8.");
  }
  let payload: unknown;
  try {
    payload = JSON.parse(body);
  } catch {
    throw httpProblem(400, "The body is not JSON.");
  }
  let what: ReturnType<typeof scheme.identify>;
  try {
    what = scheme.identify(payload, req, src);
  } catch (e) {
    // A header read only now (an id, a topic) that is not visible ASCII: refused as any malformed header.
    if (e instanceof Rejection) return refuse(c, source, true, e);
    throw e;
  }
  if (what.kind === "handshake") return c.json(what.answer as { challenge: string }, 200);
  if (!what.id)
    throw httpProblem(400, `The delivery has no id in ${what.idFrom}, which deliveries of a ${src.scheme} source are deduplicated on. Nothing was stored.`);
  const type = what.type !== undefined && what.type.length <= MAX_EVENT_TYPE && unstorableText(what.type) === undefined ? what.type : null;
  const value = src.ordering_key === null ? undefined : orderingValue(payload, src.ordering_key);
  const ordering = value === undefined ? undefined : await storedText(value, MAX_ORDERING_CHARS);
  const r = await sql.receiveWebhook(db, {
    source,
    webhookId: await storedText(what.id, MAX_WEBHOOK_ID),
    earlierIds: await Promise.all((what.earlier ?? []).map((id) => storedText(id, MAX_WEBHOOK_ID))),
    // Where the id is not signed (or a window is set), the signed bytes tell a replay with a fresh id (replay_window_s).
    signedSha256: signsId(src.scheme, src.hmac) && src.replay_window_s === null ? null : await sha256(signedBytes(signed, raw)),
    timestamp: signed.timestamp?.seconds ?? null,
    eventType: type,
    body,
    ordering,
  });
  if (!r.id) return refuse(c, source, false, unverified("unknown-source", "The source was removed while the delivery was stored."));
  // Forwarded after the answer: the sender's 200 never waits for the target.
  if (r.forward && c.env) executionCtxOf(c)?.waitUntil(forwardNow(c.env, { id: r.id, source }, "received"));
  return c.json({ id: r.id, status: "received" as const }, 200, r.duplicate ? { [REPLAYED_HEADER]: "true" } : {});
};

export const claimWebhookEvents: RouteHandler<typeof routes.claimWebhookEvents, AppEnv> = async (c) => {
  const { source } = c.req.valid("param");
  const body = c.req.valid("json");
  const r = await sql.claimWebhookEvents(c.var.db, source, body.limit, body.visibility_ms);
  if (!r) throw unknownSource(source);
  return c.json(r, 200);
};

export const ackWebhookEvent: RouteHandler<typeof routes.ackWebhookEvent, AppEnv> = async (c) => {
  const { source, id } = c.req.valid("param");
  const { receipt } = c.req.valid("json");
  if (!isUuid(id)) throw eventNotFound(source, id);
  const r = await sql.ackWebhookEvent(c.var.db, source, id, receipt);
  if (!r) throw eventNotFound(source, id);
  if (r.status === "not_current") {
    const why: Record<string, string> = {
      processed: "it was already processed under another claim",
      expired: "this claim lapsed before the ack",
      superseded: "this receipt is not the event's latest claim (it was claimed again after this claim lapsed)",
      unclaimed: "the event has not been claimed",
    };
    throw problem("claim-not-current", `Event ${id} was not acknowledged: ${why[r.state] ?? r.state}. Nothing was changed; claim again to process it.`, {
      state: r.state,
      claim_expires_at: r.claim_expires_at,
    });
  }
  return c.json(r, 200);
};

export const listWebhookEvents: RouteHandler<typeof routes.listWebhookEvents, AppEnv> = async (c) => {
  const { source } = c.req.valid("param");
  const q = c.req.valid("query");
  const r = await sql.listWebhookEvents(c.var.db, source, q.status ?? null, q.cursor ?? null, q.limit);
  if (!r) throw unknownSource(source);
  const page = cutPage(r, (e) => String(e.seq));
  return c.json({ items: page.items.map((e) => e.event), next_cursor: page.next_cursor }, 200);
};
