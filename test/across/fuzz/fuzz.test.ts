// Bad input, property-based (fast-check): every operation of the app's own OpenAPI document — so a
// new route is covered the moment it is registered — under random and adversarial path segments,
// query strings, headers and bodies. Whatever comes in: never a 5xx; a 4xx is problem+json whose
// `status` matches; a rejected request writes nothing (the database's content is unchanged); and
// every response is the one the document declares for that operation and status — status, content
// type and body schema, checked with Ajv (test/support/contract.ts). Over 10 000 requests per run; the count
// and the number of schema mismatches are printed.

import { request as httpRequest } from "node:http";
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tallyFor } from "../../../functions/core/tally";
import { bindings, servedApp, sql, TOKEN, until } from "../../support";
import { examples, type HttpCall } from "../../support/capabilities";
import { allowFor, contract, NO_OPERATION, operationFor } from "../../support/contract";

// What this suite judges is how input is handled, not the time budget (test/faults*.test.ts do): the
// suites' wide budget (servedApp), so a neighbour's load stalling the machine cannot pass for a 5xx
// caused by the input (seen once in a full run: a plain stock PUT answered 504 after 5 s).
// The isolate's counts flush at once (METRICS_FLUSH_MS 0), and each fingerprint waits for them: a
// flush of earlier answers (a cached denial's attempted/rejected) must not pass for a write of the request.
const suite = servedApp("fuzz", { METRICS_FLUSH_MS: "0" });

type Schema = Record<string, any>;
interface Operation {
  method: string;
  path: string;
  /** Documented content types per status, e.g. {"429": ["application/json"]}. */
  responses: Record<string, string[]>;
  params: Array<{ name: string; in: "path" | "query" | "header"; required: boolean; schema: Schema }>;
  body?: Schema;
}

let doc: any;
const operations: Operation[] = [];
let tables: string[] = [];
/** The document as the contract: every response is checked against its (operation, status) schema. */
let conforms: ReturnType<typeof contract>;
/** Requests sent by this file, and responses that broke the document (with the request that got them). */
let sent = 0;
const mismatches: string[] = [];
/** Problem types answered, e.g. how often a shared key was reused or still in use. */
const problemTypes: Record<string, number> = {};

beforeAll(async () => {
  doc = (await suite.api("GET", "/openapi.json")).json;
  conforms = contract(doc);
  for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      operations.push({
        method: method.toUpperCase(),
        path,
        responses: Object.fromEntries(Object.entries<any>(op.responses ?? {}).map(([status, r]) => [status, Object.keys(r?.content ?? {})])),
        params: (op.parameters ?? []).map((p: any) => ({ name: p.name, in: p.in, required: !!p.required, schema: p.schema ?? {} })),
        body: op.requestBody?.content?.["application/json"]?.schema,
      });
    }
  }
  tables = (
    await sql<{ t: string }>(
      suite.db,
      "SELECT quote_ident(table_name) AS t FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1",
    )
  )
    .map((r) => r.t)
    // The metric counters count every answer, refusals included (docs/observability.md): no state a request changes.
    .filter((t) => !t.startsWith("metric_"));
});

/**
 * Tables compared by their logical content. Expiry is marked lazily by design — an expired claim or
 * hold is set timed out / expired by whichever request touches its key next, even one that is then
 * refused — so each row is read as if every expiry had already been marked. That view does not move
 * with the clock or with lazy marking; any real change (a claim, release, renewal, booking, confirm,
 * cancel) still shows.
 */
const LOGICAL: Record<string, string> = {
  permits: `SELECT id, kind, name, slot, holder, fencing_token, ttl_ms, claimed_at, expires_at, renewed_at, released_at,
                   coalesce(timed_out_at, CASE WHEN released_at IS NULL THEN expires_at END) AS timed_out_at FROM permits`,
  inventory_bookings: `SELECT id, item, holder, check_in, check_out, quantity, CASE WHEN status = 'held' THEN 'expired' ELSE status END AS status,
                              expires_at, created_at, confirmed_at, cancelled_at FROM inventory_bookings`,
  inventory_tokens: `SELECT id, item, night, slot, CASE WHEN held_until IS NULL THEN booking_id END AS booking_id FROM inventory_tokens`,
  // Kept from `permits` by triggers (schema/000071): in_use is derived, and the free slots read as if
  // every unfinished claim had been marked timed out (its slot free again, below the semaphore's size).
  semaphores: `SELECT name, permits, default_ttl_ms, created_at, updated_at FROM semaphores`,
  semaphore_free_slots: `SELECT name, slot FROM semaphore_free_slots
                         UNION SELECT p.name, p.slot FROM permits p JOIN semaphores s ON s.name = p.name
                          WHERE p.kind = 'semaphore' AND p.released_at IS NULL AND p.timed_out_at IS NULL AND p.slot < s.permits`,
};

/** A digest of every row of each table: equal before and after means nothing was written. */
async function fingerprint(): Promise<Record<string, string>> {
  await until(async () => tallyFor(bindings(suite.db))?.idle ?? true, 30_000, "the tally to flush");
  const parts = tables.map(
    (t) =>
      `${sqlLiteral(t)}, (SELECT count(*) || ':' || coalesce(md5(string_agg(x::text, '|' ORDER BY x::text)), '') FROM ${LOGICAL[t] ? `(${LOGICAL[t]})` : t} x)`,
  );
  const [{ f }] = await sql<{ f: Record<string, string> }>(suite.db, `SELECT json_build_object(${parts.join(", ")}) AS f`);
  return f;
}
const sqlLiteral = (s: string) => `'${s.replace(/'/g, "''")}'`;

/**
 * The one write a rejected request may make: with an Idempotency-Key, a 4xx that is the request's
 * real outcome (e.g. 409) is stored so a retry replays it (functions/idempotency/). Input errors,
 * limits and anything carrying Retry-After are not.
 */
const IDEMPOTENCY_NOT_STORED = new Set([400, 401, 403, 404, 405, 408, 413, 415, 422, 425, 429]);
function mayStoreOutcome(r: Sent, status: number, retryAfter: string | null): boolean {
  const keyed = Object.keys(r.headers).some((h) => h.toLowerCase() === "idempotency-key");
  return keyed && status < 500 && !IDEMPOTENCY_NOT_STORED.has(status) && retryAfter === null;
}

const resolve = (s: Schema): Schema => (s?.$ref ? resolve(doc.components.schemas[s.$ref.split("/").pop()]) : (s ?? {}));

// ---------- adversarial values ----------

const SQL = ["'; DROP TABLE reservations; --", "' OR '1'='1", "$1", "$$; SELECT pg_sleep(10); $$", "\\", "%", "_", "E'\\x00'", "1; COMMIT; BEGIN"];
const WEIRD = [
  "",
  " ",
  "\u0000",
  "a\u0000b",
  "\ud800",
  "\udfff x",
  "\uffff",
  "💥",
  "a/b",
  "%2F",
  "..",
  "../../etc/passwd",
  "Ω≈ç√",
  "\u202e",
  "null",
  "NaN",
  "-0",
  "1e400",
  "0x10",
  "<script>",
];
const DATES = [
  "0000-00-00",
  "0000-00-00T00:00:00Z",
  "0000-01-01T00:00:00Z",
  "0001-01-01T00:00:00Z",
  "9999-12-31T23:59:59.999Z",
  "10000-01-01T00:00:00Z",
  "275760-09-13T00:00:00Z",
  "+275760-09-13T00:00:00.000Z",
  "-271821-04-20T00:00:00Z",
  "2021-02-30T00:00:00Z",
  "2021-01-01T24:00:00Z",
  "2021-01-01T00:00:60Z",
  "2021-01-01T00:00:00+25:00",
  "2021-01-01T00:00:00",
  "2021-01-01",
  "1970-01-01T00:00:00Z",
  "2021-01-01T00:00:00.123456789Z",
  "2021-01-01t00:00:00z",
  "infinity",
  "-infinity",
  "epoch",
  "now",
];
const NUMBERS = [0, -0, 1, -1, 0.5, 2 ** 31 - 1, 2 ** 31, -(2 ** 31) - 1, 2 ** 53, 2 ** 63, -(2 ** 63), 1e308, -1e308, Number.MIN_VALUE];

const validDate = fc
  .integer({ min: Date.parse("2000-01-01T00:00:00Z"), max: Date.parse("2060-01-01T00:00:00Z") })
  .map((ms) => new Date(Math.floor(ms / 3_600_000) * 3_600_000).toISOString().replace(".000Z", "Z"));
/** The format's edges: 0–9 fractional digits (the database keeps 6, rounding), and every kind of offset. */
const preciseDate = fc
  .tuple(
    validDate,
    fc.integer({ min: 0, max: 9 }),
    fc.nat(999_999_999),
    fc.constantFrom("Z", "z", "+00:00", "-00:00", "+05:30", "+14:00", "-12:00", "+23:59", "-23:59"),
  )
  .map(([d, digits, frac, offset]) => d.slice(0, 19) + (digits ? "." + String(frac).padStart(9, "0").slice(0, digits) : "") + offset);

const hugeString = fc.constantFrom(60_000, 70_000).map((n) => "x".repeat(n));
const adversarialString = fc.oneof(
  fc.constantFrom(...SQL, ...WEIRD, ...DATES),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 20 }),
  fc.constantFrom(201, 1000, 5000).map((n) => "y".repeat(n)),
);
const wrongType = fc.constantFrom<unknown>(null, true, false, [], {}, [1, "a"], { $gt: "" }, ...NUMBERS);

function stringFor(s: Schema): fc.Arbitrary<string> {
  if (s.format === "date-time") return fc.oneof(validDate, preciseDate, fc.constantFrom(...DATES));
  if (s.format === "uuid") return fc.oneof(fc.uuid(), fc.constantFrom("00000000-0000-0000-0000-000000000000"));
  if (s.enum) return fc.constantFrom(...s.enum);
  const min = s.minLength ?? 0;
  const max = Math.min(s.maxLength ?? 30, 30);
  const bounds = [s.minLength, s.maxLength]
    .filter((n) => n !== undefined)
    .flatMap((n: number) => [n - 1, n, n + 1])
    .filter((n) => n >= 0);
  return fc.oneof(
    // A small alphabet, so values collide and some requests are valid and conflict.
    fc.constantFrom("a", "b", "223/345", "x%2Fy", "ü/ñ", "'; DROP TABLE reservations; --"),
    fc.string({ minLength: min, maxLength: max }),
    ...(bounds.length ? [fc.constantFrom(...bounds).map((n) => "z".repeat(n))] : []),
    // The length bounds in other units: characters of 2 bytes, 4 bytes (2 UTF-16 units), combining marks.
    ...(bounds.length
      ? [fc.tuple(fc.constantFrom(...bounds), fc.constantFrom("é", "💥", "e\u0301", "ß", "\u4e2d")).map(([n, ch]) => ch.repeat(n).slice(0, Math.max(n, 1) * 2))]
      : []),
  );
}

function numberFor(s: Schema): fc.Arbitrary<number> {
  const lo = s.minimum ?? s.exclusiveMinimum ?? -1000;
  const hi = s.maximum ?? s.exclusiveMaximum ?? 1000;
  // Bounds, one past them, and just inside/outside them in the last digits of precision.
  const edges = [lo - 1, lo, lo + 1, hi - 1, hi, hi + 1, lo - 0.5, lo + 1e-9, hi - 1e-9, hi + 1e-9, 0.1 + 0.2, 1 - Number.EPSILON, 2 ** 53 + 2];
  return fc.oneof(
    s.type === "integer" ? fc.integer({ min: Math.max(lo, -1e9), max: Math.min(hi, 1e9) }) : fc.double({ min: lo, max: hi, noNaN: true }),
    fc.constantFrom(...edges, ...NUMBERS),
  );
}

/** Values for a JSON Schema: mostly of its shape (valid or at its edges), sometimes hostile. */
function valueFor(raw: Schema, depth = 0): fc.Arbitrary<unknown> {
  const s = resolve(raw);
  const hostile = fc.oneof(adversarialString, wrongType);
  let typed: fc.Arbitrary<unknown>;
  const types: string[] = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  // (An object with its properties and a oneOf narrowing them, as a source PUT's per-scheme rules, is generated from the properties.)
  if ((s.anyOf || s.oneOf || s.allOf) && !s.properties) {
    typed = fc.oneof(...(s.anyOf ?? s.oneOf ?? s.allOf).map((x: Schema) => valueFor(x, depth)));
  } else if (s.enum) {
    typed = fc.constantFrom(...s.enum);
  } else if (types.includes("object") || s.properties) {
    typed = objectFor(s, depth);
  } else if (types.includes("array")) {
    typed = fc.array(valueFor(s.items ?? {}, depth + 1), { maxLength: 4 });
  } else if (types.includes("string")) {
    typed = stringFor(s);
  } else if (types.includes("integer") || types.includes("number")) {
    typed = numberFor(s);
  } else if (types.includes("boolean")) {
    typed = fc.boolean();
  } else {
    typed = depth > 2 ? fc.constant(null) : fc.jsonValue({ maxDepth: 2 });
  }
  if (types.includes("null")) typed = fc.oneof(typed, fc.constant(null));
  return fc.oneof({ weight: 4, arbitrary: typed }, { weight: 1, arbitrary: hostile });
}

function objectFor(s: Schema, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const props = Object.fromEntries(Object.entries<Schema>(s.properties ?? {}).map(([k, v]) => [k, valueFor(v, depth + 1)]));
  const required: string[] = s.required ?? [];
  const base = fc.record(props, { requiredKeys: required.filter((k) => k in props) });
  const extra =
    s.additionalProperties && typeof s.additionalProperties === "object"
      ? fc.dictionary(fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom(...WEIRD)), valueFor(s.additionalProperties, depth + 1), { maxKeys: 3 })
      : fc.dictionary(fc.constantFrom("__proto__", "constructor", "extra", "id", "status"), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 });
  return fc.oneof(
    { weight: 5, arbitrary: base },
    { weight: 1, arbitrary: fc.record(props, { requiredKeys: [] }) }, // required fields missing
    { weight: 1, arbitrary: fc.tuple(base, extra).map(([a, b]) => ({ ...b, ...a })) },
  );
}

// ---------- schema-valid edges ----------
// Values the document allows, at the edges of each format: what a client generated from the document
// may send. Every candidate is checked against the document's own schema (Ajv) before it is used, so
// the request really is schema-valid; the server must not answer it 422 /problems/validation.

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;
let schemaAjv: Ajv2020 | undefined;
const schemaValidators = new Map<string, ValidateFunction>();
/** The document's schema `s` (refs into its components) as a validator. */
function schemaValid(s: Schema): ValidateFunction {
  const key = JSON.stringify(s);
  let v = schemaValidators.get(key);
  if (!v) {
    if (!schemaAjv) {
      schemaAjv = new Ajv2020({ strict: false });
      addFormats(schemaAjv);
      schemaAjv.addSchema(doc, "openapi.json");
    }
    schemaValidators.set(key, (v = schemaAjv.compile(JSON.parse(key.replace(/"#\/components\//g, '"openapi.json#/components/')))));
  }
  return v;
}

const EDGE_TEXT = [
  "a",
  "Z9",
  " lead",
  "trail ",
  "a/b",
  "%",
  "%2F",
  "?q=1&x=2",
  "...",
  ".a",
  "a.",
  "~",
  "\u007f",
  "\t",
  "\u00a0",
  "\ufeff",
  "é",
  "e\u0301",
  "日本",
  "💥",
  "'; --",
  "\\",
];
const EDGE_DATES = [
  "0001-01-01T00:00:00Z",
  "9999-12-31T23:59:59.999999Z",
  "2030-06-01t12:00:00.5z",
  "2030-06-01T12:00:00.123456789+14:00",
  "2030-06-01T12:00:00-00:00",
  "2030-06-01T12:00:00+23:59",
  "2032-02-29T23:59:59-23:59",
];
const EDGE_DAYS = ["0001-01-01", "9999-12-31", "2030-02-28", "2032-02-29", "2030-12-31"];
const EDGE_UUIDS = [
  "00000000-0000-0000-0000-000000000000",
  "ffffffff-ffff-ffff-ffff-ffffffffffff",
  "0b0f4c53-5b5e-1a3c-0d55-0f7f5b0c2f5e",
  "0B0F4C53-5B5E-4A3C-9D55-0F7F5B0C2F5E",
];

/** Schema-valid values of `raw` at its edges (lengths, patterns, bounds, enums, null), each checked by Ajv. */
function edgesFor(raw: Schema, depth = 0): unknown[] {
  const s = resolve(raw);
  const types: string[] = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  const out: unknown[] = [];
  if (s.const !== undefined) out.push(s.const);
  if (s.enum) out.push(...s.enum);
  for (const alt of s.anyOf ?? s.oneOf ?? []) out.push(...edgesFor(alt, depth));
  if (types.includes("null")) out.push(null);
  if (types.includes("boolean")) out.push(true, false);
  if (types.includes("string") && !s.enum) {
    if (s.format === "date-time") out.push(...EDGE_DATES);
    else if (s.format === "date") out.push(...EDGE_DAYS);
    else if (s.format === "uuid") out.push(...EDGE_UUIDS);
    else {
      const min = s.minLength ?? 0;
      const max = Math.min(s.maxLength ?? 300, 600);
      const fill = (ch: string, n: number) => ch.repeat(Math.max(n, 0));
      out.push(fill("a", Math.max(min, 1)), fill("a", max), fill("💥", max), fill("é", max), ...EDGE_TEXT);
      if (s.pattern) {
        // fast-check cannot generate a lookahead: it is left out here, and Ajv below drops what it refuses.
        const generable = new RegExp(s.pattern.replace(/^\^\(\?![^)]*\)/, "^"), "u");
        const matching = fc.sample(fc.stringMatching(generable), { numRuns: 40, seed: 7 });
        const fitting = matching.filter((v) => [...v].length >= min && [...v].length <= max).sort((a, b) => a.length - b.length);
        out.push(...fitting.slice(0, 3), ...fitting.slice(-3));
      }
    }
  }
  if (types.includes("integer") || types.includes("number")) {
    const lo = s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : undefined);
    const hi = s.maximum ?? (s.exclusiveMaximum !== undefined ? s.exclusiveMaximum - 1 : undefined);
    const candidates = [
      lo,
      hi,
      lo === undefined ? undefined : lo + 1,
      hi === undefined ? undefined : hi - 1,
      0,
      1,
      -1,
      2 ** 31 - 1,
      Number.MAX_SAFE_INTEGER,
      -Number.MAX_SAFE_INTEGER,
    ];
    if (types.includes("number")) candidates.push(0.5, lo === undefined ? undefined : lo + 0.25);
    out.push(...candidates.filter((n) => n !== undefined));
  }
  if ((types.includes("object") || s.properties) && depth < 3) {
    const props = Object.entries<Schema>(s.properties ?? {});
    const first = (p: Schema) => edgesFor(p, depth + 1)[0];
    const required = new Set<string>(s.required ?? []);
    out.push(Object.fromEntries(props.filter(([k]) => required.has(k)).map(([k, p]) => [k, first(p)])));
    out.push(Object.fromEntries(props.map(([k, p]) => [k, first(p)])));
    if (s.additionalProperties !== false && props.length === 0) out.push({ a: 1 }, { "k é": "💥", n: null, list: [1, 2.5, true, "x"], o: { deep: [[[]]] } });
  }
  if (types.includes("array") && depth < 3) {
    const items = edgesFor(s.items ?? {}, depth + 1);
    const min = s.minItems ?? 0;
    const max = Math.min(s.maxItems ?? 3, 20);
    for (const n of new Set([min, Math.max(min, 1), max])) out.push(Array.from({ length: n }, (_, i) => items[i % Math.max(items.length, 1)]));
  }
  if (types.length === 0 && !s.enum && !s.anyOf && !s.oneOf && s.const === undefined && depth < 3) out.push({}, "x", 1, null);
  const valid = schemaValid(raw);
  const seen = new Set<string>();
  return out.filter((v) => {
    const k = JSON.stringify(v);
    if (seen.has(k) || !valid(v)) return false;
    seen.add(k);
    return true;
  });
}

const IDEMPOTENCY_KEY = "Idempotency-Key";
const run = Date.now().toString(36);
let oneCharKeys = 0;
/** `key` made unique to request `n` of this run, keeping its length and its characters' kind (visible ASCII). */
function ownKey(key: string, n: number): string {
  if (key.length >= 12) return key.slice(0, key.length - run.length - 6) + run + String(n).padStart(6, "0");
  // Short: the last characters are n in base 94 over "!" … "~" (one character: the next of 94, fewer keyed operations than that).
  let tag = "";
  for (let x = key.length === 1 ? oneCharKeys++ : n, i = 0; i < Math.min(key.length, 3); i++, x = Math.floor(x / 94))
    tag = String.fromCharCode(0x21 + (x % 94)) + tag;
  return key.slice(0, key.length - tag.length) + tag;
}

// ---------- whole requests ----------

interface Sent {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

/** A path segment or query value: percent-encoded as a client should, or raw bytes as an attacker might. */
const encoded = (v: fc.Arbitrary<unknown>) =>
  fc.oneof(
    { weight: 5, arbitrary: v.map((x) => encodeURIComponent(typeof x === "string" ? x.replace(/[\ud800-\udfff]/g, "\ufffd") : (JSON.stringify(x) ?? ""))) },
    { weight: 1, arbitrary: fc.constantFrom("%FF", "%C3%28", "%00", "%", "%zz", "%E0%80%AF", "..", "%2e%2e", "a%2Fb", "%F0%9F%92%A5", "x".repeat(5000)) },
  );

const TENMIB = "{" + '"pad":"' + "a".repeat(10 * 1024 * 1024) + '"}';

function bodyFor(op: Operation): fc.Arbitrary<{ body?: string | Uint8Array; type?: string }> {
  const json = op.body ? valueFor(op.body) : fc.jsonValue({ maxDepth: 2 });
  const invalidUtf8 = json.map((v) => {
    const text = JSON.stringify(v) ?? "null";
    const at = text.indexOf('"', 1);
    const bytes = Buffer.from(text, "utf8");
    // Splice bytes that are not UTF-8 into the first string (or the start): 0xFF, a truncated sequence.
    const cut = at > 0 ? Buffer.byteLength(text.slice(0, at + 1)) : 0;
    return {
      body: new Uint8Array(Buffer.concat([bytes.subarray(0, cut), Buffer.from([0xff, 0xc3, 0x28, 0xe2, 0x82]), bytes.subarray(cut)])),
      type: "application/json",
    };
  });
  // Deep nesting inside an otherwise well-formed body (in its first nested object, e.g. metadata), at and past the limit.
  const deep = fc.tuple(json, fc.constantFrom(63, 64, 65, 5_000, 30_000)).map(([v, n]) => {
    const text = JSON.stringify(v) ?? "null";
    const nest = "[".repeat(n) + "]".repeat(n);
    const at = text.search(/:\{/);
    const body = at >= 0 ? text.slice(0, at + 2) + `"deep":${nest}` + (text[at + 2] === "}" ? "" : ",") + text.slice(at + 2) : nest;
    return { body, type: "application/json" };
  });
  return fc.oneof(
    { weight: op.body ? 12 : 1, arbitrary: json.map((v) => ({ body: JSON.stringify(v) ?? "null", type: "application/json" })) },
    { weight: 1, arbitrary: deep },
    { weight: 1, arbitrary: invalidUtf8 },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(
          "{",
          "[1,",
          '{"a":1}}',
          "nul",
          "\u0000",
          '{"resource":"\\ud800"}',
          '{"a":"\\u0000"}',
          "[".repeat(20_000) + "]".repeat(20_000),
          '{"__proto__":{"x":1}}',
        )
        .map((b) => ({ body: b, type: "application/json" })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          json,
          fc.constantFrom(
            "text/plain",
            "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=x",
            "application/json-patch",
            "application/xml",
            "",
            "application/json; charset=latin1",
          ),
        )
        .map(([v, type]) => ({ body: JSON.stringify(v) ?? "", type })),
    },
    { weight: 1, arbitrary: hugeString.map((pad) => ({ body: JSON.stringify({ pad }), type: "application/json" })) },
    { weight: op.body ? 1 : 6, arbitrary: fc.constant({}) },
  );
}

const SHARED_KEYS = ["fuzz-key-1", "fuzz-key-2", "fuzz-key-3"];

function requestFor(op: Operation): fc.Arbitrary<Sent> {
  const pathArbs = Object.fromEntries(op.params.filter((p) => p.in === "path").map((p) => [p.name, encoded(valueFor(p.schema))]));
  const queryParams = op.params.filter((p) => p.in === "query");
  const queryArb = fc.tuple(
    ...queryParams.map((p) => fc.option(encoded(valueFor(p.schema)), { nil: undefined, freq: p.required ? 8 : 2 })),
    fc.array(fc.tuple(fc.constantFrom(...queryParams.map((p) => p.name), "extra", "%FF", ""), encoded(adversarialString)), { maxLength: 2 }),
  );
  const headerArb = fc.dictionary(
    fc.constantFrom("X-Forwarded-For", "Accept", "Accept-Encoding", "Idempotency-Key", "Idempotency-Key", "X-Request-Id", "Cookie", "Range"),
    fc.oneof(
      fc.string({ maxLength: 30 }).map((s) => s.replace(/[^\x20-\x7e]/g, "")),
      fc.constantFrom("", "*/*", "'; DROP TABLE x; --", "k".repeat(4000), "k".repeat(255), "k".repeat(256)),
      // Stateful: a few keys shared by every request, so later requests reuse (or race) earlier ones' keys.
      fc.constantFrom(...SHARED_KEYS),
    ),
    { maxKeys: 2 },
  );
  return fc
    .record({ path: fc.record(pathArbs), query: queryArb, headers: headerArb, body: bodyFor(op) })
    .map(({ path, query, headers, body }) => {
      const p = op.path.replace(/\{([^}]+)\}/g, (_, name) => path[name] ?? "x");
      const parts: string[] = [];
      queryParams.forEach((qp, i) => {
        const v = query[i] as string | undefined;
        if (v !== undefined) parts.push(`${qp.name}=${v}`);
      });
      for (const [k, v] of query[queryParams.length] as Array<[string, string]>) parts.push(`${k}=${v}`);
      const h: Record<string, string> = { ...headers, Authorization: `Bearer ${TOKEN}` };
      if (body.type !== undefined && body.body !== undefined) h["Content-Type"] = body.type;
      const sendsBody = body.body !== undefined && op.method !== "GET" && op.method !== "HEAD";
      return {
        url: suite.server.url + p + (parts.length ? "?" + parts.join("&") : ""),
        method: op.method,
        headers: h,
        body: sendsBody ? body.body : undefined,
      };
    })
    .filter(fitsServer);
}

/**
 * Node's HTTP server (the test harness, not the app) answers 431 itself to a request head over
 * 16 KiB, as Cloudflare's edge answers 414 to a URL over 16 KB: such requests never reach the app.
 */
const fitsServer = (r: Sent) => r.url.length + Object.entries(r.headers).reduce((n, [k, v]) => n + k.length + v.length + 4, 0) < 12_000;

// ---------- mutations of valid requests ----------
// Random input rarely gets past validation, so each capability's valid examples (test/support/capabilities.ts)
// are mutated one part at a time: a field replaced, removed or nested too deep, a query value or a
// path segment made hostile. These reach the handlers and the SQL with almost-valid input.

const DEEP = "\u0001deep\u0001";
const nested = (n: number) => `{"deep":${"[".repeat(n)}${"]".repeat(n)}}`;
const withDeep = (text: string, n: number) => text.split(JSON.stringify(DEEP)).join(nested(n));

function templateMatches(op: Operation, call: HttpCall): boolean {
  const re = new RegExp("^" + op.path.replace(/\{[^}]+\}/g, "[^/]+") + "$");
  return op.method === call.method && re.test(call.path.split("?")[0]);
}

function mutationsOf(op: Operation, seed: HttpCall): fc.Arbitrary<Sent> {
  const [p, qs] = seed.path.split("?");
  const query = [...new URLSearchParams(qs ?? "")];
  const segments = p.split("/");
  const template = op.path.split("/");
  // A raw-string body (a signed webhook delivery) is kept or replaced whole; an object field by field.
  const raw = typeof seed.body === "string" ? seed.body : undefined;
  const body = raw === undefined ? (seed.body as Record<string, unknown> | undefined) : undefined;
  const props: Record<string, Schema> = op.body ? (resolve(op.body).properties ?? {}) : {};
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
              Object.entries(body).map(([k, v]) => [k, fc.option(part(v, fc.oneof(valueFor(props[k] ?? {}), hostile)), { nil: undefined, freq: 12 })]),
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
        url: suite.server.url + (segs as string[]).join("/") + (q.length ? "?" + q.join("&") : ""),
        method: seed.method,
        headers,
        body: b === undefined ? undefined : typeof b === "string" ? b : withDeep(JSON.stringify(b), depth),
      };
    })
    .filter(fitsServer);
}

/** The app's limit (functions/http/app.ts MAX_JSON_DEPTH), probed at and past it. */
const MAX_DEPTH = 64;

async function exchange(r: Sent) {
  sent += 1;
  const res = await fetch(r.url, { method: r.method, headers: r.headers, body: r.body as BodyInit | undefined, signal: AbortSignal.timeout(15_000) });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, type: res.headers.get("content-type"), retryAfter: res.headers.get("retry-after"), allow: res.headers.get("allow"), text, json };
}

/** One request through node:http, which (unlike fetch) sends any method Node's parser knows, TRACE included. */
function rawExchange(method: string, url: string, headers: Record<string, string>) {
  sent += 1;
  return new Promise<{ status: number; type: string | null; allow: string | null; text: string }>((resolve, reject) => {
    const req = httpRequest(url, { method, headers, timeout: 15_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          type: res.headers["content-type"] ?? null,
          allow: (res.headers.allow as string | undefined) ?? null,
          text: Buffer.concat(chunks).toString("utf8"),
        }),
      );
    });
    req.on("timeout", () => req.destroy(new Error(`${method} ${url}: no answer in 15 s`)));
    req.on("error", reject);
    req.end();
  });
}

const describeRequest = (r: Sent) =>
  `${r.method} ${r.url.slice(0, 300)} ${JSON.stringify(r.headers).slice(0, 200)} body=${typeof r.body === "string" ? JSON.stringify(r.body.slice(0, 300)) : r.body ? `bytes(${r.body.length})` : "none"}`;

// Bounded: about 320 random requests in all, however many routes there are (at least 10 per operation),
// each followed by a fingerprint of the database; then VOLUME more, IN_FLIGHT at a time, judged by
// their answers alone.
const TOTAL_RUNS = 320;
const VOLUME = 10_000;
const IN_FLIGHT = 8;

/** Records a response the document does not describe (status, content type or body schema). */
function conform(op: Operation, r: Sent, res: { status: number; type: string | null; text: string; allow?: string | null }) {
  const type = /^\{"type":"([^"]+)"/.exec(res.text)?.[1];
  if (type) problemTypes[type] = (problemTypes[type] ?? 0) + 1;
  // The operation the URL really addresses: ".." or an empty segment in a parameter leaves the template.
  const pathname = new URL(r.url).pathname;
  const why = conforms(op.method, operationFor(doc, op.method, pathname, op.path), res, pathname);
  if (why) mismatches.push(`${why}\n    request: ${describeRequest(r)}`);
}

afterAll(() => {
  console.log(`fuzz: ${sent} requests, ${mismatches.length} schema mismatches`);
});

/**
 * Refusals that are recorded by design, so they may write: a denied rate-limit check counts as
 * attempted/rejected and is logged (seed 001's counter_limit_real and request log). The forward-auth
 * check (/v1/authz, every method) is the same check, its denial answered with its `deny_status`.
 */
const RATE_LIMIT_RECORDS = ["ratelimit_counters", "ratelimit_log"];
const REFUSAL_RECORDS: Record<string, { statuses: number[]; tables: string[] }> = {
  "POST /v1/ratelimits/check": { statuses: [429], tables: RATE_LIMIT_RECORDS },
  ...Object.fromEntries(["GET", "POST", "PUT", "PATCH", "DELETE"].map((m) => [`${m} /v1/authz`, { statuses: [429, 403, 401], tables: RATE_LIMIT_RECORDS }])),
};

describe("every operation in /openapi.json under random and adversarial input", () => {
  it("enumerates the operations from the document", () => {
    expect(operations.length).toBeGreaterThanOrEqual(6);
    expect(operations.map((o) => `${o.method} ${o.path}`)).toContain("POST /v1/reservations");
  });

  /** The contract for any input: no 5xx, a 4xx is a well-formed problem, and a rejected request wrote nothing. */
  let current: Record<string, string> | undefined; // the fingerprint after the previous request (only this suite writes here)
  async function check(r: Sent, statuses: Record<number, number>, op?: Operation) {
    const before = (current ??= await fingerprint());
    current = undefined; // until this request is known to have written nothing
    const res = await exchange(r);
    statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    const what = `${describeRequest(r)} → ${res.status} ${res.text.slice(0, 300)}`;
    if (op) conform(op, r, res);
    expect(res.status, what).toBeLessThan(500);
    if (res.status >= 400) {
      // A problem, unless the operation documents another body for this status (a rate limit's 429).
      const documented = op?.responses[String(res.status)] ?? [];
      if (res.type !== "application/problem+json" && documented.includes(res.type ?? "")) {
        expect(res.json, what).toBeTypeOf("object");
      } else {
        expect(res.type, what).toBe("application/problem+json");
        expect(res.json?.status, what).toBe(res.status);
        expect(typeof res.json?.title, what).toBe("string");
      }
      const after = await fingerprint();
      const recorded = op && REFUSAL_RECORDS[`${op.method} ${op.path}`];
      const skip = [
        ...(mayStoreOutcome(r, res.status, res.retryAfter) ? ["idempotency_keys"] : []),
        ...(recorded?.statuses.includes(res.status) ? recorded.tables : []),
      ];
      const without = (f: Record<string, string>) => Object.fromEntries(Object.entries(f).filter(([t]) => !skip.includes(t)));
      expect(without(after), `rejected but written: ${what}`).toEqual(without(before));
      current = after;
    }
  }

  it("never a 5xx; every 4xx is problem+json; a rejected request writes nothing", async () => {
    const runs = Math.max(10, Math.ceil(TOTAL_RUNS / operations.length));
    const seeds = examples("fuzz/ü 'x'");
    const statuses: Record<number, number> = {};
    for (const op of operations) {
      const mine = seeds.filter((s) => templateMatches(op, s));
      const arb = mine.length ? fc.oneof(requestFor(op), ...mine.map((s) => mutationsOf(op, s))) : requestFor(op);
      await fc.assert(
        fc.asyncProperty(arb, (r) => check(r, statuses, op)),
        { numRuns: runs, endOnFailure: true },
      );
    }
    console.log(`fuzz: ${operations.length} operations, statuses ${JSON.stringify(statuses)}`);
    // The generators reach past validation too, or this suite would only be testing the 422 path.
    expect(Object.keys(statuses).some((s) => Number(s) < 300)).toBe(true);
    expect(mismatches.slice(0, 10)).toEqual([]);
  }, 300_000);

  // Found by this suite's random run (seed 473836279): an expired claim marked timed out by a refused
  // renewal moved the semaphore's derived in_use and free slots, read as a write.
  it("a refused renewal that marks an expired claim timed out on its way writes nothing logical", async () => {
    const name = "fuzz-lazy-expiry";
    expect((await suite.api("PUT", `/v1/semaphores/${name}`, { permits: 2, default_ttl_ms: 1_000 })).status).toBe(201);
    expect((await suite.api("POST", `/v1/semaphores/${name}/acquire`, { holder: "h", ttl_ms: 1_000 })).status).toBe(201);
    await new Promise((r) => setTimeout(r, 1_200));
    current = undefined;
    const statuses: Record<number, number> = {};
    await check(
      {
        url: `${suite.server.url}/v1/semaphores/${name}/renew`,
        method: "POST",
        headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" },
        body: JSON.stringify({ permit_id: crypto.randomUUID(), ttl_ms: 30_000 }),
      },
      statuses,
    );
    expect(statuses).toEqual({ 409: 1 });
    // The claim was marked on the way (so the refusal did run the lazy expiry this test is about).
    expect(await sql(suite.db, "SELECT count(*)::int AS n FROM permits WHERE name = $1 AND timed_out_at IS NOT NULL", [name])).toEqual([{ n: 1 }]);
  });

  it("≥ 10 000 generated requests, several in flight, stateful through shared Idempotency-Keys: never a 5xx, every response as documented", async () => {
    const seeds = examples("fuzz/ü 'x'");
    const per = Math.ceil(VOLUME / operations.length);
    const queue: Array<[Operation, Sent]> = [];
    operations.forEach((op, i) => {
      const mine = seeds.filter((s) => templateMatches(op, s));
      const arb = mine.length ? fc.oneof(requestFor(op), ...mine.map((s) => mutationsOf(op, s))) : requestFor(op);
      for (const r of fc.sample(arb, { numRuns: per, seed: 20_000 + i })) queue.push([op, r]);
    });
    // Interleaved across operations, so a key is reused by other routes and raced by concurrent requests.
    const order = queue.map((_, i) => i);
    for (let i = order.length - 1, x = 20; i > 0; i--) {
      x = (x * 1_103_515_245 + 12_345) % 2 ** 31; // a fixed shuffle: the same interleaving every run
      const j = x % (i + 1);
      [order[i], order[j]] = [order[j], order[i]];
    }
    const statuses: Record<number, number> = {};
    const fivexx: string[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < order.length) {
          const [op, r] = queue[order[next++]];
          const res = await exchange(r);
          statuses[res.status] = (statuses[res.status] ?? 0) + 1;
          if (res.status >= 500) fivexx.push(`${describeRequest(r)} → ${res.status} ${res.text.slice(0, 300)}`);
          conform(op, r, res);
        }
      }),
    );
    current = undefined; // this phase wrote: the next check takes a new fingerprint
    console.log(`fuzz volume: ${queue.length} requests over ${operations.length} operations, ${IN_FLIGHT} in flight, statuses ${JSON.stringify(statuses)}`);
    expect(queue.length).toBeGreaterThanOrEqual(VOLUME);
    expect(fivexx.slice(0, 5)).toEqual([]);
    expect(mismatches.slice(0, 10)).toEqual([]);
  }, 600_000);

  it("stateful sequences per write: 4 simultaneous identical keyed requests, the key reused with another body and on a method the path lacks — every answer as documented", async () => {
    const statuses: Record<number, number> = {};
    const send = async (op: Operation | undefined, r: Sent) => {
      const res = await exchange(r);
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      expect(res.status, describeRequest(r)).toBeLessThan(500);
      if (op) conform(op, r, res);
      else {
        const why = conforms(r.method, NO_OPERATION, res, new URL(r.url).pathname);
        if (why) mismatches.push(`${why}\n    request: ${describeRequest(r)}`);
      }
      return res;
    };
    let n = 0;
    for (const seed of examples("seq")) {
      const op = operations.find((o) => templateMatches(o, seed));
      if (!op || seed.method === "GET") continue;
      const key = `seq-${++n}-${Date.now()}`;
      const base = {
        ...seed.headers,
        Authorization: `Bearer ${TOKEN}`,
        "Idempotency-Key": key,
        ...(seed.body === undefined ? {} : { "Content-Type": "application/json" }),
      };
      const body = typeof seed.body === "string" ? seed.body : seed.body === undefined ? undefined : JSON.stringify(seed.body);
      const r: Sent = { url: suite.server.url + seed.path, method: seed.method, headers: base, body };
      await Promise.all([r, r, r, r].map((x) => send(op, x)));
      await send(op, { ...r, body: JSON.stringify({ other: n }), headers: { ...base, "Content-Type": "application/json" } });
      for (const method of ["PUT", "PATCH", "POST", "DELETE"]) {
        if (doc.paths[op.path]?.[method.toLowerCase()]) continue;
        await send(undefined, { ...r, method });
      }
    }
    current = undefined;
    console.log(`fuzz sequences: statuses ${JSON.stringify(statuses)}`);
    expect(mismatches.slice(0, 10)).toEqual([]);
  });

  it("schema-valid values at the edges of every parameter and body field (lengths, patterns, formats, bounds, enums, null, absent) → never 422 /problems/validation", async () => {
    // One part of a valid example at a time, replaced with each of its schema's edge values (or left
    // out, where optional): the rest of the request stays the valid example, so a 422 validation
    // problem is the server refusing what the document allows. Cross-field rules the document states
    // in prose (an end after its start) are the exception, named below; everything else is a mismatch.
    const CROSS_FIELD = /must be after|give both from and to|exactly one of policy and policies|at most 366 (days|nights)/i;
    const statuses: Record<number, number> = {};
    const refused: string[] = [];
    let tried = 0;
    let crossField = 0;
    const refusedTypes: Record<string, number> = {};
    for (const seed of examples("edge")) {
      const op = operations.find((o) => templateMatches(o, seed));
      if (!op) continue;
      const [seedPath, qs] = seed.path.split("?");
      const segments = seedPath.split("/");
      const template = op.path.split("/");
      const query = new URLSearchParams(qs ?? "");
      const body = seed.body && typeof seed.body === "object" ? (seed.body as Record<string, unknown>) : undefined;
      const bodySchema = op.body ? resolve(op.body) : undefined;
      const variants: Array<{ part: string; url: string; headers: Record<string, string>; body?: string }> = [];
      const base = { ...seed.headers, Authorization: `Bearer ${TOKEN}`, ...(seed.body === undefined ? {} : { "Content-Type": "application/json" }) };
      const seedBody = typeof seed.body === "string" ? seed.body : seed.body === undefined ? undefined : JSON.stringify(seed.body);
      const url = (segs: string[], q: URLSearchParams) => suite.server.url + segs.join("/") + (q.size ? `?${q}` : "");
      for (const p of op.params) {
        // A cursor is opaque: only a next_cursor the list returned is one (the document says so).
        if (p.name === "cursor") continue;
        const values = edgesFor(p.schema).filter((v) => typeof v !== "object");
        if (!p.required && p.in !== "path") values.push(undefined);
        for (const v of values) {
          const text = v === undefined ? undefined : String(v);
          if (p.in === "path") {
            const i = template.indexOf(`{${p.name}}`);
            variants.push({
              part: `path ${p.name}=${JSON.stringify(v)}`,
              url: url(
                segments.map((s, j) => (j === i ? encodeURIComponent(text!) : s)),
                query,
              ),
              headers: base,
              body: seedBody,
            });
          } else if (p.in === "query") {
            const q = new URLSearchParams(query);
            if (text === undefined) q.delete(p.name);
            else q.set(p.name, text);
            variants.push({ part: `query ${p.name}=${JSON.stringify(v)}`, url: url(segments, q), headers: base, body: seedBody });
          } else if (p.in === "header" && !/^webhook-/.test(p.name)) {
            // (The signature headers are checked by the signature: a changed one is a 401, never a 422.)
            const h: Record<string, string> = { ...base };
            if (text === undefined) delete h[p.name];
            else h[p.name] = text;
            variants.push({ part: `header ${p.name}=${JSON.stringify(v)}`, url: url(segments, query), headers: h, body: seedBody });
          }
        }
      }
      if (body && bodySchema?.properties) {
        const required = new Set<string>(bodySchema.required ?? []);
        for (const [k, propSchema] of Object.entries<Schema>(bodySchema.properties)) {
          const values: unknown[] = edgesFor(propSchema);
          if (!required.has(k)) values.push(undefined);
          for (const v of values) {
            const b = { ...body, [k]: v };
            if (v === undefined) delete b[k];
            if (!schemaValid(op.body!)(b)) continue; // e.g. one of two fields that are each optional, one required
            variants.push({ part: `body ${k}=${JSON.stringify(v)?.slice(0, 80)}`, url: url(segments, query), headers: base, body: JSON.stringify(b) });
          }
        }
      }
      for (const v of variants) {
        tried++;
        // A seed's Idempotency-Key is made new for each variant (unless the key is what varies): a
        // reused key is answered 422 idempotency-key-reused before the input is looked at.
        // Where the key is what varies, it keeps its length and kind but is made this request's own,
        // or every operation after the first would only be told its key was reused.
        const headers = { ...v.headers };
        const key = headers[IDEMPOTENCY_KEY];
        if (key !== undefined) headers[IDEMPOTENCY_KEY] = ownKey(key, tried);
        const r: Sent = { url: v.url, method: seed.method, headers, body: v.body };
        // A value fetch() will not send (a header character over U+00FF) is the document allowing what a client cannot send.
        const res = await exchange(r).catch((err: Error) => err);
        if (res instanceof Error) {
          refused.push(`${op.method} ${op.path} ${v.part}: the client cannot send it (${res.message})`);
          continue;
        }
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        conform(op, r, res);
        if (res.status >= 500) refused.push(`${op.method} ${op.path} ${v.part} → ${res.status} ${res.text.slice(0, 200)}`);
        if (res.status === 422) refusedTypes[res.json?.type] = (refusedTypes[res.json?.type] ?? 0) + 1;
        if (res.status !== 422 || res.json?.type !== "/problems/validation") continue;
        if (CROSS_FIELD.test(res.json.detail ?? "")) {
          crossField++;
          continue;
        }
        refused.push(`${op.method} ${op.path} ${v.part} → 422 ${res.json.detail?.slice(0, 200)}`);
      }
    }
    current = undefined;
    console.log(
      `fuzz edges: ${tried} schema-valid requests, ${crossField} refused by a documented cross-field rule, statuses ${JSON.stringify(statuses)}, 422s ${JSON.stringify(refusedTypes)}`,
    );
    expect(tried).toBeGreaterThan(500);
    expect(refused).toEqual([]);
  }, 300_000);

  it("no parameter is documented as null (a query, path or header value is text: `holders=null` was a 422)", () => {
    const nullable = operations.flatMap((op) =>
      op.params.filter((p) => [resolve(p.schema).type].flat().includes("null")).map((p) => `${op.method} ${op.path} ${p.in} ${p.name}`),
    );
    expect(nullable).toEqual([]);
  });

  it("every list: a cursor with a NUL (no list gives one) → 422 'invalid cursor' naming the parameter, before the database", async () => {
    const lists = operations.filter((op) => op.method === "GET" && op.params.some((p) => p.name === "cursor" && p.in === "query"));
    expect(lists.length).toBeGreaterThanOrEqual(7);
    const seeds = examples("cursor");
    for (const op of lists) {
      const seed = seeds.find((s) => templateMatches(op, s));
      expect(seed, `${op.path} has an example`).toBeDefined();
      const [path, qs] = seed!.path.split("?");
      // (A lone surrogate cannot arrive in a URL: %ED%A0%80 is not UTF-8, so it stays those nine characters, a name like any other.)
      for (const cursor of ["%00", "a%00b", "%00%00%00"]) {
        const q = new URLSearchParams(qs ?? "");
        q.delete("cursor");
        const url = `${suite.server.url}${path}?${q.size ? `${q}&` : ""}cursor=${cursor}`;
        const res = await exchange({ url, method: "GET", headers: { Authorization: `Bearer ${TOKEN}` } });
        expect(res.status, `${op.path} cursor=${cursor}: ${res.text}`).toBe(422);
        expect(res.json.errors, `${op.path} cursor=${cursor}`).toEqual([{ in: "query", path: "cursor", message: "invalid cursor" }]);
        conform(op, { url, method: "GET", headers: {} }, res);
      }
    }
  });

  it('"." and ".." as a path key: the document\'s pattern excludes them, and sent as is (curl --path-as-is) they reach no handler: the answer of the path they resolve to, nothing created', async () => {
    const { hostname, port } = new URL(suite.server.url);
    const before = await fingerprint();
    let probes = 0;
    for (const op of operations) {
      for (const p of op.params.filter((x) => x.in === "path")) {
        const pattern = resolve(p.schema).pattern;
        const refuses = pattern !== undefined && !new RegExp(pattern, "u").test(".") && !new RegExp(pattern, "u").test("..");
        // An id is no name anyone creates: "." names nothing, and it is a 404 like any other unknown id.
        if (p.name !== "id") expect(refuses, `${op.method} ${op.path}: path parameter ${p.name} documents no pattern refusing "." and ".."`).toBe(true);
        for (const dots of [".", "..", "%2E", "%2e%2E"]) {
          const path = op.path.replace(/\{([^}]+)\}/g, (_, n) => (n === p.name ? dots : "probe-x"));
          const res = await new Promise<{ status: number; type: string | null; allow: string | null; text: string }>((resolve, reject) => {
            const req = httpRequest(
              { host: hostname, port, path, method: op.method, headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" } },
              (r) => {
                const chunks: Buffer[] = [];
                r.on("data", (c: Buffer) => chunks.push(c));
                r.on("end", () =>
                  resolve({
                    status: r.statusCode ?? 0,
                    type: r.headers["content-type"] ?? null,
                    allow: (r.headers.allow as string | undefined) ?? null,
                    text: Buffer.concat(chunks).toString(),
                  }),
                );
              },
            );
            req.on("error", reject);
            req.end(op.body ? "{}" : undefined);
          });
          sent++;
          probes++;
          expect(res.status, `${op.method} ${path}: ${res.text}`).toBeGreaterThanOrEqual(400);
          expect(res.status, `${op.method} ${path}: ${res.text}`).toBeLessThan(500);
          // As the URL parser resolves it (the server's does the same before routing).
          const resolved = new URL(path, suite.server.url).pathname;
          const why = conforms(op.method, operationFor(doc, op.method, resolved), res, resolved);
          if (why) mismatches.push(why);
        }
      }
    }
    expect(probes).toBeGreaterThan(40);
    expect(await fingerprint()).toEqual(before);
    current = undefined;
    expect(mismatches.slice(0, 10)).toEqual([]);
  });

  // Each refused request fingerprints every table before and after (check()); what the random suite
  // above left in them (thousands of inventory tokens and semaphore slots, a different amount each
  // run) sets its cost: 15 s alone, over 60 s after the rest of the file on a loaded machine.
  it("every valid example with each body field nested at and past the depth limit → no 5xx", async () => {
    const statuses: Record<number, number> = {};
    for (const seed of examples("deep")) {
      if (!seed.body || typeof seed.body !== "object") continue;
      for (const key of Object.keys(seed.body)) {
        for (const depth of [MAX_DEPTH - 2, MAX_DEPTH, 30_000]) {
          const body = withDeep(JSON.stringify({ ...(seed.body as object), [key]: DEEP }), depth);
          await check(
            { url: suite.server.url + seed.path, method: seed.method, headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" }, body },
            statuses,
            operations.find((op) => templateMatches(op, seed)),
          );
        }
      }
    }
    expect(Object.keys(statuses).length).toBeGreaterThan(0);
  }, 300_000);

  it("every operation has a valid example in test/support/capabilities.ts examples() (so mutations reach it)", () => {
    const seeds = examples("k");
    const missing = operations.filter((op) => op.path.startsWith("/v1/") && !seeds.some((s) => templateMatches(op, s)));
    expect(missing.map((o) => `${o.method} ${o.path}`)).toEqual([]);
  });

  it("a 10 MiB body to every operation → 413 problem+json (or 401 for the signed receiver), nothing written", async () => {
    const statuses: Record<number, number> = {};
    for (const op of operations.filter((o) => o.method !== "GET")) {
      const url = suite.server.url + op.path.replace(/\{[^}]+\}/g, "x");
      await check({ url, method: op.method, headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" }, body: TENMIB }, statuses, op);
    }
    expect(
      Object.keys(statuses)
        .map(Number)
        .every((s) => s === 413 || s === 401 || s === 404),
    ).toBe(true);
    expect(statuses[413]).toBeGreaterThan(0);
    // Fingerprinted like the depth test above: the same wider budget.
  }, 300_000);

  it("every method a documented path lacks → 405 problem+json with Allow naming exactly the document's methods (OPTIONS: 204 + Allow)", async () => {
    const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"];
    // The forward-auth check answers every method alike (a gateway's hook may pass on the client's own,
    // OPTIONS and TRACE included; its description says so): the document lists the methods a client
    // generator sends, and the others get the GET's answer, never a 405.
    const ANY_METHOD = new Set(["/v1/authz"]);
    const statuses: Record<number, number> = {};
    let probes = 0;
    for (const template of Object.keys(doc.paths)) {
      // Each parameter as a value its schema allows (the example), so the path is one the document has.
      const pathname = template.replace(/\{[^}]+\}/g, "probe-x");
      for (const method of METHODS) {
        if (operationFor(doc, method, pathname) !== NO_OPERATION) continue; // a route answers this method here
        const res = await rawExchange(method, suite.server.url + pathname, { Authorization: `Bearer ${TOKEN}` });
        probes++;
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        if (ANY_METHOD.has(template)) {
          const get = await rawExchange("GET", suite.server.url + pathname, { Authorization: `Bearer ${TOKEN}` });
          expect(res.status, `${method} ${pathname}: ${res.text}`).toBe(get.status);
          expect(res.status, `${method} ${pathname}`).not.toBe(405);
          expect(res.type, `${method} ${pathname}`).toBe(get.type);
          continue;
        }
        expect(allowFor(doc, pathname), pathname).not.toBeNull();
        const why = conforms(method, NO_OPERATION, res, pathname);
        if (why) mismatches.push(why);
      }
    }
    console.log(`fuzz methods: ${probes} requests with a method the path lacks, statuses ${JSON.stringify(statuses)}`);
    expect(statuses[405]).toBeGreaterThan(0);
    expect(mismatches.slice(0, 10)).toEqual([]);
  });

  it("methods a path does not have, and paths that do not exist → 404/405 problem+json, never 5xx", async () => {
    const paths = [...new Set(operations.map((o) => o.path.replace(/\{[^}]+\}/g, "x")))];
    for (const p of [...paths, "/v1/%FF", "/v1/reservations/%00", "/v1/../health", "/v1//reservations", "/%2e%2e/etc/passwd"]) {
      for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]) {
        const known = operations.some((o) => o.method === method && o.path.replace(/\{[^}]+\}/g, "x") === p);
        if (known) continue;
        const res = await exchange({ url: suite.server.url + p, method, headers: { Authorization: `Bearer ${TOKEN}` } });
        expect(res.status, `${method} ${p}`).toBeLessThan(500);
        if (res.status >= 400) expect(res.type, `${method} ${p}`).toBe("application/problem+json");
      }
    }
  });

  it("every response above was the documented one for its operation and status: zero schema mismatches", () => {
    console.log(`fuzz: ${sent} requests, ${mismatches.length} schema mismatches`);
    console.log(`fuzz problem types: ${JSON.stringify(problemTypes)}`);
    const kinds = [...new Set(mismatches.map((m) => m.split(" — ")[0].split("\n")[0]))];
    if (kinds.length) console.log(`mismatch kinds:\n${kinds.slice(0, 60).join("\n")}`);
    expect(sent).toBeGreaterThanOrEqual(VOLUME);
    expect(mismatches.slice(0, 10)).toEqual([]);
  });
});
