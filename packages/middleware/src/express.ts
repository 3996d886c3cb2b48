// Express middleware: Admit checks the request before the route runs; a concurrency permit is given
// back when the response has been sent or the connection closed (the response's `close` event,
// which Node emits after the last byte and also when the client hangs up).
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { decider, PROBLEM_JSON, type RateLimitOptions } from "./core.js";

/**
 * @example
 * app.use("/api", rateLimit({ baseUrl: process.env.ADMIT_URL!, token: process.env.ADMIT_TOKEN!, policy: "api", key: (req) => req.ip ?? "anonymous" }));
 */
export function rateLimit(opts: RateLimitOptions<Request>): RequestHandler {
  const decide = decider(opts);
  return (req: Request, res: Response, next: NextFunction) => {
    decide(req, `${req.method} ${req.originalUrl.split("?")[0]}`).then((a) => {
      if (!a.pass) {
        res.status(a.status).set(a.headers).type(PROBLEM_JSON).send(JSON.stringify(a.body));
        return;
      }
      res.set(a.headers);
      res.once("close", () => void a.release());
      next();
    }, next);
  };
}

export type { RateLimitOptions } from "./core.js";
