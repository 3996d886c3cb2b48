// Forwarding's handlers: attempts listed, redeliveries made (audited) and started after the answer.
import type { RouteHandler } from "@hono/zod-openapi";
import { auditEntry } from "../core/audit";
import type { AppEnv } from "../core/context";
import { problem } from "../core/errors";
import { executionCtxOf } from "../core/http";
import { cutPage, isUuid } from "../core/validation";
import { forwardNow } from "./forward";
import type * as routes from "./forward-routes";
import { eventNotFound, unknownSource } from "./handlers";
import * as sql from "./sql";

export const listWebhookAttempts: RouteHandler<typeof routes.listWebhookAttempts, AppEnv> = async (c) => {
  const { source, id } = c.req.valid("param");
  const q = c.req.valid("query");
  if (!isUuid(id)) throw eventNotFound(source, id);
  const r = await sql.listForwardAttempts(c.var.db, source, id, q.cursor === undefined ? null : Number(q.cursor), q.limit);
  if (!r) throw eventNotFound(source, id);
  return c.json(
    cutPage({ items: r.items, more: r.more }, (a) => String(a.n)),
    200,
  );
};

export const redeliverWebhookEvent: RouteHandler<typeof routes.redeliverWebhookEvent, AppEnv> = async (c) => {
  const { source, id } = c.req.valid("param");
  if (!isUuid(id)) throw eventNotFound(source, id);
  const audit = auditEntry(c.var.caller, c.env ?? {}, "webhooks.event.redeliver", source, { id });
  const r = await sql.redeliverEvent(c.var.db, source, id, audit);
  if (!r) throw eventNotFound(source, id);
  if (!r.redelivered) {
    const why = {
      "not-forwarding": `Source ${JSON.stringify(source)} does not forward: set its forward with PUT /v1/webhooks/sources/${source}.`,
      "in-flight": `An attempt of event ${id} is in flight (until ${r.in_flight_until}); its outcome is recorded first.`,
      claimed: `A pull consumer holds event ${id}; it can be redelivered once the claim lapses or is acked.`,
    }[r.why];
    throw problem("conflict", why, { reason: r.why });
  }
  if (c.env) executionCtxOf(c)?.waitUntil(forwardNow(c.env, { id, source }, "redeliver"));
  return c.json(r.event, 202);
};

export const redeliverFailedWebhookEvents: RouteHandler<typeof routes.redeliverFailedWebhookEvents, AppEnv> = async (c) => {
  const { source } = c.req.valid("param");
  const b = c.req.valid("json");
  const audit = auditEntry(c.var.caller, c.env ?? {}, "webhooks.events.redeliver", source, { since: b.since, until: b.until, limit: b.limit });
  const r = await sql.redeliverFailed(c.var.db, source, b.since, b.until, b.limit, audit);
  if (!r) throw unknownSource(source);
  if (!r.forwarding)
    throw problem("conflict", `Source ${JSON.stringify(source)} does not forward: set its forward with PUT /v1/webhooks/sources/${source}.`, {
      reason: "not-forwarding",
    });
  if (r.redelivered > 0 && c.env) executionCtxOf(c)?.waitUntil(forwardNow(c.env, { source }, "redeliver"));
  return c.json({ redelivered: r.redelivered, more: r.more }, 202);
};
