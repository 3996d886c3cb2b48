// Responses judged against the document: the schema /openapi.json declares for (operation, status,
// content type), compiled with Ajv (OpenAPI 3.1 schemas are JSON Schema 2020-12). An undocumented
// status, an undocumented content type, or a body the schema refuses is a mismatch.
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;
const pointer = (s: string) => s.replace(/~/g, "~0").replace(/\//g, "~1");

export interface Received {
  status: number;
  type: string | null;
  text: string;
  /** The `Allow` header, where the check needs it (a method the path lacks). */
  allow?: string | null;
}

/** The path to give `check` for a URL that no operation of the document has. */
export const NO_OPERATION = "(none)";

/**
 * The document's path template that `pathname` (as sent: after the URL parser resolved "." and ".."
 * segments) addresses for `method`, preferring `preferred`; NO_OPERATION when there is none. A path
 * parameter is one non-empty segment. A concrete path (no parameter) is matched before the templated
 * ones (OpenAPI 3.1, Paths Object): a request to it addresses it alone.
 */
export function operationFor(doc: any, method: string, pathname: string, preferred?: string): string {
  const concrete = !pathname.includes("{") && Object.hasOwn(doc.paths ?? {}, pathname);
  const matches = (template: string) =>
    concrete ? template === pathname : new RegExp("^" + template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^}]+\}/g, "[^/]+") + "$").test(pathname);
  if (preferred && matches(preferred)) return preferred;
  const other = Object.keys(doc.paths ?? {}).find((t) => doc.paths[t][method.toLowerCase()] && matches(t));
  return other ?? NO_OPERATION;
}

/** The order the app lists `Allow` in (functions/http/methods.ts). */
const ALLOW_ORDER = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

/**
 * The `Allow` the document implies for `pathname`: the methods of every path template it matches,
 * HEAD wherever GET is, OPTIONS wherever anything is; null when no template matches (a 404).
 */
export function allowFor(doc: any, pathname: string): string | null {
  const methods = new Set<string>();
  for (const template of Object.keys(doc.paths ?? {})) {
    if (operationFor(doc, "", pathname, template) !== template) continue;
    for (const m of Object.keys(doc.paths[template])) if (ALLOW_ORDER.includes(m.toUpperCase())) methods.add(m.toUpperCase());
  }
  if (methods.size === 0) return null;
  if (methods.has("GET")) methods.add("HEAD");
  methods.add("OPTIONS");
  return ALLOW_ORDER.filter((m) => methods.has(m)).join(", ");
}

const safeJson = (text: string) => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** `check(method, path, res)` → undefined when the response is what the document says, else why not. */
export function contract(doc: any) {
  const ajv = new Ajv2020({ strict: false, allErrors: false });
  addFormats(ajv);
  ajv.addSchema(doc, "openapi.json");
  const cache = new Map<string, ValidateFunction>();
  const validator = (ref: string) => {
    let validate = cache.get(ref);
    if (!validate) cache.set(ref, (validate = ajv.compile({ $ref: ref })));
    return validate;
  };
  /** `pathname`: the URL's path as sent, for a method the path lacks (NO_OPERATION): then 405 + Allow, or 204 + Allow for OPTIONS. */
  return function check(method: string, path: string, res: Received, pathname?: string): string | undefined {
    const allow = path === NO_OPERATION && pathname !== undefined ? allowFor(doc, pathname) : null;
    if (allow !== null) {
      // HEAD is answered as GET (without a body) where the path has GET; elsewhere a bodiless 405.
      if (method === "HEAD") return allow.includes("GET") || res.status === 405 ? undefined : `HEAD ${pathname}: expected 405, got ${res.status}`;
      if (res.allow !== undefined && res.allow !== allow)
        return `${method} ${pathname}: Allow ${JSON.stringify(res.allow)}, the document's methods are ${allow}`;
      if (method === "OPTIONS") return res.status === 204 && res.text === "" ? undefined : `OPTIONS ${pathname}: expected 204 with Allow, got ${res.status}`;
      if (res.status !== 405 || (res.type ?? "").split(";")[0] !== "application/problem+json")
        return `${method} ${pathname} (a method the path lacks): expected a 405 problem with Allow: ${allow}, got ${res.status} ${res.type}`;
      const validate = validator("openapi.json#/components/schemas/Problem");
      return validate(safeJson(res.text)) ? undefined : `${method} ${pathname} 405: not a Problem: ${ajv.errorsText(validate.errors)}`;
    }
    if (path === NO_OPERATION) {
      // A URL no operation has (e.g. an empty or ".." segment): the app's 404 problem.
      if (res.status !== 404 || (res.type ?? "").split(";")[0] !== "application/problem+json")
        return `${method} (no such operation): expected a 404 problem, got ${res.status} ${res.type}`;
      const validate = validator("openapi.json#/components/schemas/Problem");
      return validate(safeJson(res.text)) ? undefined : `${method} (no such operation) 404: not a Problem: ${ajv.errorsText(validate.errors)}`;
    }
    const op = doc.paths?.[path]?.[method.toLowerCase()];
    if (!op) return `${method} ${path} is not in the document`;
    const documented = op.responses?.[String(res.status)] ?? op.responses?.[`${String(res.status)[0]}XX`] ?? op.responses?.default;
    if (!documented) return `${method} ${path}: status ${res.status} is not documented (documented: ${Object.keys(op.responses ?? {}).join(", ")})`;
    const content = documented.content as Record<string, { schema?: unknown }> | undefined;
    if (!content || Object.keys(content).length === 0) {
      return res.text === "" ? undefined : `${method} ${path} ${res.status}: documented without a body, got ${JSON.stringify(res.text.slice(0, 100))}`;
    }
    const type = (res.type ?? "").split(";")[0].trim();
    if (!(type in content)) return `${method} ${path} ${res.status}: content type ${JSON.stringify(type)} not documented (${Object.keys(content).join(", ")})`;
    let body: unknown = res.text; // a text body (GET /metrics: text/plain) is checked as the string it is
    if (type.endsWith("json")) {
      try {
        body = JSON.parse(res.text);
      } catch {
        return `${method} ${path} ${res.status}: body is not JSON: ${JSON.stringify(res.text.slice(0, 100))}`;
      }
    }
    const ref = `openapi.json#/paths/${pointer(path)}/${method.toLowerCase()}/responses/${documented === op.responses[String(res.status)] ? res.status : "default"}/content/${pointer(type)}/schema`;
    const validate = validator(ref);
    if (validate(body)) return undefined;
    return `${method} ${path} ${res.status}: body does not match the documented schema: ${ajv.errorsText(validate.errors)} — ${res.text.slice(0, 300)}`;
  };
}
