// @admit/hono: Admit for a Hono app (a Worker, Bun, Deno, Node): rateLimit() over a Service Binding
// to Admit's `Admit` entrypoint or over HTTP, with the same options either way, and admit(binding),
// the typed RPC client. Only web-standard APIs and @admit/client: a Worker using it bundles no
// database code of Admit's.
import { type Admission, createLimiter, type LimiterOptions, NOT_ENFORCED_HEADER, validHolder } from "@admit/client/ratelimit";
import type { Context, MiddlewareHandler } from "hono";
import type { AdmitBinding, GateAnswer, RpcProblem } from "./binding.js";

export type { AdmitBinding, AdmitClient, AdmitMethods, GateAnswer, GateInput, MethodName, RpcOptions, RpcProblem } from "./binding.js";
export { AdmitError, admit, isRpcProblem } from "./binding.js";

/** What rateLimit() calls on Admit's entrypoint: the gate and the permit's release. */
export type RateLimitBinding = Pick<AdmitBinding, "rateLimitGate" | "releasePermit">;

type OrOfContext<T, C> = T | ((c: C) => T);

export interface RateLimitOptions<C extends Context = Context> {
  /** Admit over a Service Binding (e.g. `(c) => c.env.ADMIT`): the check runs in Admit's Worker. */
  binding?: OrOfContext<RateLimitBinding, C>;
  /** Or Admit over HTTP: its URL (e.g. `(c) => c.env.ADMIT_URL`)… */
  baseUrl?: OrOfContext<string, C>;
  /** …and a key with `ratelimits:check` (e.g. `(c) => c.env.ADMIT_TOKEN`). */
  token?: OrOfContext<string, C>;
  /** The policy's name… */
  policy?: string;
  /** …or several (1–8), all-or-nothing. */
  policies?: string[];
  /** Who is limited: an API key, a user id, an address (required with `policy`/`policies`). */
  key?: (c: C) => string | Promise<string>;
  /** Units per request (default 1). */
  cost?: number | ((c: C) => number | Promise<number>);
  /** The check's budget in ms (default: the policies' `timeout_ms`). */
  timeout_ms?: number;
  /** When Admit cannot be reached within the budget: "deny" (503/504) or "allow" (through, `Admit-RateLimit-Enforced: false`); default: the policies' own. */
  on_unavailable?: "deny" | "allow";
  /** At most `permits` requests in flight at once (an Admit semaphore, created on first use), given back when the response is made. */
  concurrency?: { name: string; permits: number; ttl_ms?: number };
}

const NAME = /^[A-Za-z0-9._:-]{1,100}$/;
/** How long to wait for the binding beyond the budget: Admit answers the fail mode itself; this is only for an Admit that does not answer at all. */
const BINDING_SLACK_MS = 1_000;
const BINDING_BACKSTOP_MS = 61_000;

function resolve<T, C>(v: OrOfContext<T, C> | undefined, c: C): T | undefined {
  return typeof v === "function" ? (v as (c: C) => T)(c) : v;
}

function problemResponse(status: number, body: Record<string, unknown>, headers: Record<string, string>): Response {
  return new Response(JSON.stringify(body), { status, headers: { ...headers, "Content-Type": "application/problem+json" } });
}

/** The binding's gate as an Admission (the shape the HTTP limiter answers). */
async function overBinding(binding: RateLimitBinding, input: Parameters<RateLimitBinding["rateLimitGate"]>[0], failOpen: boolean): Promise<Admission> {
  const waitMs = input.timeout_ms === undefined ? BINDING_BACKSTOP_MS : input.timeout_ms + BINDING_SLACK_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let answer: GateAnswer | { error: RpcProblem };
  try {
    answer = await Promise.race([
      binding.rateLimitGate(input),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer from Admit within ${waitMs} ms`)), waitMs);
      }),
    ]);
  } catch (err) {
    // Admit itself did not answer: the fail mode decides. The call was sent, so a unit may be spent.
    console.error("rateLimit(): the Admit binding failed", err);
    if (failOpen) return { pass: true, headers: { [NOT_ENFORCED_HEADER]: "false; reason=unavailable" }, unenforced: true, release: async () => {} };
    const detail = `Admit did not answer the rate-limit check (${String((err as Error)?.message ?? err)}); a unit may or may not have been consumed.`;
    return {
      pass: false,
      status: 504,
      headers: { "Retry-After": "1" },
      body: { type: "/problems/outcome-unknown", title: "Outcome unknown", status: 504, detail },
    };
  } finally {
    clearTimeout(timer);
  }
  if ("error" in answer) {
    const { retry_after, ...p } = answer.error;
    return { pass: false, status: p.status, headers: retry_after ? { "Retry-After": String(retry_after) } : {}, body: p };
  }
  if (!answer.pass) return { pass: false, status: answer.status, headers: answer.headers, body: answer.problem };
  const permit = answer.permit;
  const release = async () => {
    if (!permit) return;
    try {
      const r = await binding.releasePermit({ name: permit.name, permit_id: permit.permit_id });
      if ("error" in r) console.error(`rateLimit(): releasing a permit of ${permit.name} failed; its TTL frees it`, r.error);
    } catch (err) {
      console.error(`rateLimit(): releasing a permit of ${permit.name} failed; its TTL frees it`, err);
    }
  };
  return { pass: true, headers: answer.headers, unenforced: answer.unenforced, release };
}

/**
 * Hono middleware: window limits (`policy` or `policies`) and/or a concurrency limit, decided by Admit
 * over a Service Binding (`binding`) or over HTTP (`baseUrl` + `token`). Sets the draft-11
 * `RateLimit` / `RateLimit-Policy` headers; answers 429 problem+json with `Retry-After` when refused;
 * the fail mode when Admit is not reached within the budget.
 *
 * @example
 * app.use("/api/*", rateLimit({ binding: (c) => c.env.ADMIT, policy: "api", key: (c) => c.req.header("X-Api-Key") ?? "anonymous" }));
 */
export function rateLimit<C extends Context = Context>(opts: RateLimitOptions<C>): MiddlewareHandler {
  const names = opts.policies ?? (opts.policy !== undefined ? [opts.policy] : []);
  if (opts.policy !== undefined && opts.policies !== undefined) throw new Error("rateLimit(): give `policy` or `policies`, not both");
  if (names.length > 8) throw new Error("rateLimit(): at most 8 policies");
  if (names.length && !opts.key) throw new Error("rateLimit(): `key` is required with `policy`/`policies`");
  if (!names.length && !opts.concurrency) throw new Error("rateLimit(): give `policy`, `policies` or `concurrency`");
  for (const n of [...names, ...(opts.concurrency ? [opts.concurrency.name] : [])])
    if (!NAME.test(n) || n === "." || n === "..") throw new Error(`rateLimit(): ${JSON.stringify(n)} must be 1–100 characters of A–Z a–z 0–9 . _ : -`);
  if (!opts.binding && opts.baseUrl === undefined) throw new Error("rateLimit(): give `binding` (a Service Binding to Admit) or `baseUrl` and `token`");
  // One HTTP limiter per Admit URL and token (it remembers the policies' fail mode once read).
  const limiters = new Map<string, ReturnType<typeof createLimiter>>();
  const limiterFor = (baseUrl: string, token: string) => {
    const id = `${baseUrl}\u0000${token}`;
    let l = limiters.get(id);
    if (!l) {
      const o: LimiterOptions = { baseUrl, token, timeout_ms: opts.timeout_ms, on_unavailable: opts.on_unavailable, concurrency: opts.concurrency };
      if (opts.policies) o.policies = opts.policies;
      else if (opts.policy !== undefined) o.policy = opts.policy;
      limiters.set(id, (l = createLimiter(o)));
    }
    return l;
  };
  return async (c, next) => {
    const ctx = c as unknown as C;
    const key = names.length ? await opts.key!(ctx) : undefined;
    const cost = typeof opts.cost === "function" ? await opts.cost(ctx) : opts.cost;
    const holder = validHolder(`${c.req.method} ${c.req.path}`);
    const binding = resolve(opts.binding, ctx);
    let admission: Admission;
    if (binding) {
      const input: Parameters<RateLimitBinding["rateLimitGate"]>[0] = { timeout_ms: opts.timeout_ms, on_unavailable: opts.on_unavailable };
      if (names.length) {
        input.key = key;
        if (cost !== undefined) input.cost = cost;
        if (opts.policies) input.policies = names;
        else input.policy = names[0];
      }
      if (opts.concurrency) {
        input.concurrency = opts.concurrency;
        input.holder = holder;
      }
      admission = await overBinding(binding, input, opts.on_unavailable === "allow");
    } else {
      const baseUrl = resolve(opts.baseUrl, ctx);
      const token = resolve(opts.token, ctx);
      if (!baseUrl || !token) throw new Error("rateLimit(): `baseUrl` and `token` gave no value for this request");
      admission = await limiterFor(baseUrl, token).admit({ key, cost, holder });
    }
    if (!admission.pass) return problemResponse(admission.status, admission.body, admission.headers);
    for (const [k, v] of Object.entries(admission.headers)) c.header(k, v);
    try {
      await next();
    } finally {
      // Given back when the handler has made its response (also when it threw); the TTL frees it otherwise.
      await admission.release();
    }
    for (const [k, v] of Object.entries(admission.headers)) c.header(k, v);
  };
}
