// The document as a reader of /docs sees it: every operation has its own summary (the sidebar label),
// a request body example when it takes a body, an example for each success response and for every
// problem response — a problem example naming its own status, with the type and title Admit answers
// with — and every example is valid against the schema it illustrates (Ajv, JSON Schema 2020-12,
// as test/support/contract.ts compiles the document).
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../functions/http/app";

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;
const pointer = (s: string) => s.replace(/~/g, "~0").replace(/\//g, "~1");
const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"];

let doc: any;
const ops: Array<{ method: string; path: string; op: any }> = [];

beforeAll(async () => {
  doc = await (await createApp().request("/openapi.json")).json();
  for (const [path, item] of Object.entries<any>(doc.paths))
    for (const method of Object.keys(item).filter((m) => METHODS.includes(m))) ops.push({ method, path, op: item[method] });
});

/** Every (operation, place, media type) with content, and the schema pointer of that place. */
function media() {
  const out: Array<{ at: string; ref: string; status?: number; type: string; example: unknown }> = [];
  for (const { method, path, op } of ops) {
    const base = `openapi.json#/paths/${pointer(path)}/${method}`;
    for (const [type, m] of Object.entries<any>(op.requestBody?.content ?? {}))
      out.push({ at: `${method.toUpperCase()} ${path} request ${type}`, ref: `${base}/requestBody/content/${pointer(type)}/schema`, type, example: m.example });
    for (const [status, r] of Object.entries<any>(op.responses)) {
      for (const [type, m] of Object.entries<any>(r.content ?? {})) {
        out.push({
          at: `${method.toUpperCase()} ${path} ${status} ${type}`,
          ref: `${base}/responses/${status}/content/${pointer(type)}/schema`,
          status: Number(status),
          type,
          example: m.example,
        });
      }
    }
  }
  return out;
}

describe("OpenAPI examples and summaries (what /docs shows)", () => {
  it("every operation has a summary of its own", () => {
    expect(ops.length).toBeGreaterThan(30);
    const summaries = ops.map(({ op }) => op.summary);
    expect(ops.filter(({ op }) => typeof op.summary !== "string" || op.summary.trim().length < 8).map(({ method, path }) => `${method} ${path}`)).toEqual([]);
    expect(summaries.filter((s, i) => summaries.indexOf(s) !== i)).toEqual([]);
  });

  it("every request body, success response and problem response has an example", () => {
    const missing: string[] = [];
    for (const { method, path, op } of ops) {
      const at = `${method.toUpperCase()} ${path}`;
      if (op.requestBody && op.requestBody.content?.["application/json"]?.example === undefined) missing.push(`${at} request body`);
      const success = Object.keys(op.responses).filter((s) => s.startsWith("2"));
      expect(success.length, `${at} has a success response`).toBeGreaterThan(0);
      for (const s of success) {
        const content = op.responses[s].content;
        // JSON, or (GET /metrics) the Prometheus text format.
        if (content && Object.values(content).every((m: any) => m.example === undefined)) missing.push(`${at} ${s}`);
      }
    }
    for (const m of media()) if (m.example === undefined) missing.push(m.at);
    expect(missing).toEqual([]);
  });

  it("each problem example has its own status, and a type and title for it (not all /problems/validation)", () => {
    const wrong: string[] = [];
    const types = new Set<string>();
    for (const m of media().filter((m) => m.type === "application/problem+json")) {
      const e = m.example as any;
      if (e.status !== m.status) wrong.push(`${m.at}: status ${e.status}`);
      if (!/^\/problems\/[a-z-]+$/.test(e.type)) wrong.push(`${m.at}: type ${e.type}`);
      if ((e.type === "/problems/validation") !== (m.status === 422)) wrong.push(`${m.at}: type ${e.type} for ${m.status}`);
      if (typeof e.title !== "string" || e.title.length === 0) wrong.push(`${m.at}: no title`);
      types.add(`${m.status} ${e.type}`);
    }
    expect(wrong).toEqual([]);
    // Route-specific problems are told apart: e.g. a reservation overlap vs a held lock vs a full semaphore.
    expect([...types]).toEqual(
      expect.arrayContaining([
        "409 /problems/reservation-conflict",
        "409 /problems/lock-held",
        "429 /problems/semaphore-full",
        "429 /problems/quota-exceeded",
        "401 /problems/webhook-signature",
      ]),
    );
  });

  it("every example validates against its own schema", () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(doc, "openapi.json");
    const invalid: string[] = [];
    // Path and query parameters' examples too (the page puts them in its curl snippets).
    for (const { method, path, op } of ops) {
      (op.parameters ?? []).forEach((p: any, i: number) => {
        if (p.example === undefined) return;
        const validate = ajv.compile({ $ref: `openapi.json#/paths/${pointer(path)}/${method}/parameters/${i}/schema` });
        if (!validate(p.example)) invalid.push(`${method.toUpperCase()} ${path} ${p.in} ${p.name}: ${ajv.errorsText(validate.errors)}`);
      });
    }
    for (const m of media()) {
      if (m.example === undefined) continue;
      const validate = ajv.compile({ $ref: m.ref });
      if (!validate(m.example)) invalid.push(`${m.at}: ${ajv.errorsText(validate.errors)}`);
    }
    expect(invalid).toEqual([]);
  });
});
