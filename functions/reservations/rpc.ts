// Reservations' methods of Admit's RPC entrypoint (reserve and cancelReservation; composed in
// functions/http/rpc/): functions of (database handle, bindings, input), so they run in Node as in
// workerd. Input is validated with the HTTP routes' own schemas (the same rules and 422 `errors`);
// the work is this folder's sql.ts, as in the handlers, whose not-found problems it shares. A
// refusal is a value (`{ created: false, conflicts }`); what the route answers with any other
// problem (422, 404, 503, 504) is thrown as a ProblemError, which the entrypoint returns as `{
// error }`. docs/rpc.md documents them.
import type { RequestDb as Db } from "../core/db";
import type { Bindings } from "../core/env";
import { bodyOf, isUuid, valid, validInput } from "../core/validation";
import { reservationNotFound } from "./problems";
import * as routes from "./routes";
import * as sql from "./sql";

export type ReserveInput = { resource: string; holder: string; start: string; end: string; metadata?: Record<string, unknown> };
export type ReserveAnswer = ({ created: true } & sql.ReservationRow) | { created: false; conflicts: sql.ReservationConflict[] };

export async function reserve(db: Db, input: ReserveInput): Promise<ReserveAnswer> {
  const b = valid(bodyOf(routes.createReservation), input, "json");
  const r = await sql.reserve(db, b);
  return r.created ? { created: true, ...r.reservation } : { created: false, conflicts: r.conflicts };
}

export async function cancelReservation(db: Db, input: { id: string }): Promise<{ cancelled: true } & sql.ReservationRow> {
  const { id } = validInput(input, routes.cancelReservation.request.params).param;
  const r = isUuid(id) ? await sql.cancelReservation(db, id) : null;
  if (!r) throw reservationNotFound(id);
  return { cancelled: true, ...r };
}

/** This capability's methods of the entrypoint. */
export const RPC = {
  reserve: (db: Db, _env: Bindings, input: ReserveInput) => reserve(db, input),
  cancelReservation: (db: Db, _env: Bindings, input: { id: string }) => cancelReservation(db, input),
};
