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
 * The deepest nesting of arrays/objects in a JSON body, strings skipped: a linear scan of its UTF-8
 * bytes or its text (brackets and quotes are ASCII, and no byte of a multi-byte character is, nor
 * any UTF-16 unit of one), no recursion.
 */
export function jsonDepth(body: Uint8Array | string): number {
  const at = typeof body === "string" ? (i: number) => body.charCodeAt(i) : (i: number) => body[i];
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const ch = at(i);
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
  const tooLarge = (maxSize: number) => httpProblem(413, `The body is larger than ${maxSize} bytes.`);
  const limitOf = (maxSize: number) =>
    bodyLimit({
      maxSize,
      onError: () => {
        throw tooLarge(maxSize);
      },
    });
  const normal = limitOf(MAX_BODY_BYTES);
  const large = limitOf(MAX_DELIVERY_BYTES);
  return async (c, next) => {
    const length = c.req.header("Content-Length");
    const chunked = c.req.header("Transfer-Encoding") !== undefined;
    // No route for this method and path: 404, whatever the body (it is never read).
    if (!(Number(length ?? "0") > 0 || chunked) || c.req.method === "GET" || c.req.method === "HEAD" || !hasRoute(c)) return next();
    const type = (c.req.header("Content-Type") ?? "").split(";")[0].trim().toLowerCase();
    if (!/^application\/([\w.-]+\+)?json$/.test(type)) {
      throw httpProblem(415, `Send the body as application/json (got ${JSON.stringify(type || "no Content-Type")}).`);
    }
    // Until the whole body is in, a failure to read it is the client's: it hung up mid-body.
    let reading = true;
    const larger = opts.larger?.(c) ?? false;
    const read = async () => {
      // Read the body once here (Hono caches it) so the depth is checked before anything parses it.
      // A signed delivery as its raw bytes: its signature is over exactly those. Any other body as
      // its text: what the validator and a scoped key's name check parse (Hono's json() reads only a
      // cached text, and would otherwise decode a Response around the bytes on every call); the
      // idempotency hash reads the text's UTF-8 bytes.
      const body = larger ? new Uint8Array(await c.req.arrayBuffer()) : await c.req.text();
      reading = false;
      if (jsonDepth(body) > MAX_JSON_DEPTH) {
        const message = `JSON nested deeper than ${MAX_JSON_DEPTH} levels`;
        throw validationProblem(`body: ${message}.`, [{ in: "body", path: "(root)", message }]);
      }
      await next();
    };
    try {
      // A declared length is checked here, as bodyLimit would; a chunked body is counted by bodyLimit as it arrives.
      if (length !== undefined && !chunked) {
        const max = larger ? MAX_DELIVERY_BYTES : MAX_BODY_BYTES;
        if (Number.parseInt(length, 10) > max) throw tooLarge(max);
        return await read();
      }
      return await (larger ? large : normal)(c, read);
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
