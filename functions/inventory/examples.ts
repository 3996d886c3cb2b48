// The examples of the inventory operations in /openapi.json, by operationId
// (functions/http/examples.ts applies them to the document; test/docs/openapi.examples.test.ts checks
// each against its schema).
import { ID, NOW, type OperationExamples } from "../core/examples";

const nights = (capacity: number, booked: number, held: number) => ({
  item: "travelodge-mk/double",
  from: "2030-06-01",
  to: "2030-06-03",
  nights: ["2030-06-01", "2030-06-02"].map((date) => ({ date, capacity, booked, held, available: capacity - booked - held })),
});
const booking = {
  booking_id: ID,
  item: "travelodge-mk/double",
  holder: "guest-3126",
  check_in: "2030-06-01",
  check_out: "2030-06-03",
  quantity: 2,
  status: "held",
  expires_at: "2030-04-30T12:15:00.000Z",
  created_at: NOW,
  confirmed_at: null,
  cancelled_at: null,
};

export const INVENTORY_EXAMPLES: Record<string, OperationExamples> = {
  putInventoryStock: {
    request: { from: "2030-06-01", to: "2030-06-03", quantity: 10 },
    responses: { 200: nights(10, 3, 2) },
    problems: {
      409: {
        type: "/problems/stock-below-taken",
        title: "Stock below what is taken",
        detail: "Capacity 2 is below booked + held on 1 night(s); nothing changed.",
        nights: [{ date: "2030-06-01", capacity: 2, booked: 3, held: 0 }],
      },
    },
  },
  getInventoryAvailability: { params: { from: "2030-06-01", to: "2030-06-03" }, responses: { 200: nights(10, 3, 2) } },
  createBooking: {
    request: { check_in: "2030-06-01", check_out: "2030-06-03", quantity: 2, holder: "guest-3126", hold_ms: 900000 },
    responses: { 201: booking },
    problems: {
      409: {
        type: "/problems/inventory-short",
        title: "Not enough inventory",
        detail: '2 room(s) of "travelodge-mk/double" are not available on 1 night(s) of [2030-06-01, 2030-06-03); nothing was taken.',
        short: [{ date: "2030-06-02", available: 1 }],
      },
    },
  },
  confirmBooking: {
    responses: { 200: { ...booking, status: "confirmed", expires_at: null, confirmed_at: "2030-04-30T12:05:00.000Z" } },
    problems: {
      404: { detail: `No booking "${ID}" of "travelodge-mk/double".` },
      409: {
        type: "/problems/hold-expired",
        title: "Hold expired",
        detail: "The hold lapsed at 2030-04-30T12:15:00.000Z; its rooms are free again. Book again.",
        booking: { ...booking, status: "expired" },
      },
    },
  },
  getBooking: { responses: { 200: booking }, problems: { 404: { detail: `No booking "${ID}" of "travelodge-mk/double".` } } },
  cancelBooking: { responses: {}, problems: { 404: { detail: `No booking "${ID}" of "travelodge-mk/double".` } } },
};
