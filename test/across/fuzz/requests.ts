// Whole requests for an operation of the document: path segments and query values percent-encoded
// or raw, headers with shared Idempotency-Keys, and bodies of every kind — schema-shaped, nested past
// the depth limit, not UTF-8, malformed, of another content type, huge — as a client or an attacker
// might send them. Only requests the test server can take are kept (fitsServer).
import fc from "fast-check";
import { TOKEN } from "../../support";
import type { Operation, Schemas, Target } from "./document";
import { adversarialString, hugeString, valueFor } from "./values";

/** A request as sent: whole URL, method, headers and body. */
export interface Sent {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

/** A path segment or query value: percent-encoded as a client should, or raw bytes as an attacker might. */
export const encoded = (v: fc.Arbitrary<unknown>) =>
  fc.oneof(
    { weight: 5, arbitrary: v.map((x) => encodeURIComponent(typeof x === "string" ? x.replace(/[\ud800-\udfff]/g, "\ufffd") : (JSON.stringify(x) ?? ""))) },
    { weight: 1, arbitrary: fc.constantFrom("%FF", "%C3%28", "%00", "%", "%zz", "%E0%80%AF", "..", "%2e%2e", "a%2Fb", "%F0%9F%92%A5", "x".repeat(5000)) },
  );

/** A body of 10 MiB, past every limit on a request's size. */
export const TENMIB = "{" + '"pad":"' + "a".repeat(10 * 1024 * 1024) + '"}';

function bodyFor(schemas: Schemas, op: Operation): fc.Arbitrary<{ body?: string | Uint8Array; type?: string }> {
  const json = op.body ? valueFor(schemas, op.body) : fc.jsonValue({ maxDepth: 2 });
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

/** Idempotency-Keys every generated request may carry, so later requests reuse (or race) earlier ones' keys. */
export const SHARED_KEYS = ["fuzz-key-1", "fuzz-key-2", "fuzz-key-3"];

/** Any request to `op`: its parameters and body from the document's schemas (valueFor), hostile query and header extras. */
export function requestFor(target: Target, op: Operation): fc.Arbitrary<Sent> {
  const pathArbs = Object.fromEntries(op.params.filter((p) => p.in === "path").map((p) => [p.name, encoded(valueFor(target.schemas, p.schema))]));
  const queryParams = op.params.filter((p) => p.in === "query");
  const queryArb = fc.tuple(
    ...queryParams.map((p) => fc.option(encoded(valueFor(target.schemas, p.schema)), { nil: undefined, freq: p.required ? 8 : 2 })),
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
    .record({ path: fc.record(pathArbs), query: queryArb, headers: headerArb, body: bodyFor(target.schemas, op) })
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
        url: target.url + p + (parts.length ? "?" + parts.join("&") : ""),
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
export const fitsServer = (r: Sent) => r.url.length + Object.entries(r.headers).reduce((n, [k, v]) => n + k.length + v.length + 4, 0) < 12_000;

export const IDEMPOTENCY_KEY = "Idempotency-Key";
const run = Date.now().toString(36);
let oneCharKeys = 0;
/** `key` made unique to request `n` of this run, keeping its length and its characters' kind (visible ASCII). */
export function ownKey(key: string, n: number): string {
  if (key.length >= 12) return key.slice(0, key.length - run.length - 6) + run + String(n).padStart(6, "0");
  // Short: the last characters are n in base 94 over "!" … "~" (one character: the next of 94, fewer keyed operations than that).
  let tag = "";
  for (let x = key.length === 1 ? oneCharKeys++ : n, i = 0; i < Math.min(key.length, 3); i++, x = Math.floor(x / 94))
    tag = String.fromCharCode(0x21 + (x % 94)) + tag;
  return key.slice(0, key.length - tag.length) + tag;
}
