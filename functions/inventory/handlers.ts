// Inventory's handlers: validated input → sql.ts → response or problem.

import type { RouteHandler } from "@hono/zod-openapi";
import { auditEntry } from "../core/audit";
import type { AppEnv } from "../core/context";
import { notFound, problem, validationProblem } from "../core/errors";
import { isUuid } from "../core/validation";
import type * as routes from "./routes";
import * as sql from "./sql";

export function bookingNotFound(item: string, id: string) {
  return notFound(`No booking ${JSON.stringify(id)} of ${JSON.stringify(item)}.`);
}

/** A path id that is not a UUID names no booking: 404 before the ::uuid cast could fail. */
export function validId(item: string, id: string): string {
  if (!isUuid(id)) throw bookingNotFound(item, id);
  return id;
}

export const putInventoryStock: RouteHandler<typeof routes.putInventoryStock, AppEnv> = async (c) => {
  const { item } = c.req.valid("param");
  const b = c.req.valid("json");
  const r = await sql.setStock(c.var.db, item, b.from, b.to, b.quantity, auditEntry(c.var.caller, c.env ?? {}, "inventory.stock.put", item, b));
  if (r.too_large) {
    const message = `this call would change ${r.rooms_changed} room-nights (the sum over its nights of |quantity − current capacity|); at most ${r.limit} per call (each room-night is a row): split the range`;
    throw validationProblem(`body quantity: ${message}`, [{ in: "body", path: "quantity", message }]);
  }
  if (!r.ok) {
    throw problem("stock-below-taken", `Capacity ${b.quantity} is below booked + held on ${r.nights.length} night(s); nothing changed.`, { nights: r.nights });
  }
  return c.json({ item, from: b.from, to: b.to, nights: r.nights }, 200);
};

export const getInventoryAvailability: RouteHandler<typeof routes.getInventoryAvailability, AppEnv> = async (c) => {
  const { item } = c.req.valid("param");
  const q = c.req.valid("query");
  const nights = await sql.availability(c.var.db, item, q.from, q.to);
  return c.json({ item, from: q.from, to: q.to, nights }, 200);
};

export const createBooking: RouteHandler<typeof routes.createBooking, AppEnv> = async (c) => {
  const { item } = c.req.valid("param");
  const b = c.req.valid("json");
  const r = await sql.book(c.var.db, item, { checkIn: b.check_in, checkOut: b.check_out, quantity: b.quantity, holder: b.holder, holdMs: b.hold_ms });
  if (!r.created) {
    throw problem(
      "inventory-short",
      `${b.quantity} room(s) of ${JSON.stringify(item)} are not available on ${r.short.length} night(s) of [${b.check_in}, ${b.check_out}); nothing was taken.`,
      {
        short: r.short,
      },
    );
  }
  return c.json(r.booking, 201, { Location: `/v1/inventory/${encodeURIComponent(item)}/bookings/${r.booking.booking_id}` });
};

export const confirmBooking: RouteHandler<typeof routes.confirmBooking, AppEnv> = async (c) => {
  const { item, id } = c.req.valid("param");
  const r = await sql.confirm(c.var.db, item, validId(item, id));
  if (r.result === "not_found" || !r.booking) throw bookingNotFound(item, id);
  if (r.result === "expired") {
    throw problem("hold-expired", `The hold lapsed at ${r.booking.expires_at}; its rooms are free again. Book again.`, { booking: r.booking });
  }
  if (r.result === "cancelled") {
    throw problem("booking-cancelled", `The booking was cancelled at ${r.booking.cancelled_at}.`, { booking: r.booking });
  }
  return c.json(r.booking, 200);
};

export const getBooking: RouteHandler<typeof routes.getBooking, AppEnv> = async (c) => {
  const { item, id } = c.req.valid("param");
  const r = await sql.getBooking(c.var.db, item, validId(item, id));
  if (!r) throw bookingNotFound(item, id);
  return c.json(r, 200);
};

export const cancelBooking: RouteHandler<typeof routes.cancelBooking, AppEnv> = async (c) => {
  const { item, id } = c.req.valid("param");
  const r = await sql.cancel(c.var.db, item, validId(item, id));
  if (!r) throw bookingNotFound(item, id);
  return c.body(null, 204);
};
