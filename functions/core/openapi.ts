// Shared OpenAPI pieces: the problem+json schema and the standard error responses of each route.
import { z } from "@hono/zod-openapi";

export const ProblemSchema = z
  .object({
    // No one example here: each problem response of the document carries its own (functions/http/examples.ts).
    type: z.string().openapi({ description: "What went wrong, as a relative URI `/problems/<slug>`; the same for the same cause on every route" }),
    title: z.string(),
    status: z.number().int(),
    detail: z.string().optional(),
  })
  .passthrough()
  .openapi("Problem");

const ValidationProblem = ProblemSchema.extend({
  errors: z.array(z.object({ in: z.string(), path: z.string(), message: z.string() })),
}).openapi("ValidationProblem");

const DESCRIPTIONS: Record<number, string> = {
  400: "Malformed JSON",
  401: "Missing or invalid bearer token (or a key that is unknown, revoked or expired)",
  403: "The key lacks this operation's scope (`x-scope`) or may not touch the name (`scope` or `name` says which)",
  404: "Not found",
  409: "Lost a race; nothing was applied",
  413: "Body over 64 KiB",
  415: "Body is not application/json",
  422: "Validation failed (`errors` lists each field)",
  429: "Limit reached; see Retry-After",
  503: "Database unavailable or lock wait timed out; nothing was applied. See Retry-After",
  504: "Outcome unknown: the write was sent but no answer came; a retry with the same Idempotency-Key returns the real outcome",
};

export function problemResponses<S extends keyof typeof DESCRIPTIONS & number>(...statuses: S[]) {
  const out = {} as Record<S, { description: string; content: { "application/problem+json": { schema: typeof ProblemSchema } } }>;
  for (const s of statuses) {
    out[s] = {
      description: DESCRIPTIONS[s],
      content: { "application/problem+json": { schema: s === 422 ? (ValidationProblem as unknown as typeof ProblemSchema) : ProblemSchema } },
    };
  }
  return out;
}

type Json = Record<string, any>;
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const problemContent = (schema: Json) => ({ "application/problem+json": { schema } });

/**
 * Responses no route declares itself, because a middleware in front of every route answers them
 * (functions/http/app.ts): the bearer token (401) and the key's scope (403), the body guard (413, 415, and 422 for JSON nested too
 * deep), the database (503), input validation of any parameter (422), and the Idempotency-Key
 * (functions/idempotency/: 422 for a bad or reused key, 409 while the key's first request runs).
 * Added to every operation of the document they apply to, so the document lists every status an
 * operation can answer, with the body it really has.
 */
export function documentCommonResponses<D extends { paths?: object; components?: object }>(
  doc: D,
  opts: { signed: (method: string, path: string) => boolean; keyed: (method: string, path: string) => boolean },
): D {
  const schemas = (((doc as Json).components ??= {}).schemas ??= {}) as Json;
  schemas.IdempotencyKeyInUse = {
    allOf: [ref("Problem"), { type: "object", properties: { type: { const: "/problems/idempotency-key-in-use" }, status: { const: 409 } } }],
    description: "A request with this Idempotency-Key is still running; retry after Retry-After seconds to get its response.",
  };
  const add = (responses: Json, status: number, schema: Json, description = DESCRIPTIONS[status]) => {
    responses[status] ??= { description, content: problemContent(schema) };
  };
  for (const [path, item] of Object.entries((doc.paths ?? {}) as Record<string, Record<string, Json>>)) {
    for (const [method, op] of Object.entries(item)) {
      if (typeof op !== "object" || op === null || !("responses" in op)) continue;
      // Each route names its operation in its createRoute(); listed last among the operation's members.
      const { operationId } = op;
      if (typeof operationId !== "string") throw new Error(`${method.toUpperCase()} ${path} has no operationId: give its createRoute() one`);
      delete op.operationId;
      op.operationId = operationId;
      documentOptionalBody(op);
      const responses = op.responses as Json;
      const params = ((op.parameters ?? []) as Json[]).filter((p) => p.in === "path" || p.in === "query");
      if (path.startsWith("/v1/") && !opts.signed(method, path)) {
        add(responses, 401, ref("Problem"));
        add(responses, 403, ref("Problem"));
      }
      if (method !== "get" && method !== "head") {
        add(responses, 413, ref("Problem"));
        add(responses, 415, ref("Problem"));
        add(responses, 422, ref("ValidationProblem"), "Validation failed (`errors` lists each field), e.g. JSON nested deeper than 64 levels");
      }
      if (params.length > 0) add(responses, 422, ref("ValidationProblem"));
      add(responses, 503, ref("Problem"));
      if (opts.keyed(method, path)) {
        add(responses, 422, ref("ValidationProblem"), "Idempotency-Key too long or reused for another request (`errors` names the header)");
        const own = responses[409];
        const inUse = "Another request with this Idempotency-Key is still running (`/problems/idempotency-key-in-use`); see Retry-After";
        if (own === undefined) {
          responses[409] = { description: inUse, headers: RETRY_AFTER, content: problemContent(ref("IdempotencyKeyInUse")) };
        } else {
          const schema = own.content?.["application/problem+json"]?.schema ?? ref("Problem");
          own.description = `${own.description}. Or: ${inUse}`;
          own.content = problemContent({ anyOf: [schema, ref("IdempotencyKeyInUse")] });
        }
      }
    }
  }
  return doc;
}

const RETRY_AFTER = { "Retry-After": { description: "Seconds to wait before retrying", schema: { type: "integer", minimum: 0 } } };

/** OpenAPI body/response content of a schema. */
export const json = <S extends z.ZodType>(schema: S) => ({ content: { "application/json": { schema } } });

/** Marks, in a route's definition, a request body that optionalJson() registered as required. */
const OPTIONAL_BODY = "x-optional-body";

/**
 * A request body that may be left out, and then means the same as `{}`: the schema's defaults apply.
 * @hono/zod-openapi validates an optional body only when a JSON Content-Type is sent; without one
 * the handler gets `{}` untouched by the schema (no defaults). Registered as required instead, Hono's
 * validator reads a request without a body as `{}` and the schema runs on it, as on a body of `{}`
 * (a body with another Content-Type is still 415). The document says it is optional
 * (documentCommonResponses, below). Every route with an optional body declares it with this.
 */
export const optionalJson = <S extends z.ZodType>(schema: S) => ({ required: true as const, [OPTIONAL_BODY]: true, ...json(schema) });

/** An operation's optionalJson() body, documented as the optional body it is. */
function documentOptionalBody(op: Json): void {
  const body = op.requestBody as Json | undefined;
  if (!body?.[OPTIONAL_BODY]) return;
  delete body[OPTIONAL_BODY];
  body.required = false;
}
export const problemJson = <S extends z.ZodType>(schema: S) => ({ content: { "application/problem+json": { schema } } });
