// Inventory's SQL (schema/current/inventory.sql): one typed wrapper per admit_inventory_* function
// the routes call. The only
// file in functions/ that names them. Calls that take row locks wait at most db.lockTimeoutMs for them.
import { type AuditEntry, audited } from "../core/audit";
import { batchParams, Coalescer, MAX_IN_FLIGHT, stallMs } from "../core/coalesce";
import type { Queryable } from "../core/db";

export type BookingStatus = "held" | "confirmed" | "cancelled" | "expired";

/** A booking or hold as the SQL functions return it (dates YYYY-MM-DD, timestamps RFC 3339). */
export interface BookingRow {
  booking_id: string;
  item: string;
  holder: string;
  check_in: string;
  check_out: string;
  quantity: number;
  status: BookingStatus;
  expires_at: string | null;
  created_at: string;
  confirmed_at: string | null;
  cancelled_at: string | null;
}

/** One night of an item; a night without stock is all zeros. */
export interface NightRow {
  date: string;
  capacity: number;
  booked: number;
  held: number;
  available: number;
}

/** A night whose booked + held exceeds the capacity asked for. */
export interface NightBelowTaken {
  date: string;
  capacity: number;
  booked: number;
  held: number;
}

export type SetStockResult =
  | { ok: true; too_large?: false; nights: NightRow[] }
  | { ok: false; too_large?: false; nights: NightBelowTaken[] }
  /** The call would change more room-nights than the function allows (`limit`); nothing changed. */
  | { ok: false; too_large: true; limit: number; rooms_changed: number };

export type BookResult = { created: true; booking: BookingRow } | { created: false; short: { date: string; available: number }[] };

export type ConfirmResult = { result: "not_found"; booking: null } | { result: Exclude<BookingStatus, "held">; booking: BookingRow };

export interface Stay {
  checkIn: string;
  checkOut: string;
  quantity: number;
  holder: string;
  /** Hold instead of confirming, for this long on the database clock. */
  holdMs?: number;
}

/** Sets capacity on every night of [from, to), all or nothing. */
export async function setStock(db: Queryable, item: string, from: string, to: string, quantity: number, audit: AuditEntry): Promise<SetStockResult> {
  const q = audited(
    "SELECT admit_inventory_set_stock($1, $2::date, $3::date, $4::integer, $5::integer) AS r",
    [item, from, to, quantity, db.lockTimeoutMs],
    "(c.r->>'ok')::boolean",
    audit,
  );
  const [{ r }] = await db.query<{ r: SetStockResult }>(q.text, q.params, { write: true });
  return r;
}

/** Every night of [from, to), in order. */
export async function availability(db: Queryable, item: string, from: string, to: string): Promise<NightRow[]> {
  const [{ nights }] = await db.query<{ nights: NightRow[] }>("SELECT admit_inventory_availability($1, $2::date, $3::date) AS nights", [item, from, to]);
  return nights;
}

export const BOOK_SQL = "SELECT admit_inventory_book($1, $2::date, $3::date, $4::integer, $5, $6::integer, $7::integer) AS r";
/** The one statement of the bookings that were in flight together (functions/core/coalesce/; 000106). */
export const BOOK_BATCH_SQL = "SELECT admit_inventory_book_batch($1::jsonb, $2::integer) AS r";
/**
 * The most bookings in one statement. A booking made leaves one subtransaction xid (its claim's; a
 * claim that came up short was rolled back and leaves none), and past 64 in one transaction other
 * backends' snapshots look them up in pg_subtrans (000106): 32 stays well under it. Twice 16: at 64
 * clients on one night every batch of 16 was full and the Worker paid a statement per 16 bookings;
 * with 32 the clients fall into two halves that alternate (one answered while the other is in
 * Postgres), and 64 measured the same 0.033 statements per booking (docs/performance.md).
 */
export const MAX_BOOKING_BATCH = 32;

interface BookItem {
  item: string;
  check_in: string;
  check_out: string;
  quantity: number;
  holder: string;
  hold_ms: number | null;
  lockTimeoutMs: number;
}

const bookings = new Coalescer<BookItem, BookResult>(
  {
    alone: async (db, b, withinMs) => {
      const [{ r }] = await db.query<{ r: BookResult }>(BOOK_SQL, [b.item, b.check_in, b.check_out, b.quantity, b.holder, b.hold_ms, b.lockTimeoutMs], {
        write: true,
        withinMs,
      });
      return r;
    },
    together: async (db, items, withinMs) => {
      const [{ r }] = await db.query<{ r: BookResult[] }>(BOOK_BATCH_SQL, batchParams(items), { write: true, withinMs });
      return r;
    },
    // Bookings of one item keep their arrival order (a batch decides every item in arrival order).
    group: (b) => b.item,
    exclusive: () => false,
    write: () => true,
  },
  { inFlight: MAX_IN_FLIGHT, batch: MAX_BOOKING_BATCH, stallMs },
);

/** What this isolate's booking coalescer has done (tests, the bench). */
export const bookCoalescing = bookings.stats;

/** Takes `quantity` rooms on every night of the stay, or none (listing the short nights). */
export async function book(db: Queryable, item: string, s: Stay): Promise<BookResult> {
  return bookings.run(db, {
    item,
    check_in: s.checkIn,
    check_out: s.checkOut,
    quantity: s.quantity,
    holder: s.holder,
    hold_ms: s.holdMs ?? null,
    lockTimeoutMs: db.lockTimeoutMs,
  });
}

/** Confirms a hold that has not expired; otherwise says what the booking is now. `id` must be a UUID. */
export async function confirm(db: Queryable, item: string, id: string): Promise<ConfirmResult> {
  const [{ r }] = await db.query<{ r: ConfirmResult }>("SELECT admit_inventory_confirm($1, $2::uuid, $3::integer) AS r", [item, id, db.lockTimeoutMs], {
    write: true,
  });
  return r;
}

/** The booking `id` (a UUID) of this item; null if there is none. */
export async function getBooking(db: Queryable, item: string, id: string): Promise<BookingRow | null> {
  const [{ r }] = await db.query<{ r: BookingRow | null }>("SELECT admit_inventory_get_booking($1, $2::uuid) AS r", [item, id]);
  return r;
}

/** Cancels it, freeing its room-nights (again is a no-op), and returns it; null if there is none. */
export async function cancel(db: Queryable, item: string, id: string): Promise<BookingRow | null> {
  const [{ r }] = await db.query<{ r: BookingRow | null }>("SELECT admit_inventory_cancel($1, $2::uuid, $3::integer) AS r", [item, id, db.lockTimeoutMs], {
    write: true,
  });
  return r;
}
