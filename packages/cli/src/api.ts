// Admit over HTTP for the CLI: one call, its answer parsed, and every failure turned into a CliError
// with its exit code and a line that says what to fix (an unreachable host, a refused token, a
// missing scope, a problem Admit answered).
import { CliError, EXIT } from "./cli.js";

export type Json = Record<string, any>;
export interface Answer {
  status: number;
  json: any;
  headers: Headers;
}
export type Api = (method: string, path: string, body?: unknown) => Promise<Answer>;

const TIMEOUT_MS = 30_000;

function problemLine(a: Answer): string {
  const j = a.json as Json | undefined;
  if (j && typeof j === "object" && typeof j.title === "string") {
    const errs = Array.isArray(j.errors) ? ` (${j.errors.map((e: Json) => `${e.path}: ${e.message}`).join("; ")})` : "";
    return `${a.status} ${j.title}${j.detail ? `: ${j.detail}` : ""}${errs}`;
  }
  return `${a.status}${typeof a.json === "string" && a.json ? `: ${a.json.slice(0, 200)}` : ""}`;
}

/** Calls that answer as they are (any status); only a network failure throws. */
export function api(base: string, token: string, fetchFn: typeof fetch = fetch): Api {
  return async (method, path, body) => {
    let res: Response;
    try {
      res = await fetchFn(base + path, {
        method,
        headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (err) {
      const e = err as Error & { cause?: { code?: string; message?: string } };
      const why = e.name === "TimeoutError" ? `no answer within ${TIMEOUT_MS / 1000} s` : (e.cause?.code ?? e.cause?.message ?? e.message);
      throw new CliError(`cannot reach Admit at ${base} (${why}): check --url / ADMIT_URL and that Admit is running`, EXIT.unavailable);
    }
    const text = await res.text();
    let json: any;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = text;
    }
    return { status: res.status, json, headers: res.headers };
  };
}

/** An answer that must be 2xx (or one of `also`): anything else becomes the CliError it means. */
export function expectOk(a: Answer, what: string, also: number[] = []): Answer {
  if ((a.status >= 200 && a.status < 300) || also.includes(a.status)) return a;
  if (a.status === 401) throw new CliError(`${what}: Admit refused the token (401): check --token / ADMIT_TOKEN`, EXIT.noperm);
  if (a.status === 403) {
    const j = (a.json ?? {}) as Json;
    const lacking = j.scope ? `scope ${j.scope}` : j.name ? `access to the name ${JSON.stringify(j.name)}` : "a scope";
    throw new CliError(`${what}: the token lacks ${lacking} (403 forbidden): use a key that has it`, EXIT.noperm);
  }
  if (a.status === 503) throw new CliError(`${what}: Admit is unavailable (${problemLine(a)}); retry later`, EXIT.unavailable);
  throw new CliError(`${what}: ${problemLine(a)}`, EXIT.failed);
}

/** Every item of a paged list (`items`, `next_cursor`). */
export async function all(call: Api, path: string, what: string): Promise<Json[]> {
  const items: Json[] = [];
  let cursor: string | null = null;
  const sep = path.includes("?") ? "&" : "?";
  do {
    const r = expectOk(await call("GET", `${path}${sep}limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`), what);
    items.push(...r.json.items);
    cursor = r.json.next_cursor;
  } while (cursor);
  return items;
}
