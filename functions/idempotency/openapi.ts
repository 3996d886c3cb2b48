// The Idempotency-Key header in the OpenAPI document: the middleware reads it on every keyed
// operation, so no route declares it itself.
import { HEADER_VALUE_PATTERN, IDEMPOTENCY_HEADER } from "../core/http";
import { MAX_KEY_LENGTH } from "./claim";
import { KEYED_METHODS } from "./middleware";

/** Adds the optional `Idempotency-Key` header to every keyed operation under /v1 of an OpenAPI document. */
export function documentIdempotencyKey<D extends { paths?: object }>(doc: D, exempt: (method: string, path: string) => boolean): D {
  for (const [path, item] of Object.entries((doc.paths ?? {}) as Record<string, Record<string, unknown>>)) {
    if (!path.startsWith("/v1/")) continue;
    for (const [method, op] of Object.entries(item)) {
      if (!KEYED_METHODS.has(method.toUpperCase()) || exempt(method, path) || typeof op !== "object" || op === null) continue;
      const operation = op as { parameters?: unknown[] };
      operation.parameters = [
        ...(operation.parameters ?? []),
        {
          name: IDEMPOTENCY_HEADER,
          in: "header",
          required: false,
          schema: { type: "string", minLength: 1, maxLength: MAX_KEY_LENGTH, pattern: HEADER_VALUE_PATTERN },
          description:
            "Makes the request safe to retry while the key is kept (`IDEMPOTENCY_TTL_S`, 24 h by default): a retry with the same key and the same method, path and body replays the stored response (`Idempotent-Replayed: true`) and does not run again; the same key with another request → 422 `/problems/idempotency-key-reused`; while the first is still running → 409 `/problems/idempotency-key-in-use` with `Retry-After`.",
        },
      ];
    }
  }
  return doc;
}
