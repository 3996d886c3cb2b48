// Reservations. SQL (schema/current/reservations.sql): one typed wrapper per admit_* function.
// The only file in functions/ that names them.
import { batchParams, Coalescer } from "../core/coalesce";
import type { Queryable } from "../core/db";
import { lockKey } from "../core/lock-keys";
import { MAX_PAGE_BYTES } from "../core/validation";

/** The statement behind reserve(); the bench replays it as is. */
export const RESERVE_SQL = "SELECT admit_reserve($1::bigint, $2, $3, $4::timestamptz, $5::timestamptz, $6::jsonb, $7::integer) AS r";

/** A reservation as the SQL functions return it (timestamps already RFC 3339, UTC). */
export interface ReservationRow {
  id: string;
  resource: string;
  holder: string;
  start: string;
  end: string;
  metadata: Record<string, unknown> | null;
  status: "active" | "cancelled";
  created_at: string;
  cancelled_at: string | null;
}

/** An active reservation that a new one would overlap. */
export interface ReservationConflict {
  id: string;
  holder: string;
  start: string;
  end: string;
}

export type ReserveResult = { created: true; reservation: ReservationRow } | { created: false; conflicts: ReservationConflict[] };

export interface ResourceAvailability {
  resource: string;
  from: string;
  to: string;
  free: { start: string; end: string }[];
  busy: { start: string; end: string }[];
  /** Present when the window held more than `limit` reservations: this answer stops there (`to`). */
  next_from?: string;
}

export interface NewReservation {
  resource: string;
  holder: string;
  start: string;
  end: string;
  metadata?: Record<string, unknown>;
}

/** The one statement of the reservations that were in flight together (functions/core/coalesce/; 000102). */
export const RESERVE_BATCH_SQL = "SELECT admit_reserve_batch($1::jsonb, $2::integer) AS r";

const reservations = new Coalescer<NewReservation & { key: string; lockTimeoutMs: number }, ReserveResult>({
  alone: async (db, r, withinMs) => {
    const [{ r: result }] = await db.query<{ r: ReserveResult }>(
      RESERVE_SQL,
      [r.key, r.resource, r.holder, r.start, r.end, r.metadata === undefined ? null : JSON.stringify(r.metadata), r.lockTimeoutMs],
      { write: true, withinMs },
    );
    return result;
  },
  together: async (db, items, withinMs) => {
    const [{ r }] = await db.query<{ r: ReserveResult[] }>(RESERVE_BATCH_SQL, batchParams(items), { write: true, withinMs });
    return r;
  },
  // One advisory lock per resource: reservations of one resource keep their order.
  group: (r) => r.key,
  exclusive: () => false,
  write: () => true,
});

/** What this isolate's reservation coalescer has done (tests, the bench). */
export const reserveCoalescing = reservations.stats;

/** Checks for overlap and inserts under the resource's advisory lock (waiting at most db.lockTimeoutMs for it). */
export async function reserve(db: Queryable, r: NewReservation): Promise<ReserveResult> {
  return reservations.run(db, { ...r, key: lockKey("reservation", r.resource), lockTimeoutMs: db.lockTimeoutMs });
}

export interface ListWindow {
  resource: string;
  from?: string;
  to?: string;
  /** Keyset position: the start and id of the previous page's last item. */
  after?: { start: string; id: string };
  limit: number;
  /** Cancelled ones too (the history), not only the active ones. */
  includeCancelled?: boolean;
}

/** A resource's reservations in a window, ordered by (start, id): up to limit + 1, so the caller can tell whether another page follows. */
export async function listReservations(db: Queryable, w: ListWindow): Promise<{ items: ReservationRow[]; more: boolean }> {
  const [{ page }] = await db.query<{ page: { items: ReservationRow[]; more: boolean } }>(
    w.includeCancelled
      ? "SELECT admit_list_reservations_history($1, $2::timestamptz, $3::timestamptz, $4::timestamptz, $5::uuid, $6::integer, $7::integer) AS page"
      : "SELECT admit_list_reservations($1, $2::timestamptz, $3::timestamptz, $4::timestamptz, $5::uuid, $6::integer, $7::integer) AS page",
    [w.resource, w.from ?? null, w.to ?? null, w.after?.start ?? null, w.after?.id ?? null, w.limit, MAX_PAGE_BYTES],
  );
  return page;
}

/** The reservation with this id (a UUID), active or cancelled; null if there is none. */
export async function getReservation(db: Queryable, id: string): Promise<ReservationRow | null> {
  const [{ r }] = await db.query<{ r: ReservationRow | null }>("SELECT admit_get_reservation($1::uuid) AS r", [id]);
  return r;
}

/** Cancels it (again is a no-op) and returns it; null if there is none. */
export async function cancelReservation(db: Queryable, id: string): Promise<ReservationRow | null> {
  const [{ r }] = await db.query<{ r: ReservationRow | null }>("SELECT admit_cancel_reservation($1::uuid) AS r", [id], { write: true });
  return r;
}

/** Free and busy intervals of a resource within [from, to), in order, clipped to the window, covering at most `limit` reservations. */
export async function resourceAvailability(db: Queryable, resource: string, from: string, to: string, limit: number): Promise<ResourceAvailability> {
  const [{ a }] = await db.query<{ a: ResourceAvailability }>("SELECT admit_resource_availability($1, $2::timestamptz, $3::timestamptz, $4::integer) AS a", [
    resource,
    from,
    to,
    limit,
  ]);
  return a;
}
