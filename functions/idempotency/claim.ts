// Claiming an idempotency key, shared by the HTTP middleware (middleware.ts) and keyed RPC calls
// (once.ts): open the transaction, claim the key, and either leave the transaction open for the
// request to run in (claimed) or roll it back and say what to answer instead — the stored answer
// to replay, or a problem (the key used for another request; its first request still running).
// A key is its caller's: two callers sending the same key never meet (callerScope).
import type { Caller } from "../core/apikeys";
import { intSetting, type RequestDb } from "../core/db";
import type { Bindings } from "../core/env";
import { problem, validationProblem } from "../core/errors";
import { headerValueProblem, IDEMPOTENCY_HEADER } from "../core/http";
import { unstorableText } from "../core/validation";
import { type Claim, claimIdempotencyKey, releaseIdempotencyKey } from "./sql";

export const MAX_KEY_LENGTH = 255;
export const DEFAULT_TTL_S = 86_400;

export function idempotencyTtlS(b: Bindings): number {
  return intSetting(b.IDEMPOTENCY_TTL_S, DEFAULT_TTL_S, 1, 30 * 86_400);
}

/**
 * Whose keys a caller's are (the idempotency_keys.caller it claims in): a scoped key by its id, which
 * its rotations keep; the root token; the RPC binding. schema/000114_idempotency_callers.sql.
 */
export function callerScope(caller: Caller): string {
  return caller.kind === "key" ? `key:${caller.id}` : caller.kind;
}

/**
 * A key's 422 when it is empty, too long, or not what its field allows: the header, what the document
 * says of it (headerValueProblem: visible ASCII); the RPC option, any text Postgres stores as itself
 * (unstorableText). `where` names the field (the header, or the RPC option).
 */
export function checkKey(key: string, where: { in: string; path: string }): void {
  const message =
    key.length < 1 || key.length > MAX_KEY_LENGTH
      ? `must be 1–${MAX_KEY_LENGTH} characters (got ${key.length})`
      : where.in === "header"
        ? headerValueProblem(key)
        : unstorableText(key);
  if (message) throw validationProblem(`${where.in} ${where.path}: ${message}`, [{ ...where, message }]);
}

export type Replay = Extract<Claim, { outcome: "replay" }>;

/**
 * Opens the transaction and claims the `caller`'s `key` for this request (`method` and `path` say which request,
 * `bodyHash` is the sha256 of what it sends). Answers `null` with the transaction left open when
 * the key was claimed — the caller runs the request, stores its answer and commits — or the stored
 * answer to replay, with the transaction rolled back. A key used for another request (422) or
 * whose first request is still running (409, Retry-After) is thrown as a problem.
 */
export async function claimKey(
  db: RequestDb,
  env: Bindings,
  k: { caller: string; key: string; method: string; path: string; bodyHash: string | null; field: { in: string; path: string } },
): Promise<Replay | null> {
  await db.begin();
  let r: Claim;
  try {
    r = await claimIdempotencyKey(db, {
      caller: k.caller,
      key: k.key,
      method: k.method,
      path: k.path,
      bodyHash: k.bodyHash,
      ttlS: idempotencyTtlS(env ?? {}),
    });
  } catch (err) {
    await db.rollback();
    throw err;
  }
  if (r.outcome === "claimed") return null;
  await db.rollback();
  if (r.outcome === "replay") return r;
  const name = k.field.in === "header" ? IDEMPOTENCY_HEADER : "idempotency key";
  if (r.outcome === "mismatch") {
    const where = r.method === k.method && r.path === k.path ? "with a different body" : `for ${r.method} ${r.path}`;
    // `errors` like every other 422 (the documented ValidationProblem): the key is the field at fault.
    throw problem("idempotency-key-reused", `This ${name} was used at ${r.created_at} ${where}. Use a new key for a different request.`, {
      errors: [{ ...k.field, message: `already used ${where}` }],
    });
  }
  throw problem(
    "idempotency-key-in-use",
    `A request with this ${name} is still running. Retry after Retry-After seconds to get its response; it will not run twice.`,
    {},
    { "Retry-After": "1" },
  );
}

/**
 * How a claimed key's transaction ends, given the request's answer: `store` — the answer is kept
 * with the effect and replayed to a retry; `release` — a refusal the database decided (a rate-limit
 * denial): the answer is not kept, so a retry decides again, but what deciding it wrote (the attempt
 * counted, its log row) stands, exactly as without a key; `rollback` — nothing stays (a 5xx, a failed
 * statement, input errors, an answer the fail mode gave because the database did not decide).
 */
export type Ending = "store" | "release" | "rollback";

/** Ends the transaction of a `release` answer: the caller's key is let go, the request's effect commits. */
export async function releaseKey(db: RequestDb, k: { caller: string; key: string }): Promise<void> {
  if (db.transactionFailed) return db.rollback();
  await releaseIdempotencyKey(db, k);
  await db.commit();
}
