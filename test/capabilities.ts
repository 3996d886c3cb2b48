// One description per capability, so the fault, fuzz and model suites cover each capability the
// same way: add an entry here when a capability lands and every generic test runs against it.
import { lockKey } from "../functions/keys";

/** Runs one statement against the suite's database (through whatever path the suite trusts). */
export type Query = <R = Record<string, unknown>>(text: string, params?: unknown[]) => Promise<R[]>;

export interface HttpCall {
  method: string;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/** A pg-style client that can run statements inside a transaction it keeps open. */
export interface Holder {
  query(text: string, params?: unknown[]): Promise<unknown>;
}

export interface Capability {
  name: string;
  /**
   * A write on `key`, made unique by `tag` (stored with it, so `applied` can find it). Different
   * `slot`s of one key do not conflict with each other, only with a write of the same slot.
   */
  write(key: string, tag: string, slot?: number): HttpCall;
  /** Statuses of a write that went through. */
  ok: number[];
  /** Text the write's SQL statement contains (the bridge's statement faults match it). */
  statement: string;
  /** How many effects of the write tagged `tag` are in the database (0 or 1). */
  applied(q: Query, tag: string): Promise<number>;
  /** Queries that list violations of the capability's invariants: each must return no rows. */
  invariants: string[];
  /** Inside an open transaction on `conn`, takes what a write on `key` must wait for. */
  holdLock(conn: Holder, key: string): Promise<void>;
  /** The capability's tables (row counts must not change on a rejected request). */
  tables: string[];
  /** One valid request for each of the capability's operations: the fuzzer mutates these. */
  examples(key: string): HttpCall[];
  /** Reads by `key` (in a query string, a path segment, …) that see the write `write(key, tag, slot)`. */
  lookups(key: string, tag: string, slot: number): Array<{ call: HttpCall; found(json: any): boolean }>;
  /** The key stored with the write tagged `tag`, as the database holds it. */
  storedKey(q: Query, tag: string): Promise<string | undefined>;
}

const DAY = 86_400_000;
const BASE = Date.parse("2040-01-01T00:00:00Z");
const iso = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z");

/** Pairs of active reservations of one resource that overlap: must always be empty. */
export const RESERVATION_OVERLAPS = `
  SELECT a.id AS a, b.id AS b FROM reservations a
    JOIN reservations b ON a.resource = b.resource AND a.id < b.id AND a.during && b.during
   WHERE a.cancelled_at IS NULL AND b.cancelled_at IS NULL`;

export const reservations: Capability = {
  name: "reservations",
  write: (key, tag, slot = 0) => ({
    method: "POST",
    path: "/v1/reservations",
    body: { resource: key, holder: tag, start: iso(BASE + slot * DAY), end: iso(BASE + (slot + 1) * DAY) },
  }),
  ok: [201],
  statement: "admit_reserve",
  applied: async (q, tag) => (await q<{ n: number }>("SELECT count(*)::int AS n FROM reservations WHERE holder = $1", [tag]))[0].n,
  invariants: [RESERVATION_OVERLAPS],
  holdLock: async (conn, key) => {
    await conn.query("SELECT pg_advisory_xact_lock($1::bigint)", [lockKey("reservation", key)]);
  },
  tables: ["reservations"],
  examples: (key) => [
    { method: "POST", path: "/v1/reservations", body: { resource: key, holder: "h", start: "2041-01-01T00:00:00Z", end: "2041-01-02T00:00:00Z", metadata: { order: "A-1" } } },
    { method: "GET", path: `/v1/reservations?resource=${encodeURIComponent(key)}&from=2041-01-01T00:00:00Z&to=2041-02-01T00:00:00Z&limit=10` },
    { method: "GET", path: "/v1/reservations/0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e" },
    { method: "DELETE", path: "/v1/reservations/0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e" },
    { method: "GET", path: `/v1/resources/${encodeURIComponent(key)}/availability?from=2041-01-01T00:00:00Z&to=2041-01-10T00:00:00Z` },
  ],
  lookups: (key, tag, slot) => [
    {
      call: { method: "GET", path: `/v1/reservations?resource=${encodeURIComponent(key)}` },
      found: (json) => (json?.items ?? []).some((r: { holder: string }) => r.holder === tag),
    },
    {
      call: { method: "GET", path: `/v1/resources/${encodeURIComponent(key)}/availability?from=${iso(BASE + slot * DAY)}&to=${iso(BASE + (slot + 1) * DAY)}` },
      found: (json) => (json?.busy ?? []).length > 0,
    },
  ],
  storedKey: async (q, tag) => (await q<{ k: string }>("SELECT resource AS k FROM reservations WHERE holder = $1", [tag]))[0]?.k,
};

export const CAPABILITIES: Capability[] = [reservations];
