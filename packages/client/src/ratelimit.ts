// A server's rate-limit decision for one incoming request, asked of Admit over HTTP: the window
// limits (POST /v1/ratelimits/check, one policy or several all-or-nothing), then a permit of a
// concurrency limit (POST /v1/semaphores/{name}/acquire, the semaphore created on first use), given
// back with release() after the response. Every adapter (@admit/hono over HTTP, @admit/middleware for
// Express, Fastify and fetch handlers) answers from this one function, so they refuse alike: 429
// problem+json with the draft-11 `RateLimit` / `RateLimit-Policy` headers and `Retry-After`.
//
// When Admit is not reached within the budget the fail mode answers: the caller's `on_unavailable`,
// else the policies' own (read once with GET /v1/ratelimits/policies/{name} when the token may read
// them; any `deny` decides), else "deny". "allow" lets the request through with
// `Admit-RateLimit-Enforced: false`; "deny" refuses with 503 + Retry-After when nothing reached Admit
// (the connection failed) and 504 when the check was sent and no answer came (a unit may be spent).
// Web-standard APIs only (fetch, AbortSignal, Headers): it runs in Node 20+, Workers, Deno, Bun.

/** What a middleware is configured with: which limits, where Admit is, and the fail mode. */
export interface LimiterOptions {
  /** Where Admit is served, e.g. `https://admit.example.com` (no trailing `/v1`). */
  baseUrl: string;
  /** A key that may check (`ratelimits:check`, or `ratelimits:decide`; also `ratelimits:read` to learn the policies' fail mode, and `semaphores:admin` to create a concurrency limit on first use). */
  token: string;
  /** One policy (created with PUT /v1/ratelimits/policies/{name} or `admit policies apply`)… */
  policy?: string;
  /** …or several (1–8), all-or-nothing: admitted only if every one admits. */
  policies?: string[];
  /** The check's budget in ms (default: the policies' `timeout_ms` once read, else 5000); Admit is given 1 s more to answer. */
  timeout_ms?: number;
  /** What to do when Admit cannot be reached within the budget (default: the policies' own, else "deny"). */
  on_unavailable?: "deny" | "allow";
  /** At most `permits` requests in flight at once (an Admit semaphore, created on first use). */
  concurrency?: { name: string; permits: number; ttl_ms?: number };
  /** The fetch to use (default: the global one). */
  fetch?: (request: Request) => Promise<Response>;
}

/** One request's part of the decision: who is limited, and what it costs. */
export interface LimitInput {
  /** The rate-limit key (a user, an API key, an address); required with `policy`/`policies`. */
  key?: string;
  /** Units this request takes (default 1). */
  cost?: number;
  /** Who holds a concurrency permit (shown by GET /v1/semaphores/{name}), e.g. "GET /api/x". */
  holder?: string;
}

/** The decision: through (with headers to set, and release() to call when the response has ended) or a refusal to send as it is. */
export type Admission =
  | { pass: true; headers: Record<string, string>; unenforced: boolean; release: () => Promise<void> }
  | { pass: false; status: number; headers: Record<string, string>; body: Record<string, unknown> };

export const NOT_ENFORCED_HEADER = "Admit-RateLimit-Enforced";
const PASSED_HEADERS = ["RateLimit", "RateLimit-Policy", "Retry-After", NOT_ENFORCED_HEADER];
const DEFAULT_TIMEOUT_MS = 5_000;
const SLACK_MS = 1_000;

/** A problem+json body of the catalogue (docs/errors.md). */
function problem(slug: string, status: number, title: string, detail: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  // Admit's own fields first: the problem's type, title, status and detail are this answer's.
  return { ...extra, type: `/problems/${slug}`, title, status, detail };
}

function sfString(s: string): string {
  return `"${s.replace(/[\\"]/g, (ch) => "\\" + ch)}"`;
}

/** Adds a concurrency limit's item to RateLimit-Policy (and to RateLimit when its remaining count is known), as Admit's own middleware does. */
function withConcurrency(h: Record<string, string>, name: string, permits: number, remaining?: number): Record<string, string> {
  const out = { ...h };
  const item = `${sfString(name)};q=${permits};qu="concurrent-requests"`;
  out["RateLimit-Policy"] = out["RateLimit-Policy"] ? `${out["RateLimit-Policy"]}, ${item}` : item;
  if (remaining !== undefined) out.RateLimit = out.RateLimit ? `${out.RateLimit}, ${sfString(name)};r=${remaining}` : `${sfString(name)};r=${remaining}`;
  return out;
}

function picked(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of PASSED_HEADERS) {
    const v = headers.get(name);
    if (v !== null) out[name] = v;
  }
  return out;
}

type Sent = { ok: true; response: Response; body: Record<string, unknown> } | { ok: false; reached: boolean; error: unknown };

/** The options checked once, when the middleware is made: a mistake is the host's, so it throws at start-up, never per request. */
export function validLimiterOptions(o: LimiterOptions): string[] {
  const names = o.policies ?? (o.policy !== undefined ? [o.policy] : []);
  if (o.policy !== undefined && o.policies !== undefined) throw new Error("Admit rate limit: give `policy` or `policies`, not both");
  if (names.length > 8) throw new Error("Admit rate limit: at most 8 policies");
  if (!names.length && !o.concurrency) throw new Error("Admit rate limit: give `policy`, `policies` or `concurrency`");
  if (!o.baseUrl || !/^https?:\/\//.test(o.baseUrl)) throw new Error(`Admit rate limit: baseUrl ${JSON.stringify(o.baseUrl)} is not an http(s) URL`);
  return names;
}

/** A holder Admit accepts whatever the path: at most 200 code units, a surrogate cut in half or alone as U+FFFD, no NUL. */
export function validHolder(s: string): string {
  return s
    .slice(0, 200)
    .replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD")
    .replaceAll("\u0000", "\uFFFD");
}

/** A limiter over HTTP: `admit(input)` per request. */
export function createLimiter(options: LimiterOptions): { admit(input: LimitInput): Promise<Admission>; policies: string[] } {
  const names = validLimiterOptions(options);
  const base = options.baseUrl.replace(/\/+$/, "");
  const doFetch = options.fetch ?? ((r: Request) => globalThis.fetch(r));
  // What the policies say (timeout_ms, on_unavailable), read once; undefined until read.
  let learnt: { timeoutMs: number; onUnavailable: "deny" | "allow" } | undefined;
  let learning: Promise<void> | undefined;

  async function send(method: string, path: string, body: unknown, ms: number): Promise<Sent> {
    let reached = false;
    try {
      const res = await doFetch(
        new Request(base + path, {
          method,
          headers: { Authorization: `Bearer ${options.token}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(ms),
        }),
      );
      reached = true;
      const text = await res.text();
      let parsed: Record<string, unknown> = {};
      try {
        parsed = text ? JSON.parse(text) : {};
      } catch {
        parsed = { detail: text.slice(0, 200) };
      }
      return { ok: true, response: res, body: parsed };
    } catch (error) {
      // A timeout after the request left may have been decided; a refused connection was not.
      const name = (error as Error)?.name;
      return { ok: false, reached: reached || name === "TimeoutError" || name === "AbortError", error };
    }
  }

  function learn(): void {
    if (learnt || learning || !names.length) return;
    learning = (async () => {
      const got = await Promise.all(names.map((n) => send("GET", `/v1/ratelimits/policies/${encodeURIComponent(n)}`, undefined, 10_000)));
      if (got.every((g) => g.ok && g.response.ok)) {
        const ps = got.map((g) => (g as { body: { timeout_ms?: number; on_unavailable?: string } }).body);
        learnt = {
          timeoutMs: Math.min(...ps.map((p) => p.timeout_ms ?? DEFAULT_TIMEOUT_MS)),
          onUnavailable: ps.some((p) => p.on_unavailable !== "allow") ? "deny" : "allow",
        };
      }
    })().finally(() => {
      learning = undefined;
    });
  }

  const budgetMs = () => (options.timeout_ms ?? learnt?.timeoutMs ?? DEFAULT_TIMEOUT_MS) + SLACK_MS;
  const failMode = () => options.on_unavailable ?? learnt?.onUnavailable ?? "deny";

  /** Admit did not answer: the fail mode decides. */
  function unavailable(what: string, sent: Extract<Sent, { ok: false }>, headers: Record<string, string> = {}): Admission {
    const why = String((sent.error as Error)?.message ?? sent.error);
    if (failMode() === "allow")
      return { pass: true, headers: { ...headers, [NOT_ENFORCED_HEADER]: "false; reason=unavailable" }, unenforced: true, release: async () => {} };
    const h = { ...headers, "Retry-After": "1" };
    return sent.reached
      ? {
          pass: false,
          status: 504,
          headers: h,
          body: problem(
            "outcome-unknown",
            504,
            "Outcome unknown",
            `Admit did not answer the ${what} within ${budgetMs()} ms (${why}); a unit may or may not have been consumed.`,
          ),
        }
      : {
          pass: false,
          status: 503,
          headers: h,
          body: problem("ratelimit-unavailable", 503, "Rate limiter unavailable", `Admit could not be reached for the ${what} (${why}); nothing was consumed.`),
        };
  }

  /** An answer of Admit's that is not a decision (401, 403, 404, 422, 503, 504): passed on as a refusal, never as a 500. */
  function refusal(sent: Extract<Sent, { ok: true }>, extra: Record<string, string> = {}): Admission {
    const { response: res, body } = sent;
    if (res.status === 401 || res.status === 403) {
      const detail = `Admit refused this server's token (${res.status}: ${String(body.detail ?? body.title ?? "")}); give the middleware a key with ratelimits:check.`;
      return {
        pass: false,
        status: 503,
        headers: { "Retry-After": "30", ...extra },
        body: problem("ratelimit-misconfigured", 503, "Rate limiter misconfigured", detail),
      };
    }
    if (res.status === 404 && names.length) {
      const detail = `${String(body.detail ?? "A rate-limit policy does not exist")}. Create it (admit policies apply). Nothing was counted.`;
      return {
        pass: false,
        status: 503,
        headers: { "Retry-After": "30", ...extra },
        body: problem("ratelimit-policy-missing", 503, "Rate-limit policy missing", detail),
      };
    }
    return { pass: false, status: res.status, headers: { ...picked(res.headers), ...extra }, body };
  }

  async function windows(input: LimitInput): Promise<Admission> {
    if (input.key === undefined) throw new Error("Admit rate limit: `key` is required with `policy`/`policies`");
    const body = {
      ...(options.policies ? { policies: names } : { policy: names[0] }),
      key: input.key,
      ...(input.cost === undefined ? {} : { cost: input.cost }),
    };
    const sent = await send("POST", "/v1/ratelimits/check", body, budgetMs());
    if (!sent.ok) return unavailable("rate-limit check", sent);
    const { response: res } = sent;
    const headers = picked(res.headers);
    if (res.status === 200) return { pass: true, headers, unenforced: headers[NOT_ENFORCED_HEADER] !== undefined, release: async () => {} };
    if (res.status === 429) {
      // One policy answers its result body; several a quota-exceeded problem: both as problem+json.
      const b = sent.body;
      const out =
        typeof b.type === "string"
          ? b
          : problem("rate-limited", 429, "Too many requests", `${JSON.stringify(b.key)} is over the limit of ${JSON.stringify(b.policy)}.`, b);
      return { pass: false, status: 429, headers, body: out };
    }
    return refusal(sent);
  }

  async function permit(conc: NonNullable<LimiterOptions["concurrency"]>, holder: string, headers: Record<string, string>): Promise<Admission> {
    const path = `/v1/semaphores/${encodeURIComponent(conc.name)}`;
    const acquire = () => send("POST", `${path}/acquire`, { holder, ...(conc.ttl_ms ? { ttl_ms: conc.ttl_ms } : {}) }, budgetMs());
    let sent = await acquire();
    if (sent.ok && sent.response.status === 404) {
      // First use: create it with the configured size (an existing one is never resized here).
      const put = await send("PUT", path, { permits: conc.permits, ...(conc.ttl_ms ? { default_ttl_ms: conc.ttl_ms } : {}) }, budgetMs());
      if (!put.ok) return unavailable("concurrency limit", put, headers);
      if (!put.response.ok) return refusal(put, headers);
      sent = await acquire();
    }
    if (!sent.ok) return unavailable("concurrency limit", sent, headers);
    const { response: res, body } = sent;
    if (res.status === 429) {
      const h = withConcurrency(headers, conc.name, Number(body.permits ?? conc.permits), 0);
      h["Retry-After"] = res.headers.get("Retry-After") ?? "1";
      const detail = `All ${body.permits ?? conc.permits} permits of ${JSON.stringify(conc.name)} are in use.`;
      return { pass: false, status: 429, headers: h, body: problem("concurrency-limited", 429, "Too many requests in flight", detail, body) };
    }
    if (!res.ok) return refusal(sent, headers);
    const permitId = String(body.permit_id);
    let released = false;
    const release = async () => {
      if (released) return;
      released = true;
      // If this fails, the permit's TTL frees it.
      const r = await send("POST", `${path}/release`, { permit_id: permitId }, budgetMs());
      if (!r.ok || (!r.response.ok && r.response.status !== 409))
        console.error(`Admit rate limit: releasing a permit of ${conc.name} failed; its TTL frees it`);
    };
    return { pass: true, headers: withConcurrency(headers, conc.name, conc.permits), unenforced: false, release };
  }

  async function admit(input: LimitInput): Promise<Admission> {
    learn();
    let headers: Record<string, string> = {};
    if (names.length) {
      const w = await windows(input);
      if (!w.pass)
        return options.concurrency && w.status === 429
          ? { ...w, headers: withConcurrency(w.headers, options.concurrency.name, options.concurrency.permits) }
          : w;
      // Not enforced (Admit did not decide): do not wait a second budget for a permit.
      if (!options.concurrency || w.unenforced) return w;
      headers = w.headers;
    }
    const holder = validHolder(input.holder ?? "rateLimit()");
    return permit(options.concurrency!, holder, headers);
  }

  return { admit, policies: names };
}
