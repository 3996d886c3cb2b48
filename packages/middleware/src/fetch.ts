// The fetch-handler wrapper: any `(Request, ...) => Response` handler (Next.js route handlers and
// middleware, Bun.serve, Deno.serve, a Worker's fetch) checked by Admit before it runs. Web-standard
// APIs only. A concurrency permit is given back when the response body has been sent or the client
// stopped reading it (the stream's cancel), or at once for a response without a body.
import { decider, PROBLEM_JSON, type RateLimitOptions } from "./core.js";

/** A response whose body, once finished or cancelled, calls `done` (once). */
function onBodyEnd(res: Response, headers: Record<string, string>, done: () => void): Response {
  const h = new Headers(res.headers);
  for (const [k, v] of Object.entries(headers)) h.set(k, v);
  if (!res.body) {
    done();
    return new Response(null, { status: res.status, statusText: res.statusText, headers: h });
  }
  const reader = res.body.getReader();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const r = await reader.read();
        if (r.done) {
          controller.close();
          done();
        } else controller.enqueue(r.value);
      } catch (err) {
        controller.error(err);
        done();
      }
    },
    cancel(reason) {
      done();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: res.status, statusText: res.statusText, headers: h });
}

/**
 * `handler` checked by Admit first: a refusal is answered without calling it (429 problem+json with
 * `RateLimit`, `RateLimit-Policy` and `Retry-After`; 503/504 per the fail mode when Admit is not
 * reached); otherwise its response carries the RateLimit headers.
 *
 * @example
 * export const GET = withRateLimit((req) => Response.json({ ok: true }), {
 *   baseUrl: process.env.ADMIT_URL!, token: process.env.ADMIT_TOKEN!, policy: "api",
 *   key: (req) => req.headers.get("x-api-key") ?? "anonymous",
 * });
 */
export function withRateLimit<A extends unknown[]>(
  handler: (req: Request, ...rest: A) => Response | Promise<Response>,
  opts: RateLimitOptions<Request>,
): (req: Request, ...rest: A) => Promise<Response> {
  const decide = decider(opts);
  return async (req, ...rest) => {
    const a = await decide(req, `${req.method} ${new URL(req.url).pathname}`);
    if (!a.pass) return new Response(JSON.stringify(a.body), { status: a.status, headers: { ...a.headers, "Content-Type": PROBLEM_JSON } });
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      void a.release();
    };
    try {
      return onBodyEnd(await handler(req, ...rest), a.headers, release);
    } catch (err) {
      release();
      throw err;
    }
  };
}

export type { Admission, RateLimitOptions } from "./core.js";
