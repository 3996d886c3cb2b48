// The SQL of the rate limits' operator controls, one typed wrapper each: resetting a key's usage.
// (The checks and the policy and override writes are in ../sql.ts.)
import { type AuditEntry, audited } from "../../core/audit";
import type { Queryable } from "../../core/db";

export interface ResetRow {
  key: string;
  /** The policies whose counters of the key changed. */
  policies: string[];
  at: string;
}

/**
 * Gives `key` a fresh window in `policy`, or in every policy `names` (LIKE patterns; null: all)
 * lets the caller touch when `policy` is null; with its audit row. Null when `policy` does not exist.
 */
export async function resetUsage(db: Queryable, policy: string | null, key: string, names: string[] | null, audit: AuditEntry): Promise<ResetRow | null> {
  const q = audited("SELECT admit_ratelimit_reset($1, $2, $3::text[], $4::integer) AS r", [policy, key, names, db.lockTimeoutMs], "c.r IS NOT NULL", audit);
  const [{ r }] = await db.query<{ r: ResetRow | null }>(q.text, q.params, { write: true });
  return r;
}
