// What a request wrote: a digest of every table's logical content, taken before and after a request
// that was refused (equal means it wrote nothing), and the few writes a refusal makes by design.
import { tallyFor } from "../../../functions/core/tally";
import { bindings, sql, until } from "../../support";
import type { Operation } from "./document";
import type { Sent } from "./requests";

/** The tables a request can change: every base table of the database `db` but the metric counters. */
export async function tablesOf(db: string): Promise<string[]> {
  const rows = await sql<{ t: string }>(
    db,
    "SELECT quote_ident(table_name) AS t FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1",
  );
  // The metric counters count every answer, refusals included (docs/observability.md): no state a request changes.
  return rows.map((r) => r.t).filter((t) => !t.startsWith("metric_"));
}

/**
 * Tables compared by their logical content. Expiry is marked lazily by design — an expired claim or
 * hold is set timed out / expired by whichever request touches its key next, even one that is then
 * refused — so each row is read as if every expiry had already been marked. That view does not move
 * with the clock or with lazy marking; any real change (a claim, release, renewal, booking, confirm,
 * cancel) still shows.
 */
const LOGICAL: Record<string, string> = {
  permits: `SELECT id, kind, name, slot, holder, fencing_token, ttl_ms, claimed_at, expires_at, renewed_at, released_at,
                   coalesce(timed_out_at, CASE WHEN released_at IS NULL THEN expires_at END) AS timed_out_at FROM permits`,
  inventory_bookings: `SELECT id, item, holder, check_in, check_out, quantity, CASE WHEN status = 'held' THEN 'expired' ELSE status END AS status,
                              expires_at, created_at, confirmed_at, cancelled_at FROM inventory_bookings`,
  inventory_tokens: `SELECT id, item, night, slot, CASE WHEN held_until IS NULL THEN booking_id END AS booking_id FROM inventory_tokens`,
  // Kept from `permits` by triggers (schema/000071): in_use is derived, and the free slots read as if
  // every unfinished claim had been marked timed out (its slot free again, below the semaphore's size).
  semaphores: `SELECT name, permits, default_ttl_ms, created_at, updated_at FROM semaphores`,
  semaphore_free_slots: `SELECT name, slot FROM semaphore_free_slots
                         UNION SELECT p.name, p.slot FROM permits p JOIN semaphores s ON s.name = p.name
                          WHERE p.kind = 'semaphore' AND p.released_at IS NULL AND p.timed_out_at IS NULL AND p.slot < s.permits`,
};

/** A digest of every row of each of `tables` (once the isolate's counts have flushed): equal before and after means nothing was written. */
export async function fingerprint(db: string, tables: string[]): Promise<Record<string, string>> {
  await until(async () => tallyFor(bindings(db))?.idle ?? true, 30_000, "the tally to flush");
  const parts = tables.map(
    (t) =>
      `${sqlLiteral(t)}, (SELECT count(*) || ':' || coalesce(md5(string_agg(x::text, '|' ORDER BY x::text)), '') FROM ${LOGICAL[t] ? `(${LOGICAL[t]})` : t} x)`,
  );
  const [{ f }] = await sql<{ f: Record<string, string> }>(db, `SELECT json_build_object(${parts.join(", ")}) AS f`);
  return f;
}
const sqlLiteral = (s: string) => `'${s.replace(/'/g, "''")}'`;

/**
 * The one write a rejected request may make: with an Idempotency-Key, a 4xx that is the request's
 * real outcome (e.g. 409) is stored so a retry replays it (functions/idempotency/). Input errors,
 * limits and anything carrying Retry-After are not.
 */
const IDEMPOTENCY_NOT_STORED = new Set([400, 401, 403, 404, 405, 408, 413, 415, 422, 425, 429]);
function mayStoreOutcome(r: Sent, status: number, retryAfter: string | null): boolean {
  const keyed = Object.keys(r.headers).some((h) => h.toLowerCase() === "idempotency-key");
  return keyed && status < 500 && !IDEMPOTENCY_NOT_STORED.has(status) && retryAfter === null;
}

/**
 * Refusals that are recorded by design, so they may write: a denied rate-limit check counts as
 * attempted/rejected in its counter and is logged (ratelimit_counters, ratelimit_log). The forward-auth
 * check (/v1/authz, every method) is the same check, its denial answered with its `deny_status`.
 */
const RATE_LIMIT_RECORDS = ["ratelimit_counters", "ratelimit_log"];
const REFUSAL_RECORDS: Record<string, { statuses: number[]; tables: string[] }> = {
  "POST /v1/ratelimits/check": { statuses: [429], tables: RATE_LIMIT_RECORDS },
  // A refused delivery is recorded on its source, for the owner (recent_rejections); no event is stored.
  "POST /v1/webhooks/{source}": { statuses: [401], tables: ["webhook_sources"] },
  ...Object.fromEntries(["GET", "POST", "PUT", "PATCH", "DELETE"].map((m) => [`${m} /v1/authz`, { statuses: [429, 403, 401], tables: RATE_LIMIT_RECORDS }])),
};

/** The tables a refused request to `op` may have written by design: its stored outcome, a denied check's counts. */
export function writtenByDesign(op: Operation | undefined, r: Sent, status: number, retryAfter: string | null): string[] {
  const recorded = op && REFUSAL_RECORDS[`${op.method} ${op.path}`];
  return [...(mayStoreOutcome(r, status, retryAfter) ? ["idempotency_keys"] : []), ...(recorded?.statuses.includes(status) ? recorded.tables : [])];
}
