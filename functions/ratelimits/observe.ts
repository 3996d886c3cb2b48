// What a rate-limit decision leaves behind besides its answer, on every path (the check route,
// /v1/authz, the rateLimit() middleware, RPC): its counts in the isolate's tally (functions/core/tally.ts: decisions
// per policy and outcome, and the calls the deny cache answered, so `attempted`/`rejected` count
// every call), its Server-Timing header, and one structured log line at a configurable level and
// sample rate. Nothing here waits on anything: the tally is written after the response.
import { type LogLevel, logSample, writeLog } from "../core/decision-log";
import type { Bindings } from "../core/env";
import { fnv64 } from "../core/lock-keys";
import { tallyFor } from "../core/tally";
import { isUnenforced, type Unenforced } from "./budget";
import type { RateLimitDecision } from "./decide";
import type { ListMatch } from "./lists/cache";

/** Which entrance the decision came through ("authz": the forward-auth route, /v1/authz). */
export type Via = "http" | "authz" | "middleware" | "rpc";

/**
 * `allowed` / `denied`: the database (or the deny cache) decided; `unenforced`: it did not decide in
 * time and the fail mode let the call through (fail open); `unavailable`: it did not decide and the
 * call was refused with 503/504 (fail closed); `would_refuse`: a limit in shadow mode refused and the
 * call was let through (counted per policy: the other policies of the check count `allowed`).
 */
export type Outcome = "allowed" | "denied" | "unenforced" | "unavailable" | "would_refuse" | "list_denied" | "list_allowed";

export const DECISIONS_METRIC = "admit_ratelimit_decisions_total";

const LEVEL_OF: Record<Outcome, LogLevel> = {
  allowed: "debug",
  denied: "info",
  unenforced: "warn",
  unavailable: "warn",
  would_refuse: "info",
  list_denied: "info",
  list_allowed: "debug",
};

export function outcomeOf(d: RateLimitDecision | Unenforced): Outcome {
  if (isUnenforced(d)) return d.allowed ? "unenforced" : "unavailable";
  if (!d.result.allowed) return "denied";
  return d.result.shadow ? "would_refuse" : "allowed";
}

/** One policy's outcome in a decision: `would_refuse` only for the policies in shadow mode that refused. */
function outcomeFor(d: RateLimitDecision | Unenforced, outcome: Outcome, policy: string): Outcome {
  if (outcome !== "would_refuse" || isUnenforced(d)) return outcome;
  return d.policies.some((p) => p.result.policy === policy && p.result.shadow) ? "would_refuse" : "allowed";
}

/**
 * Counts and logs one decision of `names` for `key`. The log line is one JSON object (Workers Logs and
 * Logpush index its fields) and never carries the key itself — a key may be an API key — only its
 * FNV-1a 64 (`key_fnv`, to tell keys apart), nor the request's `info`.
 */
export function observe(
  env: Bindings | undefined,
  via: Via,
  names: string[],
  check: { key: string; cost?: number },
  d: RateLimitDecision | Unenforced,
  dbMs: number,
): void {
  const now = Date.now();
  const outcome = outcomeOf(d);
  const tally = tallyFor(env);
  if (tally) {
    for (const policy of names) tally.count(DECISIONS_METRIC, { policy, outcome: outcomeFor(d, outcome, policy) }, now);
    if (!isUnenforced(d)) {
      // A deny-cache answer (every policy of the check) or a refusal the database answered from a read
      // (that policy): the database would have counted the call as attempted and rejected.
      for (const p of d.policies) if (d.cached || p.uncounted) tally.denied(p.result.policy, check.key, p.windowStart ?? null, now);
    }
  }
  const level = LEVEL_OF[outcome];
  const rate = logSample(env, level);
  if (rate === null) return;
  const line: Record<string, unknown> = {
    message: `rate limit ${outcome}`,
    level,
    event: "admit.ratelimit.decision",
    via,
    policies: names,
    key_fnv: fnv64(check.key),
    cost: check.cost ?? 1,
    outcome,
    db_ms: Math.round(dbMs * 10) / 10,
    sample_rate: rate,
  };
  if (isUnenforced(d)) {
    line.reason = d.reason;
    line.consumed = d.consumed;
    line.timeout_ms = d.timeout_ms;
  } else {
    line.reason = d.result.reason;
    line.cached = d.cached;
    line.remaining = d.result.remaining;
    if (d.result.retry_after_ms !== undefined) line.retry_after_ms = d.result.retry_after_ms;
    if (d.result.violated_policies) line.violated_policies = d.result.violated_policies;
    if (d.result.shadow) line.shadow_policies = d.policies.filter((p) => p.result.shadow).map((p) => p.result.policy);
  }
  writeLog(level, line);
}

/**
 * Counts and logs a check the deny/allow lists decided: `list_denied` / `list_allowed` per policy in
 * the decisions metric (flushed with the tally, never a statement per call) and no counter row — the
 * limits never saw the call. The log line names the entry's list, scope and kind, never its value
 * (a key or a prefix of one).
 */
export function observeListed(env: Bindings | undefined, via: Via, names: string[], check: { key: string; cost?: number }, m: ListMatch): void {
  const outcome: Outcome = m.list === "deny" ? "list_denied" : "list_allowed";
  const tally = tallyFor(env);
  if (tally) {
    const now = Date.now();
    for (const policy of names) tally.count(DECISIONS_METRIC, { policy, outcome }, now);
  }
  const level = LEVEL_OF[outcome];
  const rate = logSample(env, level);
  if (rate === null) return;
  writeLog(level, {
    message: `rate limit ${outcome}`,
    level,
    event: "admit.ratelimit.decision",
    via,
    policies: names,
    key_fnv: fnv64(check.key),
    cost: check.cost ?? 1,
    outcome,
    list: { list: m.list, policy: m.policy, kind: m.kind },
    sample_rate: rate,
  });
}
