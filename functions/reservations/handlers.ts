// Reservations' handlers: validated input → sql.ts → response or problem.
import type { RouteHandler } from "@hono/zod-openapi";
import type { AppEnv } from "../core/context";
import { problem } from "../core/errors";
import { cutPage, decodeCursor, encodeCursor, isInstant, isUuid } from "../core/validation";
import { reservationNotFound } from "./problems";
import type * as routes from "./routes";
import * as sql from "./sql";

/** Cursor = base64url("start|id") of the last item of the previous page. */
export const createReservation: RouteHandler<typeof routes.createReservation, AppEnv> = async (c) => {
  const body = c.req.valid("json");
  const r = await sql.reserve(c.var.db, body);
  if (!r.created) {
    throw problem("reservation-conflict", `${JSON.stringify(body.resource)} is already reserved during part of [${body.start}, ${body.end}).`, {
      conflicts: r.conflicts,
    });
  }
  return c.json(r.reservation, 201, { Location: `/v1/reservations/${r.reservation.id}` });
};

/** A reservations page's cursor: the last item's start and id. */
function cursorAfter(cursor: string): { start: string; id: string } {
  const [start, id] = decodeCursor(cursor, ([start, id, ...rest]) => rest.length === 0 && isUuid(id ?? "") && isInstant(start));
  return { start, id };
}

export const listReservations: RouteHandler<typeof routes.listReservations, AppEnv> = async (c) => {
  const q = c.req.valid("query");
  const after = q.cursor ? cursorAfter(q.cursor) : undefined;
  const page = await sql.listReservations(c.var.db, {
    resource: q.resource,
    from: q.from,
    to: q.to,
    after,
    limit: q.limit,
    includeCancelled: q.include_cancelled,
  });
  return c.json(
    cutPage(page, (r) => encodeCursor([r.start, r.id])),
    200,
  );
};

export const getReservation: RouteHandler<typeof routes.getReservation, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  if (!isUuid(id)) throw reservationNotFound(id);
  const r = await sql.getReservation(c.var.db, id);
  if (!r) throw reservationNotFound(id);
  return c.json(r, 200);
};

export const cancelReservation: RouteHandler<typeof routes.cancelReservation, AppEnv> = async (c) => {
  const { id } = c.req.valid("param");
  if (!isUuid(id)) throw reservationNotFound(id);
  const r = await sql.cancelReservation(c.var.db, id);
  if (!r) throw reservationNotFound(id);
  return c.body(null, 204);
};

export const getResourceAvailability: RouteHandler<typeof routes.getResourceAvailability, AppEnv> = async (c) => {
  const { resource } = c.req.valid("param");
  const q = c.req.valid("query");
  return c.json(await sql.resourceAvailability(c.var.db, resource, q.from, q.to, q.limit), 200);
};
