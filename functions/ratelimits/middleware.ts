// The `rateLimit()` Hono middleware for any Worker that can reach Admit's database: window limits
// (one policy or several, all-or-nothing) and/or a concurrency limit (a semaphore of Admit's, called
// through this capability's own sql.ts), with the RateLimit headers and the fail mode.
import type { Context, MiddlewareHandler } from "hono";
import { RequestDb } from "../core/db";
import type { Bindings } from "../core/env";
import { ProblemError, problem, problemOfRpc, problemResponse, type RpcProblem } from "../core/errors";
import { executionCtxOf } from "../core/http";
import { flushSoon } from "../core/tally";
import { admissionBudget, admitRequest, type GateAnswer, type GateInput, validGateInput } from "./admission";
import { type Budget, lockTimeoutWithin } from "./budget";
import { denyCacheFor } from "./cache";
import { policyNames } from "./check";
import { NOT_ENFORCED_HEADER } from "./headers";
import { COUNTRY_HEADER } from "./lists/answer";
import { parseAddress } from "./lists/ip";
import { PolicyName } from "./schemas";
import type { FailMode } from "./sql";
import * as sql from "./sql";

/** A concurrency limit: at most `permits` requests in flight at once (a semaphore of Admit's). */
export interface ConcurrencyOptions {
  /** The semaphore's name (/v1/semaphores/{name}); created with `permits` on first use if missing. */
  name: string;
  /** How many requests at once (1–10000). Used to create a missing semaphore and in the headers; an existing semaphore keeps its own size. */
  permits: number;
  /** How long a permit is held at most if this Worker dies before releasing it (1000–3600000 ms; default 60000). */
  ttl_ms?: number;
}

export interface RateLimitOptions<C extends Context = Context> {
  /** The policy's name (created with PUT /v1/ratelimits/policies/:name). */
  policy?: string;
  /** Several policies at once (1–8), all-or-nothing: admitted only if every one admits. */
  policies?: string[];
  /** Who is limited: an API key, a user id, an IP… (required with `policy`/`policies`). */
  key?: (c: C) => string | Promise<string>;
  /** Units per request (default 1). */
  cost?: number | ((c: C) => number | Promise<number>);
  /** A small JSON object for the request log (policies with `log: true`). */
  info?: (c: C) => Record<string, unknown> | undefined;
  /**
   * The client's address and country for the deny/allow lists. Default: the `CF-Connecting-IP`
   * header (Cloudflare sets it on every request a Worker receives) and `request.cf.country`, else the
   * `CF-IPCountry` header. A value that is not an address or a two-letter code is left out.
   */
  ip?: (c: C) => string | undefined;
  country?: (c: C) => string | undefined;
  /**
   * The check's latency budget and fail mode, overriding what this isolate learnt of the policies
   * from earlier answers (default: the policies' own `timeout_ms` / `on_unavailable` once seen, and
   * 5 000 ms / "deny" before the first answer).
   */
  timeout_ms?: number;
  on_unavailable?: FailMode;
  /** A concurrency limit, taken after the window limits admit the request and given back after the response. */
  concurrency?: ConcurrencyOptions;
  /**
   * Admit over a Service Binding (`c.env.ADMIT`, its `Admit` entrypoint: docs/rpc.md): the check runs
   * in Admit's Worker, so this Worker needs no database binding of its own.
   */
  binding?: RateLimitBinding | ((c: C) => RateLimitBinding);
}

/** What the middleware calls on Admit's RPC entrypoint (functions/http/rpc/): one method. */
export interface RateLimitBinding {
  rateLimitGate(input: GateInput): Promise<GateAnswer | { error: RpcProblem }>;
  releasePermit(input: { name: string; permit_id: string }): Promise<object | { error: RpcProblem }>;
}

/**
 * How long to wait for the binding before the fail mode answers: Admit bounds its own work (the
 * policies' timeout_ms, DB_BUDGET_MS ≤ 60 s) and answers the fail mode itself, so this is only a
 * backstop for an Admit that does not answer at all: `timeout_ms` + 1 s when given, else 61 s.
 */
const BINDING_SLACK_MS = 1_000;
const BINDING_BACKSTOP_MS = 61_000;

/** What the middleware asks for this request (admission.ts): the options' limits, this request's key, cost and info. */
async function gateInput<C extends Context>(c: Context, ctx: C, opts: RateLimitOptions<C>, names: string[]): Promise<GateInput> {
  const input: GateInput = { timeout_ms: opts.timeout_ms, on_unavailable: opts.on_unavailable };
  if (names.length) {
    input.key = await opts.key!(ctx);
    input.cost = typeof opts.cost === "function" ? await opts.cost(ctx) : opts.cost;
    input.info = opts.info?.(ctx);
    const ip = opts.ip ? opts.ip(ctx) : c.req.header("CF-Connecting-IP");
    if (ip !== undefined && parseAddress(ip) !== null) input.ip = ip.trim();
    const cf = (c.req.raw as Request & { cf?: { country?: unknown } }).cf;
    const country = opts.country ? opts.country(ctx) : typeof cf?.country === "string" ? cf.country : c.req.header(COUNTRY_HEADER);
    if (country !== undefined && /^[A-Za-z]{2}$/.test(country)) input.country = country.toUpperCase();
    if (opts.policies !== undefined) input.policies = names;
    else input.policy = names[0];
  }
  if (opts.concurrency) {
    input.concurrency = opts.concurrency;
    // A valid Holder whatever the path: cut at 200 code units (a pair cut in half becomes U+FFFD), no NUL.
    input.holder = `${c.req.method} ${c.req.path}`.slice(0, 200).toWellFormed().replaceAll("\u0000", "\ufffd");
  }
  return input;
}

async function overBinding<C extends Context>(c: Context, ctx: C, opts: RateLimitOptions<C>, names: string[], next: () => Promise<void>) {
  const binding = typeof opts.binding === "function" ? opts.binding(ctx) : opts.binding!;
  const input = await gateInput(c, ctx, opts, names);
  let answer: GateAnswer | { error: RpcProblem };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const waitMs = opts.timeout_ms === undefined ? BINDING_BACKSTOP_MS : opts.timeout_ms + BINDING_SLACK_MS;
  try {
    answer = await Promise.race([
      binding.rateLimitGate(input),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer from Admit within ${waitMs} ms`)), waitMs);
      }),
    ]);
  } catch (err) {
    // Admit itself did not answer (not deployed, over its limits, too slow): the fail mode decides,
    // as when the database does not. The call was sent, so a unit (or a permit) may have been taken.
    console.error("rateLimit(): the Admit binding failed", err);
    if ((opts.on_unavailable ?? "deny") === "allow") {
      c.header(NOT_ENFORCED_HEADER, "false; reason=unavailable");
      return next();
    }
    const p = problem(
      "outcome-unknown",
      `Admit did not answer the rate-limit check (${String((err as Error)?.message ?? err)}); a unit may or may not have been consumed.`,
      {},
      { "Retry-After": "1" },
    );
    return problemResponse(c, p.problem, p.headers);
  } finally {
    clearTimeout(timer);
  }
  if ("error" in answer) {
    // Admit's own problem (422 for a bad key, 503/504 with its Retry-After), answered as HTTP.
    const { problem: p, headers } = problemOfRpc(answer.error);
    return problemResponse(c, p, headers);
  }
  if (!answer.pass) return problemResponse(c, answer.problem, answer.headers);
  const permit = answer.permit;
  setHeaders(c, answer.headers);
  try {
    await next();
  } finally {
    if (permit) {
      // Given back before the response leaves (also when the handler threw). If this fails, the TTL frees the permit.
      try {
        const r = await binding.releasePermit({ name: permit.name, permit_id: permit.permit_id });
        if ("error" in r) console.error(`rateLimit(): releasing a permit of ${permit.name} failed; its TTL frees it`, r.error);
      } catch (err) {
        console.error(`rateLimit(): releasing a permit of ${permit.name} failed; its TTL frees it`, err);
      }
    }
  }
  setHeaders(c, answer.headers);
}

function setHeaders(c: Context, headers: Record<string, string>): void {
  for (const [k, v] of Object.entries(headers)) c.header(k, v);
}

/**
 * Hono middleware for any Worker that can reach Admit's database: window limits (`policy` or
 * `policies`, one all-or-nothing statement) and/or a concurrency limit (`concurrency`). Sets the
 * RateLimit headers, answers 429 problem+json when denied (`/problems/rate-limited` for one policy,
 * `/problems/quota-exceeded` with `violated-policies` for several, `/problems/concurrency-limited`
 * when every permit is taken), and calls `next()` otherwise. Uses `c.var.db` when the app already
 * has Admit's `database()` middleware, else opens its own per-request connection from `c.env` and
 * closes it after the response. A database that does not decide within the budget answers per the
 * fail mode: 503 + Retry-After (deny) or through to the handler with `Admit-RateLimit-Enforced: false` (allow).
 *
 * @example
 * import { rateLimit } from "./functions/ratelimits";
 * // One policy, per API key:
 * app.use("/api/*", rateLimit({ policy: "api", key: (c) => c.req.header("X-Api-Key") ?? "anonymous" }));
 * // Two policies in one all-or-nothing check, failing open after 300 ms, and at most 3 requests in flight:
 * app.use("/api/*", rateLimit({
 *   policies: ["burst", "daily"], key: (c) => c.req.header("X-Api-Key") ?? "anonymous",
 *   timeout_ms: 300, on_unavailable: "allow",
 *   concurrency: { name: "api-inflight", permits: 3, ttl_ms: 60_000 },
 * }));
 */
export function rateLimit<C extends Context = Context>(opts: RateLimitOptions<C>): MiddlewareHandler {
  const names = policyNames(opts);
  if (names.length > 8) throw new Error("rateLimit(): at most 8 policies");
  if (names.length && !opts.key) throw new Error("rateLimit(): `key` is required with `policy`/`policies`");
  if (!names.length && !opts.concurrency) throw new Error("rateLimit(): give `policy`, `policies` or `concurrency`");
  for (const n of [...names, ...(opts.concurrency ? [opts.concurrency.name] : [])]) {
    const bad = PolicyName.safeParse(n);
    if (!bad.success) throw new Error(`rateLimit(): ${JSON.stringify(n)} ${bad.error.issues[0].message}`);
  }
  return async (c, next) => {
    const ctx = c as unknown as C;
    if (opts.binding) return overBinding(c, ctx, opts, names, next);
    const shared = (c.var as { db?: RequestDb }).db;
    const db = shared ?? new RequestDb((c.env ?? {}) as Bindings);
    const closeOwn = () => {
      // What the decision counted goes out within METRICS_FLUSH_MS, after the response (functions/core/tally.ts).
      flushSoon(c.env as Bindings | undefined, executionCtxOf(c));
      if (shared) return;
      const closing = db.close();
      try {
        c.executionCtx.waitUntil(closing);
      } catch {
        /* no execution context: let it run */
      }
    };
    let headers: Record<string, string> = {};
    let permit: { permit_id: string } | undefined;
    let budget: Budget = { timeoutMs: 1, onUnavailable: "deny" };
    try {
      const input = validGateInput(await gateInput(c, ctx, opts, names));
      budget = admissionBudget(db, input);
      const env = c.env as Bindings | undefined;
      const answer = await admitRequest(db, input, { cache: denyCacheFor(env), env, via: "middleware", budget });
      if (!answer.pass) return problemResponse(c, answer.problem, answer.headers);
      headers = answer.headers;
      permit = answer.permit;
    } catch (err) {
      if (err instanceof ProblemError) return problemResponse(c, err.problem, err.headers);
      throw err;
    } finally {
      if (!permit) closeOwn();
    }
    try {
      setHeaders(c, headers);
      await next();
    } finally {
      if (permit) {
        // Given back before the response leaves (also when the handler threw), on a handle of its own:
        // the request's budget may be spent by a slow handler. If this fails, the TTL frees the permit.
        closeOwn();
        const releaser = new RequestDb((c.env ?? {}) as Bindings);
        try {
          await sql.releasePermit(releaser, opts.concurrency!.name, permit.permit_id, {
            lockTimeoutMs: lockTimeoutWithin(releaser, budget),
            withinMs: budget.timeoutMs,
          });
        } catch (err) {
          console.error(`rateLimit(): releasing a permit of ${opts.concurrency!.name} failed; its TTL frees it`, err);
        } finally {
          const closing = releaser.close();
          try {
            c.executionCtx.waitUntil(closing);
          } catch {
            /* no execution context: let it run */
          }
        }
      }
    }
    setHeaders(c, headers);
  };
}
