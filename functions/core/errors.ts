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
export class ProblemError extends Error {
  constructor(
    readonly problem: Problem,
    readonly headers: Record<string, string> = {},
  ) {
    super(problem.detail ?? problem.title);
  }
}

/** `type` URIs are relative references, each documented in docs/errors.md. */
export function problemType(slug: string): string {
  return `/problems/${slug}`;
}

export function problem(
  status: number,
  slug: string,
  title: string,
  detail?: string,
  extensions: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): ProblemError {
  return new ProblemError({ type: problemType(slug), title, status, ...(detail ? { detail } : {}), ...extensions }, headers);
}

export function problemResponse(c: Context, p: Problem, headers: Record<string, string> = {}): Response {
  const res = c.body(JSON.stringify(p), p.status as ContentfulStatusCode, {
    ...headers,
    "Content-Type": "application/problem+json",
  });
  return res;
}

/** Status codes whose meaning is the whole story get the standard titles. */
const TITLES: Record<number, [string, string]> = {
  400: ["bad-request", "Bad request"],
  401: ["unauthorized", "Unauthorized"],
  404: ["not-found", "Not found"],
  405: ["method-not-allowed", "Method not allowed"],
  413: ["payload-too-large", "Payload too large"],
  415: ["unsupported-media-type", "Unsupported media type"],
  422: ["validation", "Validation failed"],
};

export function httpProblem(status: number, detail: string, extensions: Record<string, unknown> = {}): ProblemError {
  const [slug, title] = TITLES[status] ?? ["error", "Error"];
  return problem(status, slug, title, detail, extensions);
}

/** The app-wide error handler: known problems as they are, HTTP exceptions as problems, anything else a 500 without internals. */
export function onError(err: unknown, c: Context): Response {
  if (err instanceof ProblemError) {
    // Every 422 is documented with `errors` (the ValidationProblem schema): a value refused further
    // down (e.g. by Postgres: a lone surrogate in a JSON object) gets one entry naming what is known.
    if (err.problem.status === 422 && !Array.isArray(err.problem.errors)) {
      return problemResponse(c, { ...err.problem, errors: [{ in: "input", path: "(unknown)", message: err.problem.detail ?? err.problem.title }] }, err.headers);
    }
    return problemResponse(c, err.problem, err.headers);
  }
  if (err instanceof HTTPException) {
    const p = httpProblem(err.status, err.message || TITLES[err.status]?.[1] || "Error");
    const headers: Record<string, string> = {};
    const auth = err.res?.headers.get("WWW-Authenticate");
    if (auth) headers["WWW-Authenticate"] = auth;
    return problemResponse(c, p.problem, headers);
  }
  // A bug: log it for the operator, tell the client nothing internal.
  console.error("unhandled error", c.req.method, new URL(c.req.url).pathname, err);
  return problemResponse(c, {
    type: problemType("internal"),
    title: "Internal server error",
    status: 500,
    detail: "An unexpected error occurred; it has been logged. Retrying may not help; please report it.",
  });
}
