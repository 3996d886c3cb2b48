// Inventory: rooms per night, multi-night bookings all-or-nothing, expiring holds.
// SQL: schema/current/inventory.sql. Tests: test/inventory/. Design measurement: bench/inventory-designs.ts.
import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../core/context";
import { validationHook } from "../core/validation";
import * as handlers from "./handlers";
import * as routes from "./routes";

export { Booking, MAX_NIGHTS } from "./routes";

export const inventory = new OpenAPIHono<AppEnv>({ defaultHook: validationHook })
  .openapi(routes.putInventoryStock, handlers.putInventoryStock)
  .openapi(routes.getInventoryAvailability, handlers.getInventoryAvailability)
  .openapi(routes.createBooking, handlers.createBooking)
  .openapi(routes.confirmBooking, handlers.confirmBooking)
  .openapi(routes.getBooking, handlers.getBooking)
  .openapi(routes.cancelBooking, handlers.cancelBooking);
export { INVENTORY_EXAMPLES } from "./examples";
export { RPC } from "./rpc";
