// The response headers of a rate-limit answer: IETF RateLimit-Policy / RateLimit (one list item per
// policy, plus a concurrency limit's), Retry-After, Admit-Cache, the not-enforced header and the
// shadow-mode header.
import { NOT_ENFORCED_HEADER } from "../core/http";
import type { RateLimitDecision } from "./decide";

export { NOT_ENFORCED_HEADER };

/** On an answer a limit in shadow mode would have refused (it was let through): `would-refuse`. */
export const SHADOW_HEADER = "Admit-RateLimit-Shadow";

/**
 * The Server-Timing header of a decision (every answer of a check, over HTTP, the middleware and RPC):
 * `db` = time waiting for the database in ms (0.0 when the deny cache answered), `cache` = `hit`
 * (the deny cache answered), `miss` (the database decided) or `none` (the database did not decide).
 */
export function serverTiming(dbMs: number, cache: "hit" | "miss" | "none"): string {
  return `db;dur=${dbMs.toFixed(1)}, cache;desc=${cache}`;
}

/** An sf-string (RFC 9651): policy names are [A-Za-z0-9._:-], but escape `"` and `\` in anything else. */
function sfString(s: string): string {
  return `"${s.replace(/[\\"]/g, (ch) => "\\" + ch)}"`;
}

/**
 * IETF draft-ietf-httpapi-ratelimit-headers-11 (Structured Field lists, one item per policy, in the
 * order asked): `RateLimit-Policy: "burst";q=100;w=60, "daily";q=10000;w=86400` (quota units;
 * window in seconds, rounded up) and `RateLimit: "burst";r=40;t=30, "daily";r=9000;t=5000`
 * (remaining units; seconds until the quota resets, rounded up — a token bucket: until full), plus
 * `Retry-After` (seconds, rounded up) when denied and a retry can help. A policy a cached answer did
 * not look at (`not-checked`) is left out of both lists.
 */
export function rateLimitHeaders(d: RateLimitDecision): Record<string, string> {
  const { result } = d;
  const known = d.policies.filter((p) => p.result.limit !== undefined && p.result.remaining !== undefined && p.window_ms !== null);
  const h: Record<string, string> = {
    "RateLimit-Policy": known.map((p) => `${sfString(p.result.policy)};q=${p.result.limit};w=${Math.max(1, Math.ceil(p.window_ms! / 1000))}`).join(", "),
    RateLimit: known.map((p) => `${sfString(p.result.policy)};r=${p.result.remaining};t=${Math.ceil(p.result.reset_ms! / 1000)}`).join(", "),
    "Admit-Cache": d.cached ? "hit" : "miss",
    "Server-Timing": serverTiming(d.db_ms, d.cached ? "hit" : "miss"),
  };
  if (!result.allowed && result.retry_after_ms !== undefined) h["Retry-After"] = String(Math.max(1, Math.ceil(result.retry_after_ms / 1000)));
  if (result.shadow) h[SHADOW_HEADER] = "would-refuse";
  return h;
}

/** Adds a concurrency limit's item (the semaphore `name`) to RateLimit-Policy (and to RateLimit when its remaining count is known). */
export function withConcurrency(headers: Record<string, string>, conc: { name: string }, permits: number, remaining?: number): Record<string, string> {
  const h = { ...headers };
  const item = `${sfString(conc.name)};q=${permits};qu="concurrent-requests"`;
  h["RateLimit-Policy"] = h["RateLimit-Policy"] ? `${h["RateLimit-Policy"]}, ${item}` : item;
  if (remaining !== undefined) {
    const r = `${sfString(conc.name)};r=${remaining}`;
    h.RateLimit = h.RateLimit ? `${h.RateLimit}, ${r}` : r;
  }
  return h;
}
