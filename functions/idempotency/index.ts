// Idempotency-Key on every write: a keyed POST/PUT/PATCH/DELETE under /v1 runs at most
// once, and its response is stored in the same transaction as its effect (Brandur Leach's design).
// SQL: schema/current/idempotency.sql. Tests: test/idempotency/.
//
//   BEGIN
//   claimIdempotencyKey(key, method, path, sha256(body))   → claimed | replay | mismatch | in_progress
//   … the route, joining this transaction through c.var.db …
//   storeIdempotentResponse(key, status, headers, body)
//   COMMIT
//
// Committed together or not at all: a 5xx, a failed statement, or an answer that invites a retry
// (see `stored` in middleware.ts) rolls back the effect and the claim, so a retry with the key runs
// afresh. Requests without the header pass straight through: no extra round trip.
//
// No routes of its own: middleware.ts (the middleware), claim.ts (claiming a key, shared), once.ts
// (the same store for a keyed RPC call: functions/http/rpc/), sql.ts (the two SQL calls), openapi.ts
// (the header in the document).
export { DEFAULT_TTL_S, type Ending, idempotencyTtlS, MAX_KEY_LENGTH } from "./claim";
export { idempotency } from "./middleware";
export { once, RPC_KEY_FIELD } from "./once";
export { documentIdempotencyKey } from "./openapi";
export type { Claim } from "./sql";
