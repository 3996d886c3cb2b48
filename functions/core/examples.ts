// What every capability's OpenAPI examples (functions/<capability>/examples.ts) share: the shape of
// one operation's examples, and the times and id one story runs through on the reference page.
// Imports nothing, so any capability and functions/http/examples.ts may import it.

export type Json = Record<string, any>;

/** One operation's examples, looked up by its operationId. */
export interface OperationExamples {
  request?: unknown;
  /** Success (and other non-problem JSON) bodies by status. */
  responses: Record<number, unknown>;
  /** Extension members of this operation's problem bodies, by status (type/title/status/detail included when given). */
  problems?: Record<number, Json>;
  /** Path and query parameter examples where the shared schema's own would not make sense here (e.g. from = to). */
  params?: Record<string, unknown>;
}

export const NOW = "2030-04-30T12:00:00.000Z";
export const LATER = "2030-04-30T12:00:30.000Z";
/** The id the route parameters and bodies show, so one story runs through a page. */
export const ID = "0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e";
