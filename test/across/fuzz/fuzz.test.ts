// Bad input, property-based (fast-check): every operation of the app's own OpenAPI document — so a
// new route is covered the moment it is registered — under random and adversarial path segments,
// query strings, headers and bodies. Whatever comes in: never a 5xx; a 4xx is problem+json whose
// `status` matches; a rejected request writes nothing (the database's content is unchanged); and
// every response is the one the document declares for that operation and status — status, content
// type and body schema, checked with Ajv (test/support/contract.ts). Over 10 000 requests per run;
// the count and the number of schema mismatches are printed. Beside this file: the document as the
// generators read it (document.ts), random and hostile values (values.ts), schema-valid edges
// (edges.ts), whole requests (requests.ts) and mutations of valid ones (mutations.ts), sending them
// (exchange.ts), and what a request wrote (writes.ts).

import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { servedApp, sql, TOKEN } from "../../support";
import { examples } from "../../support/capabilities";
import { allowFor, contract, NO_OPERATION, operationFor } from "../../support/contract";
import { type Operation, operationsOf, type Schema, type Schemas, schemasOf, type Target, templateMatches } from "./document";
import { edgesFor } from "./edges";
import { describeRequest, exchange, pathAsIs, rawExchange, requestsSent } from "./exchange";
import { DEEP, MAX_DEPTH, mutationsOf, withDeep } from "./mutations";
import { IDEMPOTENCY_KEY, ownKey, requestFor, type Sent, TENMIB } from "./requests";
import { fingerprint as fingerprintOf, tablesOf, writtenByDesign } from "./writes";

// What this suite judges is how input is handled, not the time budget (test/across/faults*.test.ts
// do): the suites' wide budget (servedApp), so a neighbour's load stalling the machine cannot pass
// for a 5xx caused by the input (a plain write answered 504 because its budget ran out).
// The isolate's counts flush at once (METRICS_FLUSH_MS 0), and each fingerprint waits for them: a
// flush of earlier answers (a cached denial's attempted/rejected) must not pass for a write of the request.
const suite = servedApp("fuzz", { METRICS_FLUSH_MS: "0" });

let doc: any;
let schemas: Schemas;
let target: Target;
let operations: Operation[] = [];
let tables: string[] = [];
/** The document as the contract: every response is checked against its (operation, status) schema. */
let conforms: ReturnType<typeof contract>;
/** Responses that broke the document (with the request that got them). */
const mismatches: string[] = [];
/** Problem types answered, e.g. how often a shared key was reused or still in use. */
const problemTypes: Record<string, number> = {};

beforeAll(async () => {
  doc = (await suite.api("GET", "/openapi.json")).json;
  conforms = contract(doc);
  schemas = schemasOf(doc);
  target = { url: suite.server.url, schemas };
  operations = operationsOf(doc);
  tables = await tablesOf(suite.db);
});

/** A digest of the suite's database (writes.ts): equal before and after means nothing was written. */
const fingerprint = () => fingerprintOf(suite.db, tables);

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
  console.log(`fuzz: ${requestsSent()} requests, ${mismatches.length} schema mismatches`);
});

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
      const skip = writtenByDesign(op, r, res.status, res.retryAfter);
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
      const arb = mine.length ? fc.oneof(requestFor(target, op), ...mine.map((s) => mutationsOf(target, op, s))) : requestFor(target, op);
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

  // A refused renewal may mark an expired claim timed out on its way (expiry is marked lazily), which
  // moves the semaphore's derived in_use and free slots: the logical view (writes.ts) must not read it as a write.
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
      const arb = mine.length ? fc.oneof(requestFor(target, op), ...mine.map((s) => mutationsOf(target, op, s))) : requestFor(target, op);
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
    // (Forwarding: url or binding, path with a binding, ordered with an ordering_key, a binding this Worker has, a range's order.
    // Lists: an ip or country entry's value in its kind's form.)
    const CROSS_FIELD =
      /must be after|give both from and to|exactly one of policy and policies|at most 366 (days|nights)|exactly one of url and binding|is only for a binding|needs ordering_key|no Service Binding named|Admit's own binding|must be later than since|for kind (ip|country):/i;
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
      const bodySchema = op.body ? schemas.resolve(op.body) : undefined;
      const variants: Array<{ part: string; url: string; headers: Record<string, string>; body?: string }> = [];
      const base = { ...seed.headers, Authorization: `Bearer ${TOKEN}`, ...(seed.body === undefined ? {} : { "Content-Type": "application/json" }) };
      const seedBody = typeof seed.body === "string" ? seed.body : seed.body === undefined ? undefined : JSON.stringify(seed.body);
      const url = (segs: string[], q: URLSearchParams) => suite.server.url + segs.join("/") + (q.size ? `?${q}` : "");
      for (const p of op.params) {
        // A cursor is opaque: only a next_cursor the list returned is one (the document says so).
        if (p.name === "cursor") continue;
        const values = edgesFor(schemas, p.schema).filter((v) => typeof v !== "object");
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
          const values: unknown[] = edgesFor(schemas, propSchema);
          if (!required.has(k)) values.push(undefined);
          for (const v of values) {
            const b = { ...body, [k]: v };
            if (v === undefined) delete b[k];
            if (!schemas.valid(op.body!)(b)) continue; // e.g. one of two fields that are each optional, one required
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
      op.params.filter((p) => [schemas.resolve(p.schema).type].flat().includes("null")).map((p) => `${op.method} ${op.path} ${p.in} ${p.name}`),
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
    const before = await fingerprint();
    let probes = 0;
    for (const op of operations) {
      for (const p of op.params.filter((x) => x.in === "path")) {
        const pattern = schemas.resolve(p.schema).pattern;
        const refuses = pattern !== undefined && !new RegExp(pattern, "u").test(".") && !new RegExp(pattern, "u").test("..");
        // An id is no name anyone creates: "." names nothing, and it is a 404 like any other unknown id.
        if (p.name !== "id") expect(refuses, `${op.method} ${op.path}: path parameter ${p.name} documents no pattern refusing "." and ".."`).toBe(true);
        for (const dots of [".", "..", "%2E", "%2e%2E"]) {
          const path = op.path.replace(/\{([^}]+)\}/g, (_, n) => (n === p.name ? dots : "probe-x"));
          const res = await pathAsIs(
            suite.server.url,
            op.method,
            path,
            { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json" },
            op.body ? "{}" : undefined,
          );
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
    console.log(`fuzz: ${requestsSent()} requests, ${mismatches.length} schema mismatches`);
    console.log(`fuzz problem types: ${JSON.stringify(problemTypes)}`);
    const kinds = [...new Set(mismatches.map((m) => m.split(" — ")[0].split("\n")[0]))];
    if (kinds.length) console.log(`mismatch kinds:\n${kinds.slice(0, 60).join("\n")}`);
    expect(requestsSent()).toBeGreaterThanOrEqual(VOLUME);
    expect(mismatches.slice(0, 10)).toEqual([]);
  });
});
