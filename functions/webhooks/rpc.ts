// The webhook queue's methods of Admit's RPC entrypoint (claimWebhookEvents and ackWebhookEvent;
// composed in functions/http/rpc/): functions of (database handle, bindings, input), so they run in
// Node as in workerd. Input is validated with the HTTP routes' own schemas (the same rules and 422
// `errors`); the work is this folder's sql.ts, as in the handlers, whose not-found problems it
// shares. A refusal is a value (`{ acked: false, state }`); what the route answers with any other
// problem (422, 404, 503, 504) is thrown as a ProblemError, which the entrypoint returns as `{
// error }`. docs/rpc.md documents them.
import type { RequestDb as Db } from "../core/db";
import type { Bindings } from "../core/env";
import { bodyOf, isUuid, validInput } from "../core/validation";
import { eventNotFound, unknownSource } from "./handlers";
import * as routes from "./routes";
import * as schemas from "./schemas";
import * as sql from "./sql";

export async function claimWebhookEvents(
  db: Db,
  input: { source: string; limit?: number; visibility_ms?: number },
): Promise<{ events: sql.ClaimedEventRow[] }> {
  const { param: p, json: b } = validInput(input, routes.claimWebhookEvents.request.params, schemas.ClaimBody);
  const r = await sql.claimWebhookEvents(db, p.source, b.limit, b.visibility_ms);
  if (!r) throw unknownSource(p.source);
  return r;
}

export async function ackWebhookEvent(
  db: Db,
  input: { source: string; id: string; receipt: string },
): Promise<({ acked: true } & sql.WebhookEventRow) | ({ acked: false } & Omit<sql.NotCurrent, "status">)> {
  const { param, json } = validInput(input, routes.ackWebhookEvent.request.params, bodyOf(routes.ackWebhookEvent));
  const { source, id } = param;
  const { receipt } = json;
  if (!isUuid(id)) throw eventNotFound(source, id);
  const r = await sql.ackWebhookEvent(db, source, id, receipt);
  if (!r) throw eventNotFound(source, id);
  if (r.status === "not_current") {
    const { status: _s, ...rest } = r as sql.NotCurrent;
    return { acked: false, ...rest };
  }
  return { acked: true, ...(r as sql.WebhookEventRow) };
}

/** This capability's methods of the entrypoint. */
export const RPC = {
  claimWebhookEvents: (db: Db, _env: Bindings, input: Parameters<typeof claimWebhookEvents>[1]) => claimWebhookEvents(db, input),
  ackWebhookEvent: (db: Db, _env: Bindings, input: Parameters<typeof ackWebhookEvent>[1]) => ackWebhookEvent(db, input),
};
