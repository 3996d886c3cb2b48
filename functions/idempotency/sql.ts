// The idempotency capability's SQL: the only file in functions/ that names admit_idempotency_*.
// They run inside the transaction the middleware opened (schema/000040_idempotency.sql, 000076).
import type { Queryable } from "../core/db";

/** What admit_idempotency_claim found for a key. */
export type Claim =
  | { outcome: "claimed" }
  | { outcome: "replay"; status: number; headers: Record<string, string>; body: string; created_at: string }
  | { outcome: "mismatch"; method: string; path: string; created_at: string }
  | { outcome: "in_progress" };

export interface ClaimInput {
  key: string;
  method: string;
  /** Path and query string of the request. */
  path: string;
  /** sha256 of the raw body, hex. */
  bodyHash: string | null;
  ttlS: number;
}

/** Claims `key` for this request, or says why not (a stored answer to replay, another request, still running). */
export async function claimIdempotencyKey(db: Queryable, k: ClaimInput): Promise<Claim> {
  const [{ r }] = await db.query<{ r: Claim }>(
    "SELECT admit_idempotency_claim($1, $2, $3, $4, $5::integer, $6::integer) AS r",
    [k.key, k.method, k.path, k.bodyHash, k.ttlS, db.lockTimeoutMs],
    { write: true },
  );
  return r;
}

/** Stores the response for the claimed `key`; `body` is base64, `headers` lower-case names. */
export async function storeIdempotentResponse(db: Queryable, key: string, status: number, headers: Record<string, string>, body: string): Promise<void> {
  await db.query("SELECT admit_idempotency_store($1, $2::integer, $3::jsonb, $4)", [key, status, JSON.stringify(headers), body], { write: true });
}

/**
 * Lets go of the `key` this transaction claimed, keeping what the request wrote (commit afterwards):
 * for an answer that is not stored but whose effect stands (a refusal the database decided).
 */
export async function releaseIdempotencyKey(db: Queryable, key: string): Promise<void> {
  await db.query("SELECT admit_idempotency_release($1)", [key], { write: true });
}
