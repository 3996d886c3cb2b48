// The idempotency capability's SQL: the only file in functions/ that names admit_idempotency_*.
// They run inside the transaction the middleware opened (schema/current/idempotency.sql).
// Every call names the caller whose key it is (`callerScope` in claim.ts): a key is its caller's alone.
import type { Queryable } from "../core/db";

/** What admit_idempotency_claim found for a key. */
export type Claim =
  | { outcome: "claimed" }
  | { outcome: "replay"; status: number; headers: Record<string, string>; body: string; created_at: string }
  | { outcome: "mismatch"; method: string; path: string; created_at: string }
  | { outcome: "in_progress" };

export interface ClaimInput {
  /** Whose key it is: callerScope() of the caller. */
  caller: string;
  key: string;
  method: string;
  /** Path and query string of the request. */
  path: string;
  /** sha256 of the raw body, hex. */
  bodyHash: string | null;
  ttlS: number;
}

/** Claims the caller's `key` for this request, or says why not (a stored answer to replay, another request, still running). */
export async function claimIdempotencyKey(db: Queryable, k: ClaimInput): Promise<Claim> {
  const [{ r }] = await db.query<{ r: Claim }>(
    "SELECT admit_idempotency_claim($1, $2, $3, $4, $5::integer, $6::integer, $7) AS r",
    [k.key, k.method, k.path, k.bodyHash, k.ttlS, db.lockTimeoutMs, k.caller],
    { write: true },
  );
  return r;
}

/** Stores the response for the caller's claimed `key`; `body` is base64, `headers` lower-case names. */
export async function storeIdempotentResponse(
  db: Queryable,
  k: { caller: string; key: string },
  status: number,
  headers: Record<string, string>,
  body: string,
): Promise<void> {
  await db.query("SELECT admit_idempotency_store($1, $2::integer, $3::jsonb, $4, $5)", [k.key, status, JSON.stringify(headers), body, k.caller], {
    write: true,
  });
}

/**
 * Lets go of the caller's `key` this transaction claimed, keeping what the request wrote (commit
 * afterwards): for an answer that is not stored but whose effect stands (a refusal the database decided).
 */
export async function releaseIdempotencyKey(db: Queryable, k: { caller: string; key: string }): Promise<void> {
  await db.query("SELECT admit_idempotency_release($1, $2)", [k.key, k.caller], { write: true });
}
