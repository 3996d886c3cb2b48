// The permits capability's SQL: one function per statement, naming admit_permit_*,
// admit_semaphore_*, admit_lease_*, admit_advisory_xact_lock_within and admit_generate_invoice. Lock
// keys are computed here from (kind, name). One other file calls three of these statements:
// ratelimits/sql.ts, for rateLimit({ concurrency }) — a capability imports core/ only, and those
// calls run under the check's budget (lock timeout and time limit), which these do not take.
import { type AuditEntry, audited } from "../core/audit";
import { batchParams, Coalescer } from "../core/coalesce";
import type { Queryable } from "../core/db";
import { lockKey } from "../core/lock-keys";
import { MAX_PAGE_BYTES } from "../core/validation";

export type PermitKind = "lease" | "semaphore";

/** A granted lease (a semaphore of one permit), as admit_permit_* answer it for kind "lease". */
export interface Lease {
  lease_id: string;
  key: string;
  holder: string;
  fencing_token: number;
  ttl_ms: number;
  claimed_at: string;
  expires_at: string;
}

/** A granted semaphore slot, as admit_permit_* answer it for kind "semaphore". */
export interface Permit {
  permit_id: string;
  semaphore: string;
  slot: number;
  holder: string;
  fencing_token: number;
  ttl_ms: number;
  claimed_at: string;
  expires_at: string;
}

export interface LeaseState {
  key: string;
  held: boolean;
  holder: string | null;
  fencing_token: number | null;
  claimed_at: string | null;
  expires_at: string | null;
}

export interface Semaphore {
  name: string;
  permits: number;
  default_ttl_ms: number;
  in_use: number;
  available: number;
  holders: { slot: number; holder: string; fencing_token: number; claimed_at: string; expires_at: string }[];
  /** How many holders follow the last one in `holders` (beyond the answer's bound). */
  more_holders: number;
  created_at: string;
  updated_at: string;
}

export interface Invoice {
  id: string;
  subscription_id: string;
  kind: "usage" | "recurring";
  number: number;
  work_ms: number;
  started_at: string;
  finished_at: string;
}

export type PermitOutcome<P> =
  | { status: "acquired" | "renewed"; permit: P }
  | { status: "released" }
  | { status: "busy"; permits: number; in_use: number; holder: string | null; expires_at: string; retry_after_ms: number }
  | { status: "not_current"; state: "released" | "timed_out" | "unknown"; released_at?: string | null; timed_out_at?: string | null }
  | { status: "not_found" };

export type NotCurrent = Extract<PermitOutcome<unknown>, { status: "not_current" }>;

async function permitCall<P>(db: Queryable, text: string, params: unknown[]): Promise<PermitOutcome<P>> {
  const [{ r }] = await db.query<{ r: PermitOutcome<P> }>(text, params, { write: true });
  return r;
}

/** The one statement of the acquires that were in flight together (functions/core/coalesce/; 000102). */
export const ACQUIRE_BATCH_SQL = "SELECT admit_permit_acquire_batch($1::jsonb, $2::integer) AS r";

interface AcquireItem {
  key: string;
  kind: PermitKind;
  name: string;
  holder: string;
  ttl_ms: number | null;
  lockTimeoutMs: number;
}

const acquires = new Coalescer<AcquireItem, PermitOutcome<unknown>>({
  alone: async (db, a, withinMs) => {
    const [{ r }] = await db.query<{ r: PermitOutcome<unknown> }>(
      "SELECT admit_permit_acquire($1::bigint, $2, $3, $4, $5::integer, $6::integer) AS r",
      [a.key, a.kind, a.name, a.holder, a.ttl_ms, a.lockTimeoutMs],
      { write: true, withinMs },
    );
    return r;
  },
  together: async (db, items, withinMs) => {
    const [{ r }] = await db.query<{ r: PermitOutcome<unknown>[] }>(ACQUIRE_BATCH_SQL, batchParams(items), { write: true, withinMs });
    return r;
  },
  // One advisory lock per lease or semaphore: its acquires keep their order.
  group: (a) => a.key,
  exclusive: () => false,
  write: () => true,
});

/** What this isolate's acquire coalescer has done (tests, the bench). */
export const acquireCoalescing = acquires.stats;

/** Claim the lowest free slot of `key`, or hear at once that none is free. */
export async function acquirePermit<P = unknown>(
  db: Queryable,
  kind: PermitKind,
  key: string,
  holder: string,
  ttlMs: number | undefined,
): Promise<PermitOutcome<P>> {
  return (await acquires.run(db, {
    key: lockKey(kind, key),
    kind,
    name: key,
    holder,
    ttl_ms: ttlMs ?? null,
    lockTimeoutMs: db.lockTimeoutMs,
  })) as PermitOutcome<P>;
}

/** Extend the caller's own claim `id` (owner-checked: it must be the current claim of `key`). */
export function renewPermit<P = unknown>(db: Queryable, kind: PermitKind, key: string, id: string, ttlMs: number | undefined): Promise<PermitOutcome<P>> {
  return permitCall<P>(db, "SELECT admit_permit_renew($1::bigint, $2, $3, $4::uuid, $5::integer, $6::integer) AS r", [
    lockKey(kind, key),
    kind,
    key,
    id,
    ttlMs ?? null,
    db.lockTimeoutMs,
  ]);
}

/** Give back the caller's own claim `id` (owner-checked). */
export function releasePermit(db: Queryable, kind: PermitKind, key: string, id: string): Promise<PermitOutcome<never>> {
  return permitCall<never>(db, "SELECT admit_permit_release($1::bigint, $2, $3, $4::uuid, $5::integer) AS r", [
    lockKey(kind, key),
    kind,
    key,
    id,
    db.lockTimeoutMs,
  ]);
}

/** Who holds lease `key` now; a free key answers `held: false`. */
export async function leaseState(db: Queryable, key: string): Promise<LeaseState> {
  const [{ s }] = await db.query<{ s: LeaseState }>("SELECT admit_lease_state($1) AS s", [key]);
  return s;
}

/**
 * Leases held now, by key, after `after`, optionally only keys starting with `prefix`, only those
 * matching `names` (LIKE patterns; null: all) (at most limit + 1).
 */
export async function listLeases(db: Queryable, prefix: string | null, after: string | null, limit: number, names: string[] | null): Promise<LeaseState[]> {
  const [{ items }] = await db.query<{ items: LeaseState[] }>("SELECT admit_lease_list($1, $2, $3::integer, $4::text[]) AS items", [
    prefix,
    after,
    limit,
    names,
  ]);
  return items;
}

/**
 * One page of semaphores by name after `after`, only those matching `names` (LIKE patterns; null:
 * all), each with its use and its `holders` lowest-slot holders.
 */
export async function listSemaphores(
  db: Queryable,
  after: string | null,
  limit: number,
  holders: number,
  names: string[] | null,
): Promise<{ items: Semaphore[]; more: boolean }> {
  const [{ page }] = await db.query<{ page: { items: Semaphore[]; more: boolean } }>(
    "SELECT admit_semaphore_list($1, $2::integer, $3::integer, $4::integer, $5::text[]) AS page",
    [after, limit, holders, MAX_PAGE_BYTES, names],
  );
  return page;
}

/** Create or resize semaphore `name` (`defaultTtlMs` undefined: keep its own, 60 000 for a new one); `created` tells which. */
export async function putSemaphore(
  db: Queryable,
  name: string,
  permits: number,
  defaultTtlMs: number | undefined,
  audit: AuditEntry,
): Promise<{ created: boolean; semaphore: Semaphore }> {
  const q = audited(
    "SELECT admit_semaphore_put($1::bigint, $2, $3::integer, $4::integer, false, $5::integer) AS r",
    [lockKey("semaphore", name), name, permits, defaultTtlMs ?? null, db.lockTimeoutMs],
    "true",
    audit,
  );
  const [{ r }] = await db.query<{ r: { created: boolean; semaphore: Semaphore } }>(q.text, q.params, { write: true });
  return r;
}

/** Size, use and at most `holders` holders (slots above `afterSlot`) of semaphore `name`, or null when there is none. */
export async function semaphoreState(db: Queryable, name: string, holders: number, afterSlot: number | null): Promise<Semaphore | null> {
  const [{ s }] = await db.query<{ s: Semaphore | null }>("SELECT admit_semaphore_json($1, $2::integer, $3::integer) AS s", [name, holders, afterSlot]);
  return s;
}

/** Take the in-request advisory lock of `key` for the current transaction, or false at once. */
export async function tryXactLock(db: Queryable, key: string): Promise<boolean> {
  const [{ locked }] = await db.query<{ locked: boolean }>("SELECT pg_try_advisory_xact_lock($1::bigint) AS locked", [lockKey("lock", key)]);
  return locked;
}

/** Wait up to `waitMs` for the in-request advisory lock of `key`; false when the wait runs out (the transaction stays usable). */
export async function xactLockWithin(db: Queryable, key: string, waitMs: number): Promise<boolean> {
  const [{ locked }] = await db.query<{ locked: boolean }>("SELECT admit_advisory_xact_lock_within($1::bigint, $2::integer) AS locked", [
    lockKey("lock", key),
    Math.round(waitMs),
  ]);
  return locked;
}

/** Write the next invoice of a subscription; run it under the subscription's in-request lock. */
export async function generateInvoice(db: Queryable, subscriptionId: string, kind: Invoice["kind"], workMs: number): Promise<Invoice> {
  const [{ invoice }] = await db.query<{ invoice: Invoice }>("SELECT admit_generate_invoice($1, $2, $3::integer) AS invoice", [subscriptionId, kind, workMs], {
    write: true,
  });
  return invoice;
}
