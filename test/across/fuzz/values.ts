// Random values for the document's schemas: mostly of a schema's shape (valid, or at and past its
// bounds), sometimes hostile — SQL, NUL, lone surrogates, impossible dates, numbers past every range,
// values of the wrong type — so input reaches validation, the handlers and the SQL alike.
import fc from "fast-check";
import type { Schema, Schemas } from "./document";

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

export const hugeString = fc.constantFrom(60_000, 70_000).map((n) => "x".repeat(n));
export const adversarialString = fc.oneof(
  fc.constantFrom(...SQL, ...WEIRD, ...DATES),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({ unit: "grapheme", maxLength: 20 }),
  fc.constantFrom(201, 1000, 5000).map((n) => "y".repeat(n)),
);
export const wrongType = fc.constantFrom<unknown>(null, true, false, [], {}, [1, "a"], { $gt: "" }, ...NUMBERS);

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
export function valueFor(schemas: Schemas, raw: Schema, depth = 0): fc.Arbitrary<unknown> {
  const s = schemas.resolve(raw);
  const hostile = fc.oneof(adversarialString, wrongType);
  let typed: fc.Arbitrary<unknown>;
  const types: string[] = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  // (An object with its properties and a oneOf narrowing them, as a source PUT's per-scheme rules, is generated from the properties.)
  if ((s.anyOf || s.oneOf || s.allOf) && !s.properties) {
    typed = fc.oneof(...(s.anyOf ?? s.oneOf ?? s.allOf).map((x: Schema) => valueFor(schemas, x, depth)));
  } else if (s.enum) {
    typed = fc.constantFrom(...s.enum);
  } else if (types.includes("object") || s.properties) {
    typed = objectFor(schemas, s, depth);
  } else if (types.includes("array")) {
    typed = fc.array(valueFor(schemas, s.items ?? {}, depth + 1), { maxLength: 4 });
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

function objectFor(schemas: Schemas, s: Schema, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const props = Object.fromEntries(Object.entries<Schema>(s.properties ?? {}).map(([k, v]) => [k, valueFor(schemas, v, depth + 1)]));
  const required: string[] = s.required ?? [];
  const base = fc.record(props, { requiredKeys: required.filter((k) => k in props) });
  const extra =
    s.additionalProperties && typeof s.additionalProperties === "object"
      ? fc.dictionary(fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom(...WEIRD)), valueFor(schemas, s.additionalProperties, depth + 1), { maxKeys: 3 })
      : fc.dictionary(fc.constantFrom("__proto__", "constructor", "extra", "id", "status"), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 });
  return fc.oneof(
    { weight: 5, arbitrary: base },
    { weight: 1, arbitrary: fc.record(props, { requiredKeys: [] }) }, // required fields missing
    { weight: 1, arbitrary: fc.tuple(base, extra).map(([a, b]) => ({ ...b, ...a })) },
  );
}
