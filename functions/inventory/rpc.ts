// Inventory's methods of Admit's RPC entrypoint (book, confirmBooking and cancelBooking; composed
// in functions/http/rpc/): functions of (database handle, bindings, input), so they run in Node as
// in workerd. Input is validated with the HTTP routes' own schemas (the same rules and 422
// `errors`); the work is this folder's sql.ts, as in the handlers, whose not-found problems it
// shares. A refusal is a value (`{ created: false, short }`, `confirmed: false`); what the route
// answers with any other problem (422, 404, 503, 504) is thrown as a ProblemError, which the
// entrypoint returns as `{ error }`. docs/rpc.md documents them.
import type { RequestDb as Db } from "../core/db";
import type { Bindings } from "../core/env";
import { bodyOf, validInput } from "../core/validation";
import { bookingNotFound, validId } from "./handlers";
import * as routes from "./routes";
import * as sql from "./sql";

export type BookInput = { item: string; check_in: string; check_out: string; quantity: number; holder: string; hold_ms?: number };
export type BookAnswer = ({ created: true } & sql.BookingRow) | { created: false; short: { date: string; available: number }[] };

export async function book(db: Db, input: BookInput): Promise<BookAnswer> {
  const { param: p, json: b } = validInput(input, routes.createBooking.request.params, bodyOf(routes.createBooking));
  const r = await sql.book(db, p.item, { checkIn: b.check_in, checkOut: b.check_out, quantity: b.quantity, holder: b.holder, holdMs: b.hold_ms });
  return r.created ? { created: true, ...r.booking } : { created: false, short: r.short };
}

export async function confirmBooking(
  db: Db,
  input: { item: string; id: string },
): Promise<({ confirmed: true } & sql.BookingRow) | { confirmed: false; state: "expired" | "cancelled"; booking: sql.BookingRow }> {
  const { item, id } = validInput(input, routes.confirmBooking.request.params).param;
  const r = await sql.confirm(db, item, validId(item, id));
  if (r.result === "not_found" || !r.booking) throw bookingNotFound(item, id);
  if (r.result === "expired" || r.result === "cancelled") return { confirmed: false, state: r.result, booking: r.booking };
  return { confirmed: true, ...r.booking };
}

export async function cancelBooking(db: Db, input: { item: string; id: string }): Promise<{ cancelled: true } & sql.BookingRow> {
  const { item, id } = validInput(input, routes.cancelBooking.request.params).param;
  const r = await sql.cancel(db, item, validId(item, id));
  if (!r) throw bookingNotFound(item, id);
  return { cancelled: true, ...r };
}

/** This capability's methods of the entrypoint. */
export const RPC = {
  book: (db: Db, _env: Bindings, input: BookInput) => book(db, input),
  confirmBooking: (db: Db, _env: Bindings, input: Parameters<typeof confirmBooking>[1]) => confirmBooking(db, input),
  cancelBooking: (db: Db, _env: Bindings, input: Parameters<typeof cancelBooking>[1]) => cancelBooking(db, input),
};
