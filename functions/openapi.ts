// Shared OpenAPI pieces: the problem+json schema and the standard error responses of each route.
import { z } from "@hono/zod-openapi";

export const ProblemSchema = z
  .object({
    type: z.string().openapi({ example: "/problems/validation" }),
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
  401: "Missing or invalid bearer token",
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
    out[s] = { description: DESCRIPTIONS[s], content: { "application/problem+json": { schema: s === 422 ? (ValidationProblem as unknown as typeof ProblemSchema) : ProblemSchema } } };
  }
  return out;
}
