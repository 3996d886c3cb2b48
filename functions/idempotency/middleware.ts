// The Idempotency-Key middleware: claim the key, run the route in the same transaction, store its
// answer, commit (see index.ts for the sequence).
import type { Context, MiddlewareHandler } from "hono";
import { sha256 } from "hono/utils/crypto";
import { decodeBase64, encodeBase64 } from "hono/utils/encode";
import type { AppEnv } from "../core/context";
import { hasRoute, IDEMPOTENCY_HEADER, NOT_ENFORCED_HEADER, REPLAYED_HEADER } from "../core/http";
import { callerScope, checkKey, claimKey, type Ending, type Replay, releaseKey } from "./claim";
import { storeIdempotentResponse } from "./sql";

export const KEYED_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * 4xx answers that are not the outcome of running the request, or that invite a retry, are not
 * stored (the transaction rolls back, so nothing they might have written stays either, except a 429's
 * own counting: see ending()): malformed or invalid input, unknown route or id, and limits. Every other 4xx — e.g. 409 "overlaps" — is the
 * request's real outcome and is replayed like a 2xx. Any response carrying Retry-After is not stored.
 */
const NOT_STORED_4XX = new Set([400, 401, 403, 404, 405, 408, 413, 415, 422, 425, 429]);

/** Response headers that describe one transmission, not the answer; never stored or replayed. */
const TRANSIENT_HEADERS = new Set(["connection", "content-length", "date", "keep-alive", "set-cookie", "transfer-encoding", REPLAYED_HEADER.toLowerCase()]);

const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

function ending(res: Response): Ending {
  if (res.status >= 500) return "rollback";
  // A fail mode's answer (the database did not decide in time): the request has no outcome to keep.
  if (res.headers.has(NOT_ENFORCED_HEADER)) return "rollback";
  // A limit the database decided (a rate-limit check's 429): a retry must decide again, but the
  // decision's own writes — the attempt counted, its log row — stay, as they do without a key.
  if (res.status === 429) return "release";
  if (res.headers.has("Retry-After")) return "rollback";
  return res.status < 400 || !NOT_STORED_4XX.has(res.status) ? "store" : "rollback";
}

function replay(r: Replay): Response {
  const headers = new Headers(r.headers);
  headers.set(REPLAYED_HEADER, "true");
  return new Response(NULL_BODY_STATUSES.has(r.status) ? null : decodeBase64(r.body), { status: r.status, headers });
}

function keptHeaders(res: Response): Record<string, string> {
  const out: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    if (!TRANSIENT_HEADERS.has(name.toLowerCase())) out[name.toLowerCase()] = value;
  });
  return out;
}

/**
 * The middleware. `exempt` names requests that carry their own deduplication (the webhook
 * receiver): an Idempotency-Key header on them is ignored.
 */
export function idempotency(opts: { exempt?: (c: Context<AppEnv>) => boolean } = {}): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const key = c.req.header(IDEMPOTENCY_HEADER);
    if (key === undefined || !KEYED_METHODS.has(c.req.method) || opts.exempt?.(c)) return next();
    // No route for this method and path: the answer is 404 whatever the key, so the key is not
    // checked (nor claimed).
    if (!hasRoute(c)) return next();
    checkKey(key, { in: "header", path: IDEMPOTENCY_HEADER });

    const url = new URL(c.req.url);
    const path = url.pathname + url.search;
    // Hono caches the bytes: the route's validator parses the same body afterwards.
    const bodyHash = await sha256(await c.req.arrayBuffer());
    const db = c.var.db;
    // Authentication ran first (app.ts): every request this middleware keys has its caller.
    const mine = { caller: callerScope(c.var.caller), key };

    const replayed = await claimKey(db, c.env ?? {}, { ...mine, method: c.req.method, path, bodyHash, field: { in: "header", path: IDEMPOTENCY_HEADER } });
    if (replayed) return (c.res = replay(replayed));
    try {
      await next();

      const res = c.res;
      const end = ending(res);
      if (end === "release") return await releaseKey(db, mine);
      if (end === "rollback") return await db.rollback();
      if (db.transactionFailed) {
        await db.rollback();
        // A route answered success although one of its statements failed: Postgres rolled it back.
        if (res.status < 400) throw new Error(`${c.req.method} ${url.pathname} answered ${res.status} after a failed statement`);
        return;
      }
      const body = NULL_BODY_STATUSES.has(res.status) ? new ArrayBuffer(0) : await res.clone().arrayBuffer();
      await storeIdempotentResponse(db, mine, res.status, keptHeaders(res), encodeBase64(body));
      await db.commit();
    } catch (err) {
      await db.rollback();
      throw err;
    }
  };
}
