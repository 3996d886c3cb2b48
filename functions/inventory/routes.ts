// Inventory's HTTP contract: the request and response schemas and one route per operation.

import { createRoute, z } from "@hono/zod-openapi";
import { ProblemSchema, problemResponses } from "../core/openapi";
import { fromParam, scoped } from "../core/scopes";
import { name } from "../core/validation";

export const MAX_NIGHTS = 366;
/** Tokens are rows (one per room-night): capacity per night, and room-nights changed by one stock call, are bounded. */
const MAX_CAPACITY = 10_000;
/** The SQL function's bound (schema/000032): Σ over the call's nights of |new − old capacity|. */
const MAX_STOCK_ROOM_NIGHTS = 100_000;
const MAX_HOLD_MS = 86_400_000;
const DAY_MS = 86_400_000;

/** A calendar date `YYYY-MM-DD` that exists (years 0001–9999). */
const IsoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, "must be a date YYYY-MM-DD")
  .refine((s) => {
    const ms = Date.parse(s + "T00:00:00Z");
    return Number.isFinite(ms) && new Date(ms).toISOString().slice(0, 10) === s && s >= "0001-01-01";
  }, "must be a real calendar date")
  .openapi({ format: "date", example: "2030-03-29" });

const nightsBetween = (from: string, to: string) => (Date.parse(to + "T00:00:00Z") - Date.parse(from + "T00:00:00Z")) / DAY_MS;

/** Refines an object schema holding two dates: b after a and at most 366 nights apart (issues on field b). */
function dateRange<T extends z.ZodObject>(schema: T, a: string, b: string): T {
  const span = (v: Record<string, unknown>) => nightsBetween(v[a] as string, v[b] as string);
  return schema
    .refine((v) => span(v) > 0, { path: [b], message: `${b} must be after ${a} (${b} is exclusive)` })
    .refine((v) => span(v) <= MAX_NIGHTS, { path: [b], message: `at most ${MAX_NIGHTS} nights` });
}

const Night = z
  .object({
    date: z.string().openapi({ format: "date" }),
    capacity: z.number().int(),
    booked: z.number().int(),
    held: z.number().int(),
    available: z.number().int(),
  })
  .openapi("InventoryNight");
const Nights = z.object({ item: z.string(), from: z.string(), to: z.string(), nights: z.array(Night) }).openapi("InventoryNights");

export const Booking = z
  .object({
    booking_id: z.uuid(),
    item: z.string(),
    holder: z.string(),
    check_in: z.string().openapi({ format: "date" }),
    check_out: z.string().openapi({ format: "date", description: "Exclusive: the morning of departure" }),
    quantity: z.number().int(),
    status: z.enum(["held", "confirmed", "cancelled", "expired"]),
    expires_at: z.string().nullable().openapi({ format: "date-time", description: "When the hold lapses (database clock); null if booked without a hold" }),
    created_at: z.string().openapi({ format: "date-time" }),
    confirmed_at: z.string().nullable().openapi({ format: "date-time" }),
    cancelled_at: z.string().nullable().openapi({ format: "date-time" }),
  })
  .openapi("InventoryBooking");

const ShortProblem = ProblemSchema.extend({
  short: z.array(z.object({ date: z.string(), available: z.number().int() })),
}).openapi("InventoryShort");
const StockProblem = ProblemSchema.extend({
  nights: z
    .array(z.object({ date: z.string(), capacity: z.number().int(), booked: z.number().int(), held: z.number().int() }))
    .optional()
    .openapi({ description: "`stock-below-taken`: the nights that have more booked + held than `quantity`. Absent from a `concurrent-conflict`." }),
}).openapi("InventoryStockBelowTaken");
const BookingProblem = ProblemSchema.extend({ booking: Booking }).openapi("InventoryBookingConflict");

const ItemParam = z.object({ item: name(200, { segment: true }).openapi({ param: { name: "item", in: "path" }, example: "travelodge-mk/double" }) });
const BookingParams = ItemParam.extend({ id: z.string().openapi({ param: { name: "id", in: "path" }, example: "0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e" }) });

const StockBody = dateRange(
  z.strictObject({
    from: IsoDate.openapi({ description: "First night (inclusive)" }),
    to: IsoDate.openapi({ description: "Night after the last (exclusive)" }),
    quantity: z
      .number()
      .int()
      .min(0)
      .max(MAX_CAPACITY)
      .openapi({ description: `Rooms per night (capacity), 0–${MAX_CAPACITY}` }),
  }),
  "from",
  "to",
).openapi("InventoryStock");

const AvailabilityQuery = dateRange(
  z.object({
    from: IsoDate.openapi({ param: { name: "from", in: "query" } }),
    to: IsoDate.openapi({ param: { name: "to", in: "query" }, description: "Exclusive" }),
  }),
  "from",
  "to",
);

const BookBody = dateRange(
  z.strictObject({
    check_in: IsoDate,
    check_out: IsoDate.openapi({ description: "Exclusive: nights check_in … check_out − 1 are taken" }),
    quantity: z.number().int().min(1).max(MAX_CAPACITY).openapi({ description: "Rooms, taken on every night" }),
    holder: name().openapi({ example: "user-3126" }),
    hold_ms: z
      .number()
      .int()
      .min(1)
      .max(MAX_HOLD_MS)
      .optional()
      .openapi({ description: "Hold (cart) instead of confirming: the rooms are held until expires_at = now + hold_ms on the database clock" }),
  }),
  "check_in",
  "check_out",
).openapi("NewInventoryBooking");

export const putInventoryStock = scoped(
  { area: "inventory", access: "admin", names: fromParam("item") },
  createRoute({
    method: "put",
    path: "/v1/inventory/{item}/stock",
    operationId: "putInventoryStock",
    tags: ["Inventory"],
    summary: "Set nightly stock for a date range",
    description: `Up to ${MAX_NIGHTS} nights, changing at most ${MAX_STOCK_ROOM_NIGHTS} room-nights (the sum over the nights of |quantity − current capacity|; a larger change is a 422 — split the range). All or nothing: lowering any night below what is booked + held there is a 409 naming those nights, and nothing changes.`,
    request: { params: ItemParam, body: { required: true, content: { "application/json": { schema: StockBody } } } },
    responses: {
      200: { description: "The nights as they are now", content: { "application/json": { schema: Nights } } },
      409: {
        description:
          "`stock-below-taken`: some nights already have more booked + held than `quantity` (`nights`). `concurrent-conflict` (with `Retry-After`): bookings changed the same nights while stock was lowered; retry. Nothing changed either way.",
        content: { "application/problem+json": { schema: StockProblem } },
      },
      ...problemResponses(400, 401, 413, 415, 422, 503, 504),
    },
  }),
);

export const getInventoryAvailability = scoped(
  { area: "inventory", access: "read", names: fromParam("item") },
  createRoute({
    method: "get",
    path: "/v1/inventory/{item}/availability",
    operationId: "getInventoryAvailability",
    tags: ["Inventory"],
    summary: "Nightly availability of an item",
    description: `Up to ${MAX_NIGHTS} nights. \`held\` counts unexpired holds only; \`available = capacity − booked − held\`. A night without stock is all zeros.`,
    request: { params: ItemParam, query: AvailabilityQuery },
    responses: {
      200: { description: "Every night of the window, in order", content: { "application/json": { schema: Nights } } },
      ...problemResponses(401, 422, 503),
    },
  }),
);

export const createBooking = scoped(
  { area: "inventory", access: "decide", names: fromParam("item") },
  createRoute({
    method: "post",
    path: "/v1/inventory/{item}/bookings",
    operationId: "createBooking",
    tags: ["Inventory"],
    summary: "Book or hold rooms for a stay",
    description:
      "All or nothing, in one SQL call: on every night, `quantity` free rooms (never taken, or a lapsed hold) are claimed, skipping rooms other buyers hold at that moment; a night short even after waiting for those buyers is the 409, and nothing is taken. With `hold_ms` the booking is `held` until `expires_at`; confirm it before then.",
    request: { params: ItemParam, body: { required: true, content: { "application/json": { schema: BookBody } } } },
    responses: {
      201: { description: "Booked (or held)", content: { "application/json": { schema: Booking } } },
      409: {
        description: "Not enough rooms on some nights (listed in `short`; a night without stock has available 0); nothing taken",
        content: { "application/problem+json": { schema: ShortProblem } },
      },
      ...problemResponses(400, 401, 413, 415, 422, 503, 504),
    },
  }),
);

export const confirmBooking = scoped(
  { area: "inventory", access: "decide", names: fromParam("item") },
  createRoute({
    method: "post",
    path: "/v1/inventory/{item}/bookings/{id}/confirm",
    operationId: "confirmBooking",
    tags: ["Inventory"],
    summary: "Confirm a held booking before it expires",
    description:
      "Never extends the hold. After `expires_at` (database clock) → 409 `hold-expired`, and its rooms are free. Confirming a confirmed booking again → 200.",
    request: { params: BookingParams },
    responses: {
      200: { description: "Confirmed", content: { "application/json": { schema: Booking } } },
      409: {
        description: "The hold expired, or the booking was cancelled (`booking` shows it)",
        content: { "application/problem+json": { schema: BookingProblem } },
      },
      ...problemResponses(401, 404, 503, 504),
    },
  }),
);

export const getBooking = scoped(
  { area: "inventory", access: "read", names: fromParam("item") },
  createRoute({
    method: "get",
    path: "/v1/inventory/{item}/bookings/{id}",
    operationId: "getBooking",
    tags: ["Inventory"],
    summary: "Get a booking or hold",
    description: "`status` is `held`, `confirmed`, `cancelled`, or `expired` (a hold past `expires_at`).",
    request: { params: BookingParams },
    responses: {
      200: { description: "The booking", content: { "application/json": { schema: Booking } } },
      ...problemResponses(401, 404, 503),
    },
  }),
);

export const cancelBooking = scoped(
  { area: "inventory", access: "decide", names: fromParam("item") },
  createRoute({
    method: "delete",
    path: "/v1/inventory/{item}/bookings/{id}",
    operationId: "cancelBooking",
    tags: ["Inventory"],
    summary: "Cancel a booking or hold",
    description: "Its room-nights are free at once. Kept as history with `cancelled_at`; cancelling again → 204.",
    request: { params: BookingParams },
    responses: {
      204: { description: "Cancelled" },
      ...problemResponses(401, 404, 503, 504),
    },
  }),
);
