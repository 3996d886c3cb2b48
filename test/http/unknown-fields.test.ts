// A field a write's schema does not have is refused with a 422 naming it, never dropped in silence
// (a typo in an optional field would otherwise leave its default in force: `on_unavailble: "allow"`
// gave a policy that fails closed). Walked over every operation of the document that takes a body
// (so a new write is covered when it lands), the objects nested in its body, and every RPC method of
// the binding; the document says so (`additionalProperties: false`). A webhook delivery's body is
// the sender's, not Admit's schema: its fields are never judged.
import { describe, expect, it } from "vitest";
import { call } from "../../functions/http/rpc/call";
import { METHODS, type MethodName } from "../../functions/http/rpc/methods";

const UNKNOWN_FIELD = "unknown field: not in this operation's schema (misspelt?)";

import { bindings, SUITE_BUDGET_MS, servedApp } from "../support";
import { dbNowS, newSecret, signedHeaders } from "../webhooks/webhooks.support";

const suite = servedApp("unknown_fields");
const UUID = "0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e";
const DELIVERY = "POST /v1/webhooks/{source}";

type Schema = Record<string, any>;
const deref = (doc: any, s: Schema | undefined): Schema | undefined =>
  s?.$ref
    ? deref(
        doc,
        s.$ref
          .split("/")
          .slice(1)
          .reduce((o: any, k: string) => o[k], doc),
      )
    : s;

/** Every write of the document with a JSON body, but the delivery: its path with values, its example body and its body schema. */
async function writes() {
  const doc = (await suite.api("GET", "/openapi.json")).json;
  const out: Array<{ method: string; template: string; path: string; example: any; schema: Schema }> = [];
  for (const [template, item] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      const media = op.requestBody?.content?.["application/json"];
      if (!media || `${method.toUpperCase()} ${template}` === DELIVERY) continue;
      // A path parameter with a closed set of values (a list's name) takes its first.
      const choices = (p: string): string[] | undefined => op.parameters?.find((x: any) => x.in === "path" && x.name === p)?.schema?.enum;
      const path = template.replaceAll(/\{(.+?)\}/g, (_m, p: string) => (p === "id" ? UUID : (choices(p)?.[0] ?? `uf-${p}`)));
      out.push({ method: method.toUpperCase(), template, path, example: media.example, schema: deref(doc, media.schema)! });
    }
  }
  return { doc, out };
}

/** The objects of `value` whose schema is closed (`additionalProperties: false`), by path, and those that take any field. */
function objectsIn(doc: any, schema: Schema | undefined, value: unknown, path: string[] = [], out = { closed: [] as string[][], open: [] as string[][] }) {
  const s = deref(doc, schema);
  if (!s || typeof value !== "object" || value === null) return out;
  if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) objectsIn(doc, s.items, v, [...path, String(i)], out);
    return out;
  }
  for (const alt of s.anyOf ?? s.oneOf ?? []) objectsIn(doc, alt, value, path, out);
  if (!s.properties && !s.additionalProperties) return out;
  (s.additionalProperties === false ? out.closed : out.open).push(path);
  for (const [k, v] of Object.entries(value)) objectsIn(doc, s.properties?.[k], v, [...path, k], out);
  return out;
}

/** `value` with `field` added in the object at `path`. */
function withField(value: any, path: string[], field: string): any {
  const copy = structuredClone(value);
  path.reduce((o, k) => o[k], copy)[field] = true;
  return copy;
}

const unknownAt = (path: string) => ({ in: "body", path, message: UNKNOWN_FIELD });

describe("the document", () => {
  it("every write's body schema, and every object nested in it, is closed: additionalProperties false (free-form fields such as metadata excepted)", async () => {
    const { doc, out } = await writes();
    expect(out.length).toBeGreaterThanOrEqual(20);
    const open: string[] = [];
    const walk = (s: Schema | undefined, at: string, seen = new Set<Schema>()) => {
      const r = deref(doc, s);
      if (!r || seen.has(r)) return;
      seen.add(r);
      if (r.properties) {
        if (r.additionalProperties !== false) open.push(at);
        for (const [k, v] of Object.entries<Schema>(r.properties)) walk(v, `${at}.${k}`, seen);
      }
      if (r.items) walk(r.items, `${at}[]`, seen);
      for (const alt of [...(r.anyOf ?? []), ...(r.oneOf ?? [])]) walk(alt, at, seen);
    };
    for (const w of out) walk(w.schema, `${w.method} ${w.template}`);
    expect(open).toEqual([]);
    expect(doc.paths["/v1/webhooks/{source}"].post.requestBody.content["application/json"].schema).toEqual({});
  });
});

describe("over HTTP", () => {
  it("every write: its example body with one more field → 422 naming that field; the same in every closed object nested in it", async () => {
    const { doc, out } = await writes();
    const wrong: string[] = [];
    for (const w of out) {
      const where = `${w.method} ${w.template}`;
      const { closed, open } = objectsIn(doc, w.schema, w.example);
      expect(closed[0], where).toEqual([]);
      for (const at of closed) {
        const field = [...at, "zz_unknown"].join(".");
        const res = await suite.api(w.method, w.path, withField(w.example, at, "zz_unknown"));
        if (res.status !== 422 || !res.json.errors?.some((e: any) => e.path === field && e.message === UNKNOWN_FIELD))
          wrong.push(`${where} ${field}: ${res.status} ${res.text.slice(0, 200)}`);
      }
      // A free-form object (a reservation's metadata) takes any field.
      for (const at of open) {
        const res = await suite.api(w.method, w.path, withField(w.example, at, "zz_any"));
        if (res.status === 422 && JSON.stringify(res.json.errors).includes("zz_any")) wrong.push(`${where} ${at.join(".")} refused a free-form field`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("a typo in an optional field, or a field that does not exist, is named, and nothing is written", async () => {
    const policy = { algorithm: "fixed_window", limit: 5, window_ms: 60_000 };
    for (const [extra, path] of [
      [{ on_unavailble: "allow" }, "on_unavailble"],
      [{ shadow_mode: true }, "shadow_mode"],
    ] as const) {
      const res = await suite.api("PUT", "/v1/ratelimits/policies/uf-typo", { ...policy, ...extra });
      expect(res.status, res.text).toBe(422);
      expect(res.json.errors).toEqual([unknownAt(path)]);
      expect(res.json.detail).toContain(path);
    }
    expect((await suite.api("GET", "/v1/ratelimits/policies/uf-typo")).status).toBe(404);
    // Each unknown field is its own error, beside the body's other errors.
    const two = await suite.api("POST", "/v1/ratelimits/check", { policy: "p", key: "", shadow: 1, dry_run: true });
    expect(two.status).toBe(422);
    expect(two.json.errors).toEqual(expect.arrayContaining([unknownAt("shadow"), unknownAt("dry_run"), expect.objectContaining({ path: "key" })]));
  });

  it("nested: a webhook source's hmac settings and the places in them", async () => {
    const hmac = { header: "X-Sig", id: { header: "X-Id" }, allow_unsigned_id: true };
    const put = (body: unknown) => suite.api("PUT", "/v1/webhooks/sources/uf-hmac", body);
    const base = { scheme: "hmac", secret: "s3cret-s3cret" };
    expect((await put({ ...base, hmac: { ...hmac, algoritm: "sha1" } })).json.errors).toEqual([unknownAt("hmac.algoritm")]);
    expect((await put({ ...base, hmac: { ...hmac, id: { header: "X-Id", pointr: "/id" } } })).json.errors).toEqual([unknownAt("hmac.id.pointr")]);
    expect((await suite.api("GET", "/v1/webhooks/sources/uf-hmac")).status).toBe(404);
    expect((await put({ ...base, hmac })).status).toBe(201);
  });

  it("a webhook delivery's body is the sender's: fields Admit has never heard of are stored, not refused", async () => {
    const secret = newSecret();
    expect((await suite.api("PUT", "/v1/webhooks/sources/uf-in", { secret })).status).toBe(201);
    const body = JSON.stringify({ type: "t", zz_unknown: true, data: { anything: 1 } });
    const res = await suite.api("POST", "/v1/webhooks/uf-in", body, signedHeaders([secret], "msg_uf", await dbNowS(suite.db), body));
    expect(res.status, res.text).toBe(200);
  });
});

/** A valid input of each RPC method (the test fails when a method is added without one here). */
const RPC_INPUTS: Record<MethodName, Record<string, unknown>> = {
  checkRateLimit: { policy: "p", key: "k" },
  rateLimitGate: { policy: "p", key: "k" },
  reserve: { resource: "r", holder: "h", start: "2040-01-01T00:00:00Z", end: "2040-01-02T00:00:00Z" },
  cancelReservation: { id: UUID },
  acquireLease: { key: "k", holder: "h", ttl_ms: 30_000 },
  renewLease: { key: "k", lease_id: UUID },
  releaseLease: { key: "k", lease_id: UUID },
  acquirePermit: { name: "s", holder: "h" },
  renewPermit: { name: "s", permit_id: UUID },
  releasePermit: { name: "s", permit_id: UUID },
  book: { item: "room", check_in: "2040-01-01", check_out: "2040-01-02", quantity: 1, holder: "h" },
  confirmBooking: { item: "room", id: UUID },
  cancelBooking: { item: "room", id: UUID },
  claimWebhookEvents: { source: "src" },
  ackWebhookEvent: { source: "src", id: UUID, receipt: UUID },
};

describe("over the RPC binding", () => {
  it("every method: a valid input with one more field → { error } 422 naming it (the HTTP route's schemas, as strict)", async () => {
    expect(Object.keys(RPC_INPUTS).sort()).toEqual(Object.keys(METHODS).sort());
    const env = bindings(suite.db, { DB_BUDGET_MS: SUITE_BUDGET_MS });
    const wrong: string[] = [];
    const inputs: Array<[MethodName, Record<string, unknown>, string]> = [
      ...Object.entries(RPC_INPUTS).map(
        ([m, input]) => [m as MethodName, { ...input, zz_unknown: true }, "zz_unknown"] as [MethodName, Record<string, unknown>, string],
      ),
      ["rateLimitGate", { concurrency: { name: "c", permits: 1 }, holder: "h", zz_unknown: true }, "zz_unknown"],
      ["rateLimitGate", { concurrency: { name: "c", permits: 1, ttl: 5000 }, holder: "h" }, "concurrency.ttl"],
      ["rateLimitGate", { policy: "p", key: "k", timeout: 100 }, "timeout"],
    ];
    for (const [method, input, field] of inputs) {
      const r = (await call(env, undefined, method, input as never)) as { error?: { status: number; errors?: Array<{ path: string; message: string }> } };
      if (r.error?.status !== 422 || !r.error.errors?.some((e) => e.path === field && e.message === UNKNOWN_FIELD))
        wrong.push(`${method} ${field}: ${JSON.stringify(r).slice(0, 200)}`);
    }
    expect(wrong).toEqual([]);
  });
});
