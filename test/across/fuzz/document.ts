// The app's OpenAPI document as the generators read it: its operations (method, path, parameters,
// body schema, documented content types per status), its schemas with their references resolved,
// and any of its schemas as a validator (Ajv, JSON Schema 2020-12).
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import type { HttpCall } from "../../support/capabilities";

export type Schema = Record<string, any>;
export interface Operation {
  method: string;
  path: string;
  /** Documented content types per status, e.g. {"429": ["application/json"]}. */
  responses: Record<string, string[]>;
  params: Array<{ name: string; in: "path" | "query" | "header"; required: boolean; schema: Schema }>;
  body?: Schema;
}

/** Every operation of the document, in its order. */
export function operationsOf(doc: any): Operation[] {
  const operations: Operation[] = [];
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
  return operations;
}

/** Whether `call` (a capability's example) addresses operation `op`. */
export function templateMatches(op: Operation, call: HttpCall): boolean {
  const re = new RegExp("^" + op.path.replace(/\{[^}]+\}/g, "[^/]+") + "$");
  return op.method === call.method && re.test(call.path.split("?")[0]);
}

export interface Schemas {
  /** `s` with its `$ref` followed into the document's components (until it is not a reference). */
  resolve(s: Schema): Schema;
  /** The document's schema `s` (refs into its components) as a validator. */
  valid(s: Schema): ValidateFunction;
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;

/** The schemas of `doc`; validators are compiled on first use and kept. */
export function schemasOf(doc: any): Schemas {
  const resolve = (s: Schema): Schema => (s?.$ref ? resolve(doc.components.schemas[s.$ref.split("/").pop()]) : (s ?? {}));
  let schemaAjv: Ajv2020 | undefined;
  const schemaValidators = new Map<string, ValidateFunction>();
  function valid(s: Schema): ValidateFunction {
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
  return { resolve, valid };
}

/** The app under test, as requests are made for it: its base URL and its document's schemas. */
export interface Target {
  url: string;
  schemas: Schemas;
}
