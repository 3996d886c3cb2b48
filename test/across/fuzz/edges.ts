// Values the document allows, at the edges of each format: what a client generated from the document
// may send. Every candidate is checked against the document's own schema (Ajv) before it is used, so
// the request really is schema-valid; the server must not answer it 422 /problems/validation.
import fc from "fast-check";
import type { Schema, Schemas } from "./document";

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
export function edgesFor(schemas: Schemas, raw: Schema, depth = 0): unknown[] {
  const s = schemas.resolve(raw);
  const types: string[] = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  const out: unknown[] = [];
  if (s.const !== undefined) out.push(s.const);
  if (s.enum) out.push(...s.enum);
  for (const alt of s.anyOf ?? s.oneOf ?? []) out.push(...edgesFor(schemas, alt, depth));
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
    const first = (p: Schema) => edgesFor(schemas, p, depth + 1)[0];
    const required = new Set<string>(s.required ?? []);
    out.push(Object.fromEntries(props.filter(([k]) => required.has(k)).map(([k, p]) => [k, first(p)])));
    out.push(Object.fromEntries(props.map(([k, p]) => [k, first(p)])));
    if (s.additionalProperties !== false && props.length === 0) out.push({ a: 1 }, { "k é": "💥", n: null, list: [1, 2.5, true, "x"], o: { deep: [[[]]] } });
  }
  if (types.includes("array") && depth < 3) {
    const items = edgesFor(schemas, s.items ?? {}, depth + 1);
    const min = s.minItems ?? 0;
    const max = Math.min(s.maxItems ?? 3, 20);
    for (const n of new Set([min, Math.max(min, 1), max])) out.push(Array.from({ length: n }, (_, i) => items[i % Math.max(items.length, 1)]));
  }
  if (types.length === 0 && !s.enum && !s.anyOf && !s.oneOf && s.const === undefined && depth < 3) out.push({}, "x", 1, null);
  const valid = schemas.valid(raw);
  const seen = new Set<string>();
  return out.filter((v) => {
    const k = JSON.stringify(v);
    if (seen.has(k) || !valid(v)) return false;
    seen.add(k);
    return true;
  });
}
