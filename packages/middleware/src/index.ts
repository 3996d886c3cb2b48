// @admit/middleware: Admit's rate limits for Node servers and fetch handlers. The fetch-handler
// wrapper is here; Express and Fastify are `@admit/middleware/express` and `@admit/middleware/fastify`.

export type { Admission, RateLimitOptions } from "./core.js";
export { withRateLimit } from "./fetch.js";
