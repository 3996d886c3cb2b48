// Admit's typed HTTP client (@admit/client): openapi-fetch over the types that openapi-typescript
// generates from the OpenAPI document (src/schema.d.ts, `npm run client:generate`). Paths, parameters, bodies and
// responses are checked at compile time; what this file adds is the part the document states in
// words: bearer auth, `Idempotency-Key` on writes, and retrying only where a retry is safe.
//
//   const admit = createAdmitClient({ baseUrl: process.env.ADMIT!, token: process.env.TOKEN! });
//   const { data, error, response } = await admit.POST("/v1/reservations", { body: { resource, holder, start, end } });
//
// Every call answers `{ data, error, response }`: `data` typed by the operation's 2xx response,
// `error` by its problem responses (`application/problem+json`: type, title, status, detail, …).
// `orThrow(result)` turns a problem into a thrown `AdmitProblemError` for code that prefers that.
//
// Retries (docs/reliability.md): a 503 means nothing was applied, so it is retried after its
// `Retry-After`; a 504 means the write may have committed, so it is retried only when the request
// carries an `Idempotency-Key` (the very same request, so the same key: the server replays the
// stored answer if the first attempt committed). 409, 422, 429 and every other status are answers,
// never retried; neither is a network error. Attempts and the total time are bounded.
import createClient, { type Client, type Middleware } from "openapi-fetch";
import type { components, paths } from "./schema.js";

export type { components, operations, paths } from "./schema.js";

/** An `application/problem+json` body (docs/errors.md lists every `type`). */
export type Problem = components["schemas"]["Problem"];

export type AdmitClient = Client<paths>;

/** Which answers are retried and for how long. */
export interface RetryPolicy {
  /** Attempts in all, the first included (default 3; 1 = no retry). */
  attempts?: number;
  /** No retry starts when it would begin later than this after the first attempt (default 10 000 ms). */
  maxElapsedMs?: number;
  /** The wait when a retried answer has no `Retry-After` (default 500 ms, doubled each retry). */
  defaultDelayMs?: number;
}

export interface AdmitClientOptions {
  /** Where Admit is served, e.g. `http://127.0.0.1:8787` (no trailing `/v1`). */
  baseUrl: string;
  /** The API token or a scoped key (`admit_…`, docs/api-keys.md), sent as `Authorization: Bearer …`. */
  token?: string;
  /** The fetch to use (default: the global one). */
  fetch?: (request: Request) => Promise<Response>;
  /** The retry policy, or `false` for none (default: `{}`, i.e. the defaults above). */
  retry?: RetryPolicy | false;
  /**
   * Send a fresh `Idempotency-Key` on every write (POST, PUT, PATCH, DELETE) that has none, so that
   * any write answered 504 is retried and a retry is never applied twice (default false: pass
   * `params: { header: { "Idempotency-Key": idempotencyKey() } }` per call instead).
   */
  idempotencyKeys?: boolean;
}

const WRITES = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/** A new `Idempotency-Key` (a random UUID). Keep it with the intent and send the same one on every retry of it. */
export function idempotencyKey(): string {
  return crypto.randomUUID();
}

/** The client: `admit.GET(path, init)`, `admit.POST(path, init)`, … typed by the OpenAPI document. */
export function createAdmitClient(options: AdmitClientOptions): AdmitClient {
  const baseFetch = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const client = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ""),
    headers: options.token ? { Authorization: `Bearer ${options.token}` } : undefined,
    fetch: options.retry === false ? baseFetch : retrying(baseFetch, options.retry ?? {}),
  });
  if (options.idempotencyKeys) client.use(autoIdempotencyKey);
  return client;
}

const autoIdempotencyKey: Middleware = {
  onRequest({ request }) {
    if (WRITES.has(request.method) && !request.headers.has("Idempotency-Key")) request.headers.set("Idempotency-Key", idempotencyKey());
    return request;
  },
};

/** Whether Admit says this answer may be retried as sent: 503 always, 504 only for a keyed request. */
export function isRetryable(request: Request, status: number): boolean {
  return status === 503 || (status === 504 && request.headers.has("Idempotency-Key"));
}

/** `Retry-After` (delay-seconds or an HTTP date) in ms, or undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === "") return undefined;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Wraps a fetch so that retryable answers (see `isRetryable`) are retried under `policy`. */
export function retrying(fetch: (request: Request) => Promise<Response>, policy: RetryPolicy = {}): (request: Request) => Promise<Response> {
  const attempts = Math.max(1, policy.attempts ?? 3);
  const maxElapsedMs = policy.maxElapsedMs ?? 10_000;
  const defaultDelayMs = policy.defaultDelayMs ?? 500;
  return async (request) => {
    const started = Date.now();
    for (let attempt = 1; ; attempt++) {
      // A clone per attempt: the same method, URL, headers (so the same Idempotency-Key) and body.
      const response = await fetch(attempt < attempts ? request.clone() : request);
      if (attempt >= attempts || !isRetryable(request, response.status)) return response;
      const wait = retryAfterMs(response.headers.get("Retry-After")) ?? defaultDelayMs * 2 ** (attempt - 1);
      if (Date.now() + wait - started > maxElapsedMs) return response;
      await response.body?.cancel();
      await sleep(wait, request.signal);
    }
  };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** Whether an answer's body is an `application/problem+json` problem (type, title, status). */
export function isProblem(body: unknown): body is Problem {
  const b = body as Partial<Problem> | null;
  return typeof b === "object" && b !== null && typeof b.type === "string" && typeof b.title === "string" && typeof b.status === "number";
}

/** A non-2xx answer, thrown by `orThrow`: its status, its body, and the problem when the body is one. */
export class AdmitProblemError extends Error {
  readonly status: number;
  /** The parsed body (a problem, or e.g. a rate-limit check's `allowed: false` result on 429). */
  readonly body: unknown;
  readonly problem: Problem | undefined;
  readonly response: Response;
  constructor(body: unknown, response: Response) {
    const problem = isProblem(body) ? body : undefined;
    super(
      problem
        ? `${response.status} ${problem.title}${problem.detail ? `: ${problem.detail}` : ""} (${problem.type})`
        : `${response.status} ${response.statusText}`,
    );
    this.name = "AdmitProblemError";
    this.status = response.status;
    this.body = body;
    this.problem = problem;
    this.response = response;
  }
}

/** The call's `data`, or an `AdmitProblemError` thrown for a non-2xx answer. */
export function orThrow<R extends { data?: unknown; error?: unknown; response: Response }>(result: R): NonNullable<R["data"]> {
  if (result.error !== undefined || !result.response.ok) throw new AdmitProblemError(result.error, result.response);
  return result.data as NonNullable<R["data"]>;
}
