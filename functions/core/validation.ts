// Input schemas shared by every capability, and the hook that turns zod failures into 422 problems.
import { z } from "@hono/zod-openapi";
import canonicalize from "canonicalize";
import type { Context } from "hono";
import { decodeBase64Url, encodeBase64Url } from "hono/utils/encode";
import { validationProblem } from "./errors";

/**
 * `value` as canonical JSON (RFC 8785, the `canonicalize` package), or why it has none: NaN,
 * Infinity, a lone surrogate, a cycle, a BigInt. Over HTTP a body is JSON already; over RPC,
 * structured clone carries all of these.
 */
export function canonicalJson(value: unknown): { json: string } | { error: string } {
  try {
    const json = canonicalize(value ?? null);
    return json === undefined ? { error: "not a JSON value" } : { json };
  } catch (err) {
    return { error: String((err as Error)?.message ?? err) };
  }
}

/**
 * A caller's JSON object that Admit stores (a reservation's metadata, a check's info): refused with
 * a 422 when it has no JSON form (rather than stored with `null` for a NaN, or thrown for a cycle)
 * or is over `maxBytes` of UTF-8 as canonical JSON.
 */
export function jsonObject(maxBytes: number) {
  return z.record(z.string(), z.unknown()).superRefine((v, ctx) => {
    const c = canonicalJson(v);
    if ("error" in c) ctx.addIssue({ code: "custom", message: `must be plain JSON (${c.error})` });
    else if (new TextEncoder().encode(c.json).length > maxBytes) ctx.addIssue({ code: "custom", message: `must serialise to at most ${maxBytes} bytes` });
  });
}

/**
 * Why Postgres would not store `s` as itself, or undefined: a lone surrogate reaches it as U+FFFD
 * (the driver's TextEncoder), so two different strings would become one; a NUL is refused.
 */
export function unstorableText(s: string): string | undefined {
  if (!s.isWellFormed()) return "must be well-formed Unicode (no lone surrogates)";
  if (s.includes("\u0000")) return "must not contain NUL characters";
  return undefined;
}

/** No NUL (what `name()` documents as its pattern; a lone surrogate cannot be said in one). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is what it refuses
const STORABLE = /^[^\u0000]*$/;
/** The same, and not "." or "..": what `name({ segment: true })` documents. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is what it refuses
const SEGMENT = /^(?!\.\.?$)[^\u0000]*$/;
/** "." and "..": dot-segments, which URL parsers (the client's, the runtime's) resolve away before routing. */
export const DOT_SEGMENT_MESSAGE = 'must not be "." or "..": a URL cannot name it (the client resolves such a path segment away)';

/**
 * A 1–max character string that Postgres can store and the lock hash reads as the same bytes.
 * `segment`: the name of a thing that some route addresses by a path segment (a lock key, an item, a
 * semaphore, a resource): "." and ".." are refused where it is created, since no URL could reach it.
 */
export function name(max = 200, opts: { segment?: boolean } = {}) {
  const text = z.string().min(1).max(max).regex(STORABLE, "must not contain NUL characters");
  const checked = opts.segment ? text.refine((s) => s !== "." && s !== "..", DOT_SEGMENT_MESSAGE) : text;
  return checked
    .superRefine((s, ctx) => {
      if (!s.isWellFormed()) ctx.addIssue({ code: "custom", message: unstorableText(s) ?? "" });
    })
    .openapi({ pattern: (opts.segment ? SEGMENT : STORABLE).source });
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:Z|([+-])(\d{2}):(\d{2}))$/i;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const US_PER_S = 1_000_000n;
const MIN_US = -62135596800n * US_PER_S; // 0001-01-01T00:00:00Z
const MAX_US = 253402300800n * US_PER_S; // 10000-01-01T00:00:00Z (exclusive)

/**
 * The instant an RFC 3339 date-time names, in whole microseconds since the epoch (what Postgres
 * stores): extra fractional digits rounded half up, the offset (any RFC 3339 offset, including
 * ±16:00 … ±23:59, which Postgres itself refuses) applied. Undefined when it names no real instant
 * (Feb 30, 24:00, …) or lies outside years 0001–9999 in UTC.
 */
export function rfc3339Micros(s: string): bigint | undefined {
  const m = RFC3339.exec(s);
  if (!m) return undefined;
  const [y, mo, d, h, mi, sec] = m.slice(1, 7).map(Number);
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  if (mo < 1 || mo > 12 || d < 1 || d > (mo === 2 && leap ? 29 : DAYS_IN_MONTH[mo - 1]) || h > 23 || mi > 59 || sec > 59) return undefined;
  const offH = m[9] === undefined ? 0 : Number(m[9]);
  const offM = m[10] === undefined ? 0 : Number(m[10]);
  if (offH > 23 || offM > 59) return undefined;
  const day = new Date(0);
  day.setUTCFullYear(y, mo - 1, d);
  const secs = BigInt(day.getTime() / 1000) + BigInt(h * 3600 + mi * 60 + sec) - (m[8] === "-" ? -1n : 1n) * BigInt(offH * 3600 + offM * 60);
  const frac = (m[7] ?? "").padEnd(7, "0");
  const micros = BigInt(frac.slice(0, 6)) + (Number(frac[6]) >= 5 ? 1n : 0n);
  const us = secs * US_PER_S + micros;
  return us >= MIN_US && us < MAX_US ? us : undefined;
}

/** The canonical form of an instant in microseconds, as admit_rfc3339() writes it: UTC, trailing zero fractions trimmed. */
function canonical(us: bigint): string {
  const s = us / US_PER_S - (us % US_PER_S < 0n ? 1n : 0n);
  const frac = (us - s * US_PER_S).toString().padStart(6, "0").replace(/0+$/, "");
  return new Date(Number(s) * 1000).toISOString().slice(0, 19) + (frac ? "." + frac : "") + "Z";
}

/** Whether `s` is an instant Postgres's timestamptz holds as the same instant: RFC 3339, years 0001–9999 (a cursor's time). */
export function isInstant(s: string | undefined): boolean {
  return s !== undefined && rfc3339Micros(s) !== undefined;
}

const INT8_MAX = 9_223_372_036_854_775_807n;

/** Whether `s` is the decimal text of a non-negative integer Postgres's bigint holds (a cursor's id or count). */
export function isInt8(s: string | undefined): boolean {
  return s !== undefined && /^\d{1,19}$/.test(s) && BigInt(s) <= INT8_MAX;
}

/** `a` is a later instant than `b` (both valid RFC 3339, e.g. values of Rfc3339), at microsecond precision. */
export function isLater(a: string, b: string): boolean {
  return rfc3339Micros(a)! > rfc3339Micros(b)!;
}

/**
 * RFC 3339 date-time with a `Z` or numeric offset, years 0001–9999 (UTC). The value handed on is the
 * canonical UTC form at microsecond precision — exactly what Postgres will store — so every check in
 * the Worker (end after start, with isLater) judges the same instant the database does.
 */
export const Rfc3339 = z
  .string()
  .regex(RFC3339, "must be an RFC 3339 date-time with offset, e.g. 2021-01-01T14:45:00Z")
  .refine((s) => !RFC3339.test(s) || rfc3339Micros(s) !== undefined, "must be a real instant between years 0001 and 9999 (UTC)")
  .transform((s) => canonical(rfc3339Micros(s)!))
  .openapi({ type: "string", format: "date-time", example: "2021-01-01T14:45:00Z" });

interface HookResult {
  success: boolean;
  target?: string;
  error?: { issues: Array<{ path: PropertyKey[]; message: string; code?: string; keys?: string[] }> };
}

/** The message of every 422 for a field a body's schema does not have. */
export const UNKNOWN_FIELD = "unknown field: not in this operation's schema (misspelt?)";

/**
 * `defaultHook` of the app: every validation failure is a 422 with `errors: [{path, message}]`. A
 * field a body's schema does not have (every body schema is a strict object: the document says
 * `additionalProperties: false`) is one error per field, its path the field's own, so that a typo in
 * an optional field is refused by name rather than dropped and its default applied.
 */
export function validationHook(result: HookResult, _c: Context): void {
  if (result.success) return;
  const where = result.target === "json" ? "body" : (result.target ?? "input");
  const at = (path: PropertyKey[]) => path.map(String).join(".") || "(root)";
  const errors = (result.error?.issues ?? []).flatMap((i) =>
    i.code === "unrecognized_keys" && i.keys
      ? i.keys.map((k) => ({ in: where, path: at([...i.path, k]), message: UNKNOWN_FIELD }))
      : [{ in: where, path: at(i.path), message: i.message }],
  );
  const detail = errors.map((e) => `${e.in} ${e.path}: ${e.message}`).join("; ");
  throw validationProblem(detail, errors);
}

/** The message of every 422 for a `cursor` no list returned. */
export const CURSOR_INVALID = "invalid cursor";

/** The most items one page of a list (`GET` of a collection) carries. */
export const MAX_LIST_PAGE = 1000;

/**
 * The `cursor` query parameter of every list: a `next_cursor` this endpoint returned, opaque to the
 * client. Text Postgres cannot store as itself (a NUL, a lone surrogate) is no cursor any list gave:
 * 422 "invalid cursor" naming the parameter, before the database is asked. A list whose cursors have
 * a structure checks it too (decodeCursor, a pattern) with the same message.
 */
export const Cursor = z
  .string()
  .min(1)
  .max(500)
  .regex(STORABLE, CURSOR_INVALID)
  .refine((s) => s.isWellFormed(), CURSOR_INVALID)
  .openapi({ param: { name: "cursor", in: "query" }, description: "`next_cursor` of the previous page" });

/** `limit` and `cursor` of a list keyset-paged by name: the cursor is the previous page's last name. */
export const PageQuery = z.object({
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(MAX_LIST_PAGE)
    .default(100)
    .openapi({ param: { name: "limit", in: "query" }, description: "Page size, 1–1000 (default 100)" }),
  cursor: Cursor.optional(),
});

/**
 * The most bytes of item JSON one page of a list whose items can be large carries (its first item
 * always): far under the 10 MiB that Neon's HTTP SQL endpoint answers at most, which the page also
 * crosses on its way, its JSON escaped inside Neon's own.
 */
export const MAX_PAGE_BYTES = 2 * 1024 * 1024;

/** A page cut in SQL (admit_page: at `limit` items or MAX_PAGE_BYTES), with the cursor after its last item when more follow. */
export function cutPage<T>(page: { items: T[]; more: boolean }, cursorOf: (item: T) => string): { items: T[]; next_cursor: string | null } {
  const last = page.items[page.items.length - 1];
  return { items: page.items, next_cursor: page.more && last !== undefined ? cursorOf(last) : null };
}

/** One page of `rows` (fetched with LIMIT limit + 1) and the cursor to the next one, or null at the end. */
/** An opaque `next_cursor` of several parts (a start and an id, a key and a start): base64url of JSON. */
export function encodeCursor(parts: string[]): string {
  return encodeBase64Url(new TextEncoder().encode(JSON.stringify(parts)).buffer as ArrayBuffer);
}

/**
 * The parts of a cursor made by encodeCursor() that `ok` accepts, or the 422 for a cursor this
 * endpoint did not give. A part Postgres cannot store as itself (a NUL, a lone surrogate) is refused
 * here for every list; `ok` checks the rest against what its columns hold (isInstant, isInt8).
 */
export function decodeCursor(cursor: string, ok: (parts: string[]) => boolean): string[] {
  try {
    const parts: unknown = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(decodeBase64Url(cursor)));
    if (Array.isArray(parts) && parts.every((p) => typeof p === "string" && unstorableText(p) === undefined) && ok(parts)) return parts;
  } catch {
    /* not base64url JSON: fall through */
  }
  throw validationProblem("cursor is not a next_cursor returned by this endpoint.", [{ in: "query", path: "cursor", message: CURSOR_INVALID }]);
}

export function namePage<T>(rows: T[], limit: number, nameOf: (row: T) => string): { items: T[]; next_cursor: string | null } {
  const more = rows.length > limit;
  const items = more ? rows.slice(0, limit) : rows;
  return { items, next_cursor: more ? nameOf(items[items.length - 1]) : null };
}

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** True when `id` is a UUID: a path id that is not one names nothing (a 404 before a ::uuid cast could fail). */
export function isUuid(id: string): boolean {
  return UUID.test(id);
}

/**
 * A UUID the client sends back (a lease or permit id): what `format: uuid` says, 8-4-4-4-12
 * hexadecimal digits of any version and variant, which Postgres's uuid type takes. (zod's own
 * z.uuid() refuses versions and variants Admit does not issue, which the document did not say.)
 */
export const Uuid = z
  .string()
  .regex(UUID, "must be a UUID: 8-4-4-4-12 hexadecimal digits")
  .openapi({ format: "uuid", example: "0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e" });

/**
 * `schema`'s output for `value`, or the 422 the app's validation hook answers: for input that does
 * not arrive through a Hono validator (the RPC entrypoint's methods validate with the HTTP routes'
 * own schemas, so the rules and the `errors` are the same).
 */
export function valid<S extends z.ZodType>(schema: S, value: unknown, target: "param" | "json" | "options"): z.output<S> {
  const r = schema.safeParse(value);
  if (!r.success) validationHook({ success: false, target, error: r.error }, undefined as never);
  return r.data as z.output<S>;
}

const NO_BODY = z.strictObject({});

/**
 * An RPC method's input — one object holding a route's path parameters and its body's fields —
 * split by the parameters' names and validated with the route's own schemas: `param` (its path
 * parameters) and `json` (its body schema, strict like every body's; a route without a body takes no
 * other field). So a field the route does not have is refused by name, as over HTTP.
 */
export function validInput<P extends z.ZodObject, B extends z.ZodType = typeof NO_BODY>(
  input: unknown,
  param: P,
  json?: B,
): { param: z.output<P>; json: z.output<B> } {
  const given = typeof input === "object" && input !== null && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
  const p: Record<string, unknown> = {};
  const b: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(given)) (Object.hasOwn(param.shape, k) ? p : b)[k] = v;
  return { param: valid(param, p, "param"), json: valid(json ?? NO_BODY, b, "json") as z.output<B> };
}

/** A route's JSON body schema. */
export function bodyOf<S extends z.ZodType>(route: { request: { body: { content: { "application/json": { schema: S } } } } }): S {
  return route.request.body.content["application/json"].schema;
}

// Claims (leases, semaphore permits): their bounds, shared by the permits capability and the
// concurrency limit of ratelimits' middleware, which takes a permit of a semaphore.
export const MIN_TTL_MS = 1_000;
export const MAX_TTL_MS = 3_600_000;
export const MAX_PERMITS = 10_000;
export const TtlMs = z.number().int().min(MIN_TTL_MS).max(MAX_TTL_MS);
export const Holder = name().openapi({ example: "worker-7", description: "Who holds it (for GET and 409 answers). 1–200 characters." });
