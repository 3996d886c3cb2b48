// What the Express, Fastify and fetch-handler adapters share: the options (a limiter's, with the
// key and cost as functions of the framework's request), checked once when the middleware is made,
// and the refusal's body. The decision itself is @admit/client's createLimiter().
import { type Admission, createLimiter, type LimiterOptions } from "@admit/client/ratelimit";

export type { Admission, LimiterOptions } from "@admit/client/ratelimit";

/** The middleware's options: where Admit is, which limits, and who is limited by what. */
export interface RateLimitOptions<Req> extends Omit<LimiterOptions, "fetch"> {
  /** Who is limited, from the request: an API key, a user id, an address (required with `policy`/`policies`). */
  key?: (req: Req) => string | Promise<string>;
  /** Units this request takes (default 1), or a function of the request. */
  cost?: number | ((req: Req) => number | Promise<number>);
  /** The fetch to reach Admit with (default: the global one). */
  fetch?: (request: Request) => Promise<Response>;
}

/** The per-request decision of a middleware: `decide(req, holder)`. */
export function decider<Req>(opts: RateLimitOptions<Req>): (req: Req, holder: string) => Promise<Admission> {
  const { key, cost, ...limiterOptions } = opts;
  const limiter = createLimiter(limiterOptions);
  if (limiter.policies.length && !key) throw new Error("Admit rate limit: `key` is required with `policy`/`policies`");
  return async (req, holder) =>
    limiter.admit({
      key: key ? await key(req) : undefined,
      cost: typeof cost === "function" ? await cost(req) : cost,
      holder,
    });
}

/** A refusal's body, as sent: problem+json. */
export const PROBLEM_JSON = "application/problem+json";
