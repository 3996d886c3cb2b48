// The examples of the reservation operations in /openapi.json, by operationId
// (functions/http/examples.ts applies them to the document; test/docs/openapi.examples.test.ts checks
// each against its schema).
import { ID, NOW, type OperationExamples } from "../core/examples";

const T0 = "2030-05-01T09:00:00Z";
const T1 = "2030-05-01T10:00:00Z";
const ID2 = "7a1e5c3b-2f4d-4b8a-8c9e-6d0f1a2b3c4d";

const reservation = {
  id: ID,
  resource: "223/345",
  holder: "alice",
  start: T0,
  end: T1,
  metadata: { purpose: "weekly planning" },
  status: "active",
  created_at: NOW,
  cancelled_at: null,
};

export const RESERVATION_EXAMPLES: Record<string, OperationExamples> = {
  createReservation: {
    request: { resource: "223/345", holder: "alice", start: T0, end: T1, metadata: { purpose: "weekly planning" } },
    responses: { 201: reservation },
    problems: {
      409: {
        type: "/problems/reservation-conflict",
        title: "Reservation overlaps",
        detail: '"223/345" is already reserved during part of [2030-05-01T09:00:00Z, 2030-05-01T10:00:00Z).',
        conflicts: [{ id: ID2, holder: "bob", start: "2030-05-01T09:30:00Z", end: "2030-05-01T11:00:00Z" }],
      },
    },
  },
  listReservations: {
    params: { from: "2030-05-01T00:00:00Z", to: "2030-05-02T00:00:00Z", include_cancelled: "false" },
    responses: { 200: { items: [reservation], next_cursor: null } },
  },
  getReservation: { responses: { 200: reservation }, problems: { 404: { detail: `No reservation ${ID}.` } } },
  cancelReservation: { responses: {}, problems: { 404: { detail: `No reservation ${ID}.` } } },
  getResourceAvailability: {
    params: { from: "2030-05-01T08:00:00Z", to: "2030-05-01T12:00:00Z" },
    responses: {
      200: {
        resource: "223/345",
        from: "2030-05-01T08:00:00Z",
        to: "2030-05-01T12:00:00Z",
        free: [
          { start: "2030-05-01T08:00:00Z", end: T0 },
          { start: T1, end: "2030-05-01T12:00:00Z" },
        ],
        busy: [{ start: T0, end: T1 }],
      },
    },
  },
};
