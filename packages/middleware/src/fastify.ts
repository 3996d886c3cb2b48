// Fastify: an `onRequest` hook (for the whole app with addHook, or for one route's `onRequest`).
// Admit checks the request before the handler; a concurrency permit is given back when the response
// has been sent or the connection closed (the raw response's `close`, also on a client hang-up).
import type { FastifyReply, FastifyRequest } from "fastify";
import { decider, PROBLEM_JSON, type RateLimitOptions } from "./core.js";

/**
 * @example
 * app.addHook("onRequest", rateLimit({ baseUrl: process.env.ADMIT_URL!, token: process.env.ADMIT_TOKEN!, policy: "api", key: (req) => req.ip }));
 */
export function rateLimit(opts: RateLimitOptions<FastifyRequest>): (req: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply | undefined> {
  const decide = decider(opts);
  return async (req, reply) => {
    const a = await decide(req, `${req.method} ${req.url.split("?")[0]}`);
    if (!a.pass) {
      // An early answer from an async hook: send, then return the reply (Fastify's rule).
      return reply.code(a.status).headers(a.headers).type(PROBLEM_JSON).send(JSON.stringify(a.body));
    }
    reply.headers(a.headers);
    reply.raw.once("close", () => void a.release());
    return undefined;
  };
}

export type { RateLimitOptions } from "./core.js";
