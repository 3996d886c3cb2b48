// Reservations: a resource held for a half-open time range [start, end), never two at once.
// SQL: schema/current/reservations.sql. Tests: test/reservations/. Docs: docs/reservations.md.
import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../core/context";
import { validationHook } from "../core/validation";
import * as handlers from "./handlers";
import * as routes from "./routes";

export { Reservation } from "./routes";
export { RESERVE_SQL } from "./sql";

export const reservations = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  .openapi(routes.createReservation, handlers.createReservation)
  .openapi(routes.listReservations, handlers.listReservations)
  .openapi(routes.getReservation, handlers.getReservation)
  .openapi(routes.cancelReservation, handlers.cancelReservation)
  .openapi(routes.getResourceAvailability, handlers.getResourceAvailability);
export { RESERVATION_EXAMPLES } from "./examples";
export { RPC } from "./rpc";
