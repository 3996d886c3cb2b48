// Reservations' HTTP contract: the request and response schemas and one route per operation.

import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../core/context";
import { ProblemSchema, problemResponses } from "../core/openapi";
import { fromBody, fromParam, fromQuery, type NameSource, type RawInput, scoped } from "../core/scopes";
import { Cursor, isLater, isUuid, jsonObject, MAX_LIST_PAGE, name, Rfc3339 } from "../core/validation";
import { reservationNotFound } from "./problems";
import { getReservation as getReservationRow } from "./sql";

/**
 * A reservation's metadata, as canonical JSON: a bound for RPC, which has no body limit, and well
 * above what an HTTP body of 64 KiB carries (numbers written as 1e5 grow when written out).
 */
const MAX_METADATA_BYTES = 256 * 1024;

export const MAX_AVAILABILITY_DAYS = 366;
/** The most reservations one availability answer covers (default 1 000); a window holding more is answered in parts. */
export const MAX_AVAILABILITY_LIMIT = 10_000;

const Interval = z.object({ start: z.string().openapi({ format: "date-time" }), end: z.string().openapi({ format: "date-time" }) }).openapi("Interval");
const Availability = z
  .object({
    resource: z.string(),
    from: z.string(),
    to: z.string().openapi({ description: "The end of what this answer covers: the window's end, or where `next_from` starts" }),
    free: z.array(Interval),
    busy: z.array(Interval),
    next_from: z.string().optional().openapi({
      format: "date-time",
      description: "Present when the window holds more than `limit` reservations: the answer stops here (`to`); ask again with `from` set to it for the rest",
    }),
  })
  .openapi("Availability");

export const Reservation = z
  .object({
    id: z.uuid(),
    resource: z.string(),
    holder: z.string(),
    start: z.string().openapi({ format: "date-time", description: "Inclusive, UTC" }),
    end: z.string().openapi({ format: "date-time", description: "Exclusive, UTC" }),
    metadata: z.record(z.string(), z.unknown()).nullable(),
    status: z.enum(["active", "cancelled"]),
    created_at: z.string().openapi({ format: "date-time" }),
    cancelled_at: z.string().nullable().openapi({ format: "date-time" }),
  })
  .openapi("Reservation");

const Conflict = z.object({ id: z.uuid(), holder: z.string(), start: z.string(), end: z.string() }).openapi("ReservationConflictItem");

const ConflictProblem = ProblemSchema.extend({ conflicts: z.array(Conflict) }).openapi("ReservationConflict");

const CreateBody = z
  .strictObject({
    resource: name(200, { segment: true }).openapi({
      example: "223/345",
      description: "What is reserved (e.g. datacenter/server). 1–200 characters, matched verbatim.",
    }),
    holder: name().openapi({ example: "user-3126", description: "Who holds it. 1–200 characters." }),
    start: Rfc3339,
    end: Rfc3339,
    metadata: jsonObject(MAX_METADATA_BYTES)
      .optional()
      .openapi({ description: `Any JSON object, stored and returned as is; at most ${MAX_METADATA_BYTES} bytes as JSON.` }),
  })
  .refine((b) => isLater(b.end, b.start), { path: ["end"], message: "end must be after start (intervals are half-open [start, end))" })
  .openapi("NewReservation");

const ListQuery = z
  .object({
    resource: name(200, { segment: true }).openapi({ param: { name: "resource", in: "query" }, example: "223/345" }),
    from: Rfc3339.optional().openapi({ param: { name: "from", in: "query" }, description: "Window start (inclusive); omitted = unbounded" }),
    to: Rfc3339.optional().openapi({ param: { name: "to", in: "query" }, description: "Window end (exclusive); omitted = unbounded" }),
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(MAX_LIST_PAGE)
      .default(MAX_LIST_PAGE)
      .openapi({ param: { name: "limit", in: "query" }, description: "Page size, 1–1000 (default 1000)" }),
    cursor: Cursor.optional(),
    include_cancelled: z
      .enum(["true", "false"])
      .default("false")
      .transform((v) => v === "true")
      .openapi({ param: { name: "include_cancelled", in: "query" }, description: "`true`: cancelled reservations too (`status: cancelled`, the history)" }),
  })
  .refine((q) => !q.from || !q.to || isLater(q.to, q.from), { path: ["to"], message: "to must be after from" });

const IdParam = z.object({ id: z.string().openapi({ param: { name: "id", in: "path" }, example: "0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e" }) });

const AvailabilityParams = z.object({ resource: name(200, { segment: true }).openapi({ param: { name: "resource", in: "path" }, example: "223/345" }) });
const AvailabilityQuery = z
  .object({
    from: Rfc3339.openapi({ param: { name: "from", in: "query" } }),
    to: Rfc3339.openapi({ param: { name: "to", in: "query" } }),
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(MAX_AVAILABILITY_LIMIT)
      .default(1000)
      .openapi({
        param: { name: "limit", in: "query" },
        description: `The most reservations one answer covers, 1–${MAX_AVAILABILITY_LIMIT} (default 1000); past them the answer stops and gives \`next_from\``,
      }),
  })
  .refine((q) => isLater(q.to, q.from), { path: ["to"], message: "to must be after from" })
  .refine((q) => Date.parse(q.to) - Date.parse(q.from) <= MAX_AVAILABILITY_DAYS * 86_400_000, {
    path: ["to"],
    message: `the window may span at most ${MAX_AVAILABILITY_DAYS} days`,
  });

/**
 * The resource of the reservation a path id names, for a key bounded by name patterns (one read,
 * only for such keys); none for an id that names nothing (the route answers 404).
 */
const resourceOfId: NameSource = Object.assign(
  async (i: RawInput, c: Context<AppEnv>): Promise<string[]> => {
    const id = i.param.id;
    if (!id || !isUuid(id)) return [];
    const r = await getReservationRow(c.var.db, id);
    return r ? [r.resource] : [];
  },
  { what: "the resource of the reservation {id} (read first, for a key with name patterns only; outside them: 404, as an unknown id)" },
);

export const createReservation = scoped(
  { area: "reservations", access: "decide", names: fromBody("resource") },
  createRoute({
    method: "post",
    path: "/v1/reservations",
    operationId: "createReservation",
    tags: ["Reservations"],
    summary: "Reserve a resource for [start, end)",
    description:
      "Atomically checks for overlap and inserts, under `pg_advisory_xact_lock(fnv64('reservation/' + resource))`, backed by an `EXCLUDE` constraint. Back-to-back intervals do not overlap.",
    request: { body: { required: true, content: { "application/json": { schema: CreateBody } } } },
    responses: {
      201: { description: "Reserved", content: { "application/json": { schema: Reservation } } },
      409: {
        description: "Overlaps active reservations (listed in `conflicts`); nothing was written",
        content: { "application/problem+json": { schema: ConflictProblem } },
      },
      ...problemResponses(400, 401, 413, 415, 422, 503, 504),
    },
  }),
);

export const listReservations = scoped(
  { area: "reservations", access: "read", names: fromQuery("resource"), list: "resource" },
  createRoute({
    method: "get",
    path: "/v1/reservations",
    operationId: "listReservations",
    tags: ["Reservations"],
    summary: "List a resource's reservations in a range",
    description:
      "Ordered by start. Up to `limit` (default and max 1000) per page, fewer when their JSON passes about 2 MiB (large `metadata`); follow `next_cursor` for more.",
    request: { query: ListQuery },
    responses: {
      200: {
        description: "A page of reservations",
        content: { "application/json": { schema: z.object({ items: z.array(Reservation), next_cursor: z.string().nullable() }) } },
      },
      ...problemResponses(401, 422, 503),
    },
  }),
);

export const getReservation = scoped(
  { area: "reservations", access: "read", names: resourceOfId, hidden: (i) => reservationNotFound(i.param.id ?? "") },
  createRoute({
    method: "get",
    path: "/v1/reservations/{id}",
    operationId: "getReservation",
    tags: ["Reservations"],
    summary: "Get a reservation (active or cancelled)",
    request: { params: IdParam },
    responses: {
      200: { description: "The reservation", content: { "application/json": { schema: Reservation } } },
      ...problemResponses(401, 404, 503),
    },
  }),
);

export const cancelReservation = scoped(
  { area: "reservations", access: "decide", names: resourceOfId, hidden: (i) => reservationNotFound(i.param.id ?? "") },
  createRoute({
    method: "delete",
    path: "/v1/reservations/{id}",
    operationId: "cancelReservation",
    tags: ["Reservations"],
    summary: "Cancel a reservation",
    description: "The reservation is kept as history with `cancelled_at`; its time is free at once. Cancelling again is a no-op (204).",
    request: { params: IdParam },
    responses: {
      204: { description: "Cancelled" },
      ...problemResponses(401, 404, 503, 504),
    },
  }),
);

export const getResourceAvailability = scoped(
  { area: "reservations", access: "read", names: fromParam("resource") },
  createRoute({
    method: "get",
    path: "/v1/resources/{resource}/availability",
    operationId: "getResourceAvailability",
    tags: ["Reservations"],
    summary: "Free and busy times of a resource",
    description: `The window may span at most ${MAX_AVAILABILITY_DAYS} days. An answer covers at most \`limit\` reservations: past them it stops at the next one's start (\`to\`) and gives \`next_from\`, where to ask again. Encode \`/\` in the resource as \`%2F\`.`,
    request: { params: AvailabilityParams, query: AvailabilityQuery },
    responses: {
      200: {
        description: "Free and busy intervals, in order, clipped to the window",
        content: {
          "application/json": {
            schema: Availability,
          },
        },
      },
      ...problemResponses(401, 422, 503),
    },
  }),
);
