// Problem details (RFC 9457) for every error response, and the one place that maps failures to HTTP.
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail?: string;
  [extension: string]: unknown;
}

/** A problem the handlers raise on purpose; `onError` turns it into the response. */
/**
 * A problem as a value, for Workers RPC (which keeps only an Error's message across a binding): the
 * problem+json body, plus Retry-After in seconds when HTTP would send it.
 */
export type RpcProblem = Problem & { retry_after?: number };

/** `err` as a value (RpcProblem) for an RPC answer's `{ error }`. */
export function rpcProblem(err: ProblemError): RpcProblem {
  const p: RpcProblem = { ...err.problem };
  const ra = Number(err.headers["Retry-After"]);
  if (Number.isFinite(ra) && ra > 0) p.retry_after = ra;
  return p;
}

/** An RPC answer's problem back as HTTP: the body without `retry_after`, which becomes the Retry-After header. */
export function problemOfRpc(p: RpcProblem): { problem: Problem; headers: Record<string, string> } {
  const { retry_after, ...problem } = p;
  return { problem, headers: retry_after ? { "Retry-After": String(retry_after) } : {} };
}

export class ProblemError extends Error {
  constructor(
    readonly problem: Problem,
    readonly headers: Record<string, string> = {},
  ) {
    super(problem.detail ?? problem.title);
  }
}

/**
 * Every problem type Admit answers with: slug → status and title. `type` is `/problems/<slug>`;
 * docs/errors.md documents each (test/errors.catalogue.test.ts keeps the two in step).
 */
export const PROBLEMS = {
  "bad-request": { status: 400, title: "Bad request" },
  unauthorized: { status: 401, title: "Unauthorized" },
  "webhook-signature": { status: 401, title: "Webhook not verified" },
  forbidden: { status: 403, title: "Forbidden" },
  "denied-by-list": { status: 403, title: "Denied by a deny list" },
  "not-found": { status: 404, title: "Not found" },
  "method-not-allowed": { status: 405, title: "Method not allowed" },
  "reservation-conflict": { status: 409, title: "Reservation overlaps" },
  "override-conflict": { status: 409, title: "Override period overlaps" },
  "inventory-short": { status: 409, title: "Not enough inventory" },
  "stock-below-taken": { status: 409, title: "Stock below what is taken" },
  "hold-expired": { status: 409, title: "Hold expired" },
  "booking-cancelled": { status: 409, title: "Booking cancelled" },
  "concurrent-conflict": { status: 409, title: "Concurrent conflict" },
  conflict: { status: 409, title: "Conflict" },
  "lock-unavailable": { status: 409, title: "Lock not available" },
  "lock-held": { status: 409, title: "Lock held" },
  "not-current-holder": { status: 409, title: "Not the current holder" },
  "claim-not-current": { status: 409, title: "Claim not current" },
  "idempotency-key-in-use": { status: 409, title: "Request in progress" },
  "payload-too-large": { status: 413, title: "Payload too large" },
  "unsupported-media-type": { status: 415, title: "Unsupported media type" },
  validation: { status: 422, title: "Validation failed" },
  "idempotency-key-reused": { status: 422, title: "Idempotency-Key reused" },
  "response-too-large": { status: 422, title: "Answer too large" },
  "semaphore-full": { status: 429, title: "No permit free" },
  "rate-limited": { status: 429, title: "Too many requests" },
  "quota-exceeded": { status: 429, title: "Quota exceeded" },
  "concurrency-limited": { status: 429, title: "Too many requests in flight" },
  "ratelimit-key-missing": { status: 429, title: "Rate-limit key missing" },
  "ratelimit-key-invalid": { status: 429, title: "Rate-limit key not usable" },
  internal: { status: 500, title: "Internal server error" },
  "database-unavailable": { status: 503, title: "Database unavailable" },
  "lock-timeout": { status: 503, title: "Lock wait timed out" },
  "not-configured": { status: 503, title: "API token not configured" },
  "database-not-configured": { status: 503, title: "Database not configured" },
  "ratelimit-policy-missing": { status: 503, title: "Rate-limit policy missing" },
  "outcome-unknown": { status: 504, title: "Outcome unknown" },
} as const satisfies Record<string, { status: number; title: string }>;

export type ProblemSlug = keyof typeof PROBLEMS;

/** `type` URIs are relative references, each documented in docs/errors.md. */
export function problemType(slug: ProblemSlug): string {
  return `/problems/${slug}`;
}

/** A problem of the catalogue: its status and title, with this detail, extension members and headers. */
export function problem(slug: ProblemSlug, detail?: string, extensions: Record<string, unknown> = {}, headers: Record<string, string> = {}): ProblemError {
  const { status, title } = PROBLEMS[slug];
  return new ProblemError({ type: problemType(slug), title, status, ...(detail ? { detail } : {}), ...extensions }, headers);
}

/** One entry of a 422's `errors` list: where the bad value came from, its path, what is wrong. */
export interface ValidationError {
  in: string;
  path: string;
  message: string;
}

/** 422 with the `errors` list every 422 carries. */
export function validationProblem(detail: string, errors: ValidationError[]): ProblemError {
  return problem("validation", detail, { errors });
}

/** 404 for a thing that does not exist (say which, and how to create it if it can be). */
export function notFound(detail: string): ProblemError {
  return problem("not-found", detail);
}

export function problemResponse(c: Context, p: Problem, headers: Record<string, string> = {}): Response {
  const res = c.body(JSON.stringify(p), p.status as ContentfulStatusCode, {
    ...headers,
    "Content-Type": "application/problem+json",
  });
  return res;
}

/** Status codes whose meaning is the whole story get the generic problem of that status. */
const BY_STATUS: Record<number, ProblemSlug> = {
  400: "bad-request",
  401: "unauthorized",
  403: "forbidden",
  404: "not-found",
  405: "method-not-allowed",
  413: "payload-too-large",
  415: "unsupported-media-type",
  422: "validation",
};

export function httpProblem(status: number, detail: string, extensions: Record<string, unknown> = {}): ProblemError {
  const slug = BY_STATUS[status];
  if (slug) return problem(slug, detail, extensions);
  return new ProblemError({ type: problemType("internal"), title: "Error", status, detail, ...extensions });
}

/** The app-wide error handler: known problems as they are, HTTP exceptions as problems, anything else a 500 without internals. */
export function onError(err: unknown, c: Context): Response {
  if (err instanceof ProblemError) {
    // Every 422 is documented with `errors` (the ValidationProblem schema): a value refused further
    // down (e.g. by Postgres: a lone surrogate in a JSON object) gets one entry naming what is known.
    if (err.problem.status === 422 && !Array.isArray(err.problem.errors)) {
      return problemResponse(
        c,
        { ...err.problem, errors: [{ in: "input", path: "(unknown)", message: err.problem.detail ?? err.problem.title }] },
        err.headers,
      );
    }
    return problemResponse(c, err.problem, err.headers);
  }
  if (err instanceof HTTPException) {
    const slug = BY_STATUS[err.status];
    const p = httpProblem(err.status, err.message || (slug ? PROBLEMS[slug].title : "Error"));
    const headers: Record<string, string> = {};
    const auth = err.res?.headers.get("WWW-Authenticate");
    if (auth) headers["WWW-Authenticate"] = auth;
    return problemResponse(c, p.problem, headers);
  }
  // A bug: log it for the operator, tell the client nothing internal.
  console.error("unhandled error", c.req.method, new URL(c.req.url).pathname, err);
  return problemResponse(c, problem("internal", "An unexpected error occurred; it has been logged. Retrying may not help; please report it.").problem);
}
