// Inventory: rooms per night, multi-night bookings all-or-nothing, expiring holds (seed 003).
// SQL: schema/000030_inventory.sql. Tests: test/inventory*.test.ts. Design measurement: bench/inventory-designs.ts.
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../core/context";
import { notFound, problem, validationProblem } from "../core/errors";
import { ProblemSchema, problemResponses } from "../core/openapi";
import { name, validationHook } from "../core/validation";

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
  .object({ date: z.string().openapi({ format: "date" }), capacity: z.number().int(), booked: z.number().int(), held: z.number().int(), available: z.number().int() })
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
type BookingJson = z.infer<typeof Booking>;

const ShortProblem = ProblemSchema.extend({
  short: z.array(z.object({ date: z.string(), available: z.number().int() })),
}).openapi("InventoryShort");
const StockProblem = ProblemSchema.extend({
  nights: z.array(z.object({ date: z.string(), capacity: z.number().int(), booked: z.number().int(), held: z.number().int() })),
}).openapi("InventoryStockBelowTaken");
const BookingProblem = ProblemSchema.extend({ booking: Booking }).openapi("InventoryBookingConflict");

const ItemParam = z.object({ item: name().openapi({ param: { name: "item", in: "path" }, example: "travelodge-mk/double" }) });
const BookingParams = ItemParam.extend({ id: z.string().openapi({ param: { name: "id", in: "path" }, example: "0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e" }) });

const StockBody = dateRange(
  z.object({
    from: IsoDate.openapi({ description: "First night (inclusive)" }),
    to: IsoDate.openapi({ description: "Night after the last (exclusive)" }),
    quantity: z.number().int().min(0).max(MAX_CAPACITY).openapi({ description: `Rooms per night (capacity), 0–${MAX_CAPACITY}` }),
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
  z.object({
    check_in: IsoDate,
    check_out: IsoDate.openapi({ description: "Exclusive: nights check_in … check_out − 1 are taken" }),
    quantity: z.number().int().min(1).max(MAX_CAPACITY).openapi({ description: "Rooms, taken on every night" }),
    holder: name().openapi({ example: "user-3126" }),
    hold_ms: z.number().int().min(1).max(MAX_HOLD_MS).optional().openapi({ description: "Hold (cart) instead of confirming: the rooms are held until expires_at = now + hold_ms on the database clock" }),
  }),
  "check_in",
  "check_out",
).openapi("NewInventoryBooking");

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function bookingNotFound(item: string, id: string) {
  return notFound(`No booking ${JSON.stringify(id)} of ${JSON.stringify(item)}.`);
}

function validId(item: string, id: string): string {
  if (!UUID.test(id)) throw bookingNotFound(item, id);
  return id;
}

export const inventory = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

inventory.openapi(
  createRoute({
    method: "put",
    path: "/v1/inventory/{item}/stock",
    tags: ["Inventory"],
    summary: "Set nightly stock for a date range",
    description: `Up to ${MAX_NIGHTS} nights, changing at most ${MAX_STOCK_ROOM_NIGHTS} room-nights (the sum over the nights of |quantity − current capacity|; a larger change is a 422 — split the range). All or nothing: lowering any night below what is booked + held there is a 409 naming those nights, and nothing changes.`,
    request: { params: ItemParam, body: { required: true, content: { "application/json": { schema: StockBody } } } },
    responses: {
      200: { description: "The nights as they are now", content: { "application/json": { schema: Nights } } },
      409: { description: "Some nights already have more booked + held than `quantity`; nothing changed", content: { "application/problem+json": { schema: StockProblem } } },
      ...problemResponses(400, 401, 413, 415, 422, 503, 504),
    },
  }),
  async (c) => {
    const { item } = c.req.valid("param");
    const b = c.req.valid("json");
    const db = c.var.db;
    const [{ r }] = await db.query<{ r: { ok: boolean; nights: unknown[]; too_large?: boolean; limit?: number; rooms_changed?: number } }>(
      "SELECT admit_inventory_set_stock($1, $2::date, $3::date, $4::integer, $5::integer) AS r",
      [item, b.from, b.to, b.quantity, db.lockTimeoutMs],
      { write: true },
    );
    if (r.too_large) {
      const message = `this call would change ${r.rooms_changed} room-nights (the sum over its nights of |quantity − current capacity|); at most ${r.limit} per call (each room-night is a row): split the range`;
      throw validationProblem(`body quantity: ${message}`, [{ in: "body", path: "quantity", message }]);
    }
    if (!r.ok) {
      throw problem("stock-below-taken", `Capacity ${b.quantity} is below booked + held on ${r.nights.length} night(s); nothing changed.`, { nights: r.nights });
    }
    return c.json({ item, from: b.from, to: b.to, nights: r.nights as z.infer<typeof Night>[] }, 200);
  },
);

inventory.openapi(
  createRoute({
    method: "get",
    path: "/v1/inventory/{item}/availability",
    tags: ["Inventory"],
    summary: "Nightly availability of an item",
    description: `Up to ${MAX_NIGHTS} nights. \`held\` counts unexpired holds only; \`available = capacity − booked − held\`. A night without stock is all zeros.`,
    request: { params: ItemParam, query: AvailabilityQuery },
    responses: {
      200: { description: "Every night of the window, in order", content: { "application/json": { schema: Nights } } },
      ...problemResponses(401, 422, 503),
    },
  }),
  async (c) => {
    const { item } = c.req.valid("param");
    const q = c.req.valid("query");
    const [{ nights }] = await c.var.db.query<{ nights: z.infer<typeof Night>[] }>("SELECT admit_inventory_availability($1, $2::date, $3::date) AS nights", [item, q.from, q.to]);
    return c.json({ item, from: q.from, to: q.to, nights }, 200);
  },
);

inventory.openapi(
  createRoute({
    method: "post",
    path: "/v1/inventory/{item}/bookings",
    tags: ["Inventory"],
    summary: "Book or hold rooms for a stay",
    description:
      "All or nothing, in one SQL call: the night rows are locked in date order, expired holds on them released, every night checked, then all taken. With `hold_ms` the booking is `held` until `expires_at`; confirm it before then.",
    request: { params: ItemParam, body: { required: true, content: { "application/json": { schema: BookBody } } } },
    responses: {
      201: { description: "Booked (or held)", content: { "application/json": { schema: Booking } } },
      409: { description: "Not enough rooms on some nights (listed in `short`; a night without stock has available 0); nothing taken", content: { "application/problem+json": { schema: ShortProblem } } },
      ...problemResponses(400, 401, 413, 415, 422, 503, 504),
    },
  }),
  async (c) => {
    const { item } = c.req.valid("param");
    const b = c.req.valid("json");
    const db = c.var.db;
    const [{ r }] = await db.query<{ r: { created: true; booking: BookingJson } | { created: false; short: { date: string; available: number }[] } }>(
      "SELECT admit_inventory_book($1, $2::date, $3::date, $4::integer, $5, $6::integer, $7::integer) AS r",
      [item, b.check_in, b.check_out, b.quantity, b.holder, b.hold_ms ?? null, db.lockTimeoutMs],
      { write: true },
    );
    if (!r.created) {
      throw problem("inventory-short", `${b.quantity} room(s) of ${JSON.stringify(item)} are not available on ${r.short.length} night(s) of [${b.check_in}, ${b.check_out}); nothing was taken.`, {
        short: r.short,
      });
    }
    return c.json(r.booking, 201, { Location: `/v1/inventory/${encodeURIComponent(item)}/bookings/${r.booking.booking_id}` });
  },
);

inventory.openapi(
  createRoute({
    method: "post",
    path: "/v1/inventory/{item}/bookings/{id}/confirm",
    tags: ["Inventory"],
    summary: "Confirm a held booking before it expires",
    description: "Never extends the hold. After `expires_at` (database clock) → 409 `hold-expired`, and its rooms are free. Confirming a confirmed booking again → 200.",
    request: { params: BookingParams },
    responses: {
      200: { description: "Confirmed", content: { "application/json": { schema: Booking } } },
      409: { description: "The hold expired, or the booking was cancelled (`booking` shows it)", content: { "application/problem+json": { schema: BookingProblem } } },
      ...problemResponses(401, 404, 503, 504),
    },
  }),
  async (c) => {
    const { item, id } = c.req.valid("param");
    const db = c.var.db;
    const [{ r }] = await db.query<{ r: { result: string; booking: BookingJson | null } }>(
      "SELECT admit_inventory_confirm($1, $2::uuid, $3::integer) AS r",
      [item, validId(item, id), db.lockTimeoutMs],
      { write: true },
    );
    if (r.result === "not_found" || !r.booking) throw bookingNotFound(item, id);
    if (r.result === "expired") {
      throw problem("hold-expired", `The hold lapsed at ${r.booking.expires_at}; its rooms are free again. Book again.`, { booking: r.booking });
    }
    if (r.result === "cancelled") {
      throw problem("booking-cancelled", `The booking was cancelled at ${r.booking.cancelled_at}.`, { booking: r.booking });
    }
    return c.json(r.booking, 200);
  },
);

inventory.openapi(
  createRoute({
    method: "get",
    path: "/v1/inventory/{item}/bookings/{id}",
    tags: ["Inventory"],
    summary: "Get a booking or hold",
    description: "`status` is `held`, `confirmed`, `cancelled`, or `expired` (a hold past `expires_at`).",
    request: { params: BookingParams },
    responses: {
      200: { description: "The booking", content: { "application/json": { schema: Booking } } },
      ...problemResponses(401, 404, 503),
    },
  }),
  async (c) => {
    const { item, id } = c.req.valid("param");
    const [{ r }] = await c.var.db.query<{ r: BookingJson | null }>("SELECT admit_inventory_get_booking($1, $2::uuid) AS r", [item, validId(item, id)]);
    if (!r) throw bookingNotFound(item, id);
    return c.json(r, 200);
  },
);

inventory.openapi(
  createRoute({
    method: "delete",
    path: "/v1/inventory/{item}/bookings/{id}",
    tags: ["Inventory"],
    summary: "Cancel a booking or hold",
    description: "Its room-nights are free at once. Kept as history with `cancelled_at`; cancelling again → 204.",
    request: { params: BookingParams },
    responses: {
      204: { description: "Cancelled" },
      ...problemResponses(401, 404, 503, 504),
    },
  }),
  async (c) => {
    const { item, id } = c.req.valid("param");
    const db = c.var.db;
    const [{ r }] = await db.query<{ r: BookingJson | null }>("SELECT admit_inventory_cancel($1, $2::uuid, $3::integer) AS r", [item, validId(item, id), db.lockTimeoutMs], { write: true });
    if (!r) throw bookingNotFound(item, id);
    return c.body(null, 204);
  },
);
