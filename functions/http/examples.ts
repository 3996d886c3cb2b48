// Examples for the reference page (/docs) and anyone reading /openapi.json: a request body for every
// operation that takes one, a body for every success response, and for every problem response one
// whose `type`, `title` and `status` are what Admit really answers with that status on that route.
// Each capability keeps its operations' examples in its own examples.ts; they are applied here, to
// the finished document (like documentCommonResponses), because half of the problem responses are
// added there, not by the routes. test/docs/openapi.examples.test.ts checks that every operation has its
// examples and that each one validates against its own schema.

import { KEY_EXAMPLES } from "../apikeys";
import { PROBLEMS, type ProblemSlug, problemType } from "../core/errors";
import type { Json, OperationExamples } from "../core/examples";
import { INVENTORY_EXAMPLES } from "../inventory";
import { PERMIT_EXAMPLES } from "../permits";
import { RATELIMIT_EXAMPLES } from "../ratelimits";
import { RESERVATION_EXAMPLES } from "../reservations";
import { WEBHOOK_EXAMPLES } from "../webhooks";

/** The examples of the operations functions/http/ serves itself (app.ts, metrics.ts). */
const HTTP_EXAMPLES: Record<string, OperationExamples> = {
  getHealth: {
    responses: { 200: { ok: true } },
    problems: {
      503: {
        type: "/problems/database-unavailable",
        title: "Database unavailable",
        detail: "The database did not answer `select 1` within 4000 ms; retry after Retry-After seconds.",
      },
    },
  },
  getMetrics: { responses: {} },
};

/** Every operation's examples, by operationId: each capability's own (functions/<capability>/examples.ts), and http/'s. */
const EXAMPLES: Record<string, OperationExamples> = {
  ...HTTP_EXAMPLES,
  ...RESERVATION_EXAMPLES,
  ...PERMIT_EXAMPLES,
  ...INVENTORY_EXAMPLES,
  ...WEBHOOK_EXAMPLES,
  ...RATELIMIT_EXAMPLES,
  ...KEY_EXAMPLES,
};

/** What Admit answers with each status when nothing route-specific is said (functions/core/errors.ts, db.ts, app.ts). */
const GENERIC: Record<number, Json> = {
  400: catalogued("bad-request", "The body is not valid JSON."),
  401: catalogued("unauthorized", "Send `Authorization: Bearer <API_TOKEN or key>`."),
  403: { ...catalogued("forbidden", "This key lacks the scope ratelimits:admin."), scope: "ratelimits:admin" },
  404: catalogued("not-found"),
  409: catalogued(
    "idempotency-key-in-use",
    "A request with this Idempotency-Key is still running. Retry after Retry-After seconds to get its response; it will not run twice.",
  ),
  413: catalogued("payload-too-large", "The body is larger than 65536 bytes."),
  415: catalogued("unsupported-media-type", 'Send the body as application/json (got "text/plain").'),
  422: catalogued("validation"),
  429: catalogued("rate-limited"),
  503: catalogued("database-unavailable", "The database could not be reached; nothing was applied. Retry after Retry-After seconds."),
  504: catalogued("outcome-unknown", "The write was sent but no answer came; retry with the same Idempotency-Key to learn its outcome."),
};

/** A catalogued problem's type and title (core/errors.ts), with an example detail. */
function catalogued(slug: ProblemSlug, detail?: string): Json {
  return { type: problemType(slug), title: PROBLEMS[slug].title, ...(detail === undefined ? {} : { detail }) };
}

/** A 422 naming the first required body field (or query/path parameter) of the operation. */
function validationExample(op: Json): Json {
  const param = ((op.parameters ?? []) as Json[]).find((p) => p.in === "path" || p.in === "query");
  const where = op.requestBody
    ? { in: "body", path: "holder", message: "Required" }
    : param
      ? { in: param.in, path: param.name, message: "Invalid input" }
      : { in: "body", path: "(root)", message: "Invalid input" };
  return { detail: `${where.in} ${where.path}: ${where.message}.`, errors: [where] };
}

/**
 * Sets `example` on path/query parameters named in EXAMPLES, on every JSON request body and response of the document from EXAMPLES (an
 * example already there is kept), and on every problem response one for its status.
 */
export function documentExamples<D extends { paths?: object }>(doc: D): D {
  for (const item of Object.values((doc.paths ?? {}) as Record<string, Record<string, Json>>)) {
    for (const op of Object.values(item)) {
      if (typeof op !== "object" || op === null || !("responses" in op)) continue;
      const ex = EXAMPLES[op.operationId as string];
      if (!ex) continue;
      for (const p of (op.parameters ?? []) as Json[])
        if ((p.in === "path" || p.in === "query") && ex.params?.[p.name] !== undefined) p.example = ex.params[p.name];
      const body = op.requestBody?.content?.["application/json"];
      if (body && ex.request !== undefined) body.example ??= ex.request;
      for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
        const code = Number(status);
        const json = response.content?.["application/json"];
        if (json && ex.responses[code] !== undefined) json.example ??= ex.responses[code];
        const problem = response.content?.["application/problem+json"];
        if (problem) {
          const own = ex.problems?.[code] ?? {};
          // A status with no generic problem (the forward-auth check's 403) takes the operation's own example whole.
          const base = GENERIC[code] ?? (own.type ? {} : undefined);
          if (!base) throw new Error(`no problem example for status ${code}: add one to GENERIC in functions/http/examples.ts`);
          problem.example ??= { ...base, status: code, ...(code === 422 ? validationExample(op) : {}), ...own };
        }
      }
    }
  }
  return doc;
}
