// Mutations of valid requests. Random input rarely gets past validation, so each capability's valid
// examples (test/support/capabilities.ts) are mutated one part at a time: a field replaced, removed
// or nested too deep, a query value or a path segment made hostile. These reach the handlers and the
// SQL with almost-valid input.
import fc from "fast-check";
import { TOKEN } from "../../support";
import type { HttpCall } from "../../support/capabilities";
import type { Operation, Schema, Target } from "./document";
import { encoded, fitsServer, type Sent, SHARED_KEYS } from "./requests";
import { adversarialString, valueFor, wrongType } from "./values";

/** A stand-in value, replaced in the body's text by JSON nested `depth` deep (withDeep). */
export const DEEP = "\u0001deep\u0001";
const nested = (n: number) => `{"deep":${"[".repeat(n)}${"]".repeat(n)}}`;
export const withDeep = (text: string, n: number) => text.split(JSON.stringify(DEEP)).join(nested(n));

/** The app's limit (functions/http/app.ts MAX_JSON_DEPTH), probed at and past it. */
export const MAX_DEPTH = 64;

/** `seed` (a valid request to `op`) with its parts replaced one at a time: path segments, query values, body fields. */
export function mutationsOf(target: Target, op: Operation, seed: HttpCall): fc.Arbitrary<Sent> {
  const [p, qs] = seed.path.split("?");
  const query = [...new URLSearchParams(qs ?? "")];
  const segments = p.split("/");
  const template = op.path.split("/");
  // A raw-string body (a signed webhook delivery) is kept or replaced whole; an object field by field.
  const raw = typeof seed.body === "string" ? seed.body : undefined;
  const body = raw === undefined ? (seed.body as Record<string, unknown> | undefined) : undefined;
  const props: Record<string, Schema> = op.body ? (target.schemas.resolve(op.body).properties ?? {}) : {};
  const part = <T>(orig: T, alternatives: fc.Arbitrary<unknown>) =>
    fc.oneof({ weight: 4, arbitrary: fc.constant<unknown>(orig) }, { weight: 1, arbitrary: alternatives });
  const hostile = fc.oneof(adversarialString, wrongType, fc.constant(DEEP));
  return fc
    .record({
      segments: fc.tuple(...segments.map((seg, i) => (template[i]?.startsWith("{") ? part(seg, encoded(adversarialString)) : fc.constant(seg)))),
      query: fc.tuple(
        ...query.map(([k, v]) =>
          part(
            `${k}=${encodeURIComponent(v)}`,
            fc.oneof(
              encoded(adversarialString).map((x) => `${k}=${x}`),
              fc.constant(""),
            ),
          ),
        ),
      ),
      body: body
        ? fc.record(
            Object.fromEntries(
              Object.entries(body).map(([k, v]) => [
                k,
                fc.option(part(v, fc.oneof(valueFor(target.schemas, props[k] ?? {}), hostile)), { nil: undefined, freq: 12 }),
              ]),
            ),
          )
        : raw !== undefined
          ? part(
              raw,
              fc.oneof(
                adversarialString,
                fc.jsonValue().map((v) => JSON.stringify(v)),
              ),
            )
          : fc.constant(undefined),
      depth: fc.constantFrom(MAX_DEPTH - 2, MAX_DEPTH - 1, MAX_DEPTH, 5_000, 30_000),
      // One mutation in five carries a shared key.
      key: fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom(...SHARED_KEYS) }),
    })
    .map(({ segments: segs, query: qv, body: b, depth, key }) => {
      const q = (qv as string[]).filter(Boolean);
      const headers: Record<string, string> = { ...seed.headers, Authorization: `Bearer ${TOKEN}`, ...(key ? { "Idempotency-Key": key } : {}) };
      if (b !== undefined) headers["Content-Type"] = "application/json";
      return {
        url: target.url + (segs as string[]).join("/") + (q.length ? "?" + q.join("&") : ""),
        method: seed.method,
        headers,
        body: b === undefined ? undefined : typeof b === "string" ? b : withDeep(JSON.stringify(b), depth),
      };
    })
    .filter(fitsServer);
}
