// Request bodies: JSON only, at most MAX_BODY_BYTES and MAX_JSON_DEPTH levels deep, checked before any handler runs.
import type { Context, MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { AppEnv } from "../core/context";
import { httpProblem, ProblemError, validationProblem } from "../core/errors";
import { hasRoute } from "../core/http";

export const MAX_BODY_BYTES = 64 * 1024;

/**
 * A signed webhook delivery may be larger: the senders' own events pass 64 KiB (a GitHub push of many
 * commits, a Shopify order of many lines), and a sender refused with 413 never stops retrying — or,
 * like GitHub, never retries. 1 MiB keeps a claim of one such event far under Neon's 10 MiB answer.
 */
export const MAX_DELIVERY_BYTES = 1024 * 1024;

/** Deeper JSON is refused: recursive code (JSON.stringify, Postgres's jsonb parser) overflows its stack on it. */
export const MAX_JSON_DEPTH = 64;

/**
 * The deepest nesting of arrays/objects in a JSON body, strings skipped: a linear scan of the UTF-8
 * bytes (brackets and quotes are ASCII, and no byte of a multi-byte character is), no recursion.
 */
export function jsonDepth(bytes: Uint8Array): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const ch = bytes[i];
    if (inString) {
      if (ch === 0x5c /* \ */) i++;
      else if (ch === 0x22 /* " */) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x5b /* [ */ || ch === 0x7b /* { */) max = Math.max(max, ++depth);
    else if (ch === 0x5d /* ] */ || ch === 0x7d /* } */) depth--;
  }
  return max;
}

/**
 * Bodies are JSON, at most 64 KiB (1 MiB where `larger` says so: webhook deliveries) and 64 levels
 * deep; anything else is refused before a handler runs.
 */
export function jsonBodies(opts: { larger?: (c: Context<AppEnv>) => boolean } = {}): MiddlewareHandler<AppEnv> {
  const limitOf = (maxSize: number) =>
    bodyLimit({
      maxSize,
      onError: () => {
        throw httpProblem(413, `The body is larger than ${maxSize} bytes.`);
      },
    });
  const normal = limitOf(MAX_BODY_BYTES);
  const large = limitOf(MAX_DELIVERY_BYTES);
  return async (c, next) => {
    const hasBody = Number(c.req.header("Content-Length") ?? "0") > 0 || c.req.header("Transfer-Encoding") !== undefined;
    // No route for this method and path: 404, whatever the body (it is never read).
    if (!hasBody || c.req.method === "GET" || c.req.method === "HEAD" || !hasRoute(c)) return next();
    const type = (c.req.header("Content-Type") ?? "").split(";")[0].trim().toLowerCase();
    if (!/^application\/([\w.-]+\+)?json$/.test(type)) {
      throw httpProblem(415, `Send the body as application/json (got ${JSON.stringify(type || "no Content-Type")}).`);
    }
    // Until the whole body is in, a failure to read it is the client's: it hung up mid-body.
    let reading = true;
    try {
      const limit = opts.larger?.(c) ? large : normal;
      return await limit(c, async () => {
        // Read the raw bytes once here (hono caches them for the validator, the idempotency hash and
        // the webhook signature) so the depth is checked before anything parses the body.
        const bytes = new Uint8Array(await c.req.arrayBuffer());
        reading = false;
        if (jsonDepth(bytes) > MAX_JSON_DEPTH) {
          const message = `JSON nested deeper than ${MAX_JSON_DEPTH} levels`;
          throw validationProblem(`body: ${message}.`, [{ in: "body", path: "(root)", message }]);
        }
        await next();
      });
    } catch (err) {
      if (!reading || err instanceof ProblemError) throw err;
      throw bodyNotReceived(c, err);
    }
  };
}

/**
 * The body could not be read: the connection closed before the Content-Length (or the last chunk)
 * arrived — workerd's "Network connection lost". Nothing ran and no one waits for the answer, so it
 * is not the Worker's error (onError would log it as one): a debug line, and a 400 for the record.
 */
function bodyNotReceived(c: Context, err: unknown): ProblemError {
  console.debug("request body not received (the client disconnected)", c.req.method, new URL(c.req.url).pathname, String((err as Error)?.message ?? err));
  return httpProblem(400, "The request body ended before it was complete (the connection closed); nothing was run.");
}
