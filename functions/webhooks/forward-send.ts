// One forwarding attempt, sent: the event's stored body signed with Standard Webhooks headers under
// the source's forward secret(s), POSTed to its URL or over its Service Binding, bounded by
// timeout_ms, and what came back classified. No database here: forward.ts claims before and
// records after.
import type { Bindings } from "../core/env";
import { fromBase64, utf8 } from "./schemes";

/** A source's forward settings as stored (never the secret). */
export interface ForwardSettings {
  url?: string;
  binding?: string;
  path?: string;
  timeout_ms: number;
  retry_schedule_ms: number[];
  ordered: boolean;
}

/** A claimed attempt, as admit_webhook_forward_claim returns it. */
export interface ClaimedAttempt {
  id: string;
  source: string;
  webhook_id: string;
  event_type: string | null;
  /** The body exactly as the sender's delivery carried it. */
  payload: string;
  ordering_value: string | null;
  attempt: number;
  lease: string;
  forward: ForwardSettings;
  /** The current forward secret, then the previous one during an overlap: each signs. */
  secrets: string[];
  /** The database clock, Unix seconds: the webhook-timestamp. */
  now_s: number;
}

export type Outcome = "delivered" | "failed" | "timeout" | "error" | "gone";

export interface AttemptResult {
  outcome: Outcome;
  status: number | null;
  latencyMs: number;
  /** The first bytes of the answer (at most RESPONSE_CHARS characters). */
  response: string | null;
  error: string | null;
  /** The target's Retry-After, in ms, when it sent one. */
  retryAfterMs: number | null;
}

/** How much of the target's answer is kept with the attempt. */
export const RESPONSE_CHARS = 1024;

/** The longest Retry-After honoured: 7 days (the record caps any wait there as well). */
const MAX_RETRY_AFTER_MS = 7 * 86_400_000;

/** Standard Webhooks' `webhook-signature`: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` per secret, space-separated. */
export async function signature(secrets: string[], id: string, timestampS: number, body: string): Promise<string> {
  const signed = utf8(`${id}.${timestampS}.${body}`);
  const parts = await Promise.all(
    secrets.map(async (secret) => {
      const key = await crypto.subtle.importKey(
        "raw",
        fromBase64(secret.slice("whsec_".length)) ?? new Uint8Array(),
        { name: "HMAC", hash: "SHA-256" },
        false,
        ["sign"],
      );
      const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, signed));
      return `v1,${btoa(String.fromCharCode(...mac))}`;
    }),
  );
  return parts.join(" ");
}

/** Retry-After as delay-seconds or an HTTP date (RFC 9110 10.2.3), in ms from `nowMs`; null when absent or unreadable. */
export function retryAfterMs(value: string | null, nowMs: number): number | null {
  if (value === null) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Math.min(Number(v) * 1000, MAX_RETRY_AFTER_MS);
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.min(Math.max(0, at - nowMs), MAX_RETRY_AFTER_MS);
}

/** The Worker a binding names, when the env has one that can fetch. */
function boundWorker(env: Bindings, name: string): { fetch(r: Request): Promise<Response> } | undefined {
  const b = (env as Record<string, unknown>)[name] as { fetch?: unknown } | undefined;
  return b && typeof b.fetch === "function" ? (b as { fetch(r: Request): Promise<Response> }) : undefined;
}

/** The first RESPONSE_CHARS characters of the answer's body, reading no more of it than that needs. */
async function head(res: Response, signal: AbortSignal): Promise<string> {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  try {
    while (text.length < RESPONSE_CHARS && !signal.aborted) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    void reader.cancel().catch(() => undefined);
  }
  return text.slice(0, RESPONSE_CHARS);
}

/** Sends one attempt and says how it went; never throws, and never takes longer than timeout_ms (plus reading the answer's first bytes within it). */
export async function sendAttempt(env: Bindings, a: ClaimedAttempt): Promise<AttemptResult> {
  const f = a.forward;
  const headers = new Headers({
    "content-type": "application/json",
    "user-agent": "Admit-Webhooks/1",
    "webhook-id": a.id,
    "webhook-timestamp": String(a.now_s),
    "webhook-signature": await signature(a.secrets, a.id, a.now_s, a.payload),
    "webhook-attempt": String(a.attempt),
  });
  if (a.event_type) headers.set("webhook-event-type", a.event_type);
  const started = Date.now();
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), f.timeout_ms);
  const result = (r: Omit<AttemptResult, "latencyMs">): AttemptResult => ({ ...r, latencyMs: Date.now() - started });
  try {
    let res: Response;
    const init = { method: "POST", headers, body: a.payload, signal: ctl.signal };
    if (f.binding !== undefined) {
      const worker = boundWorker(env, f.binding);
      if (!worker)
        return result({ outcome: "error", status: null, response: null, error: `No Service Binding named ${f.binding} in this Worker.`, retryAfterMs: null });
      res = await worker.fetch(new Request(`https://${f.binding.toLowerCase()}.binding${f.path ?? "/"}`, init));
    } else {
      res = await fetch(f.url as string, { ...init, redirect: "manual" });
    }
    const body = await head(res, ctl.signal).catch(() => "");
    const wait = retryAfterMs(res.headers.get("retry-after"), Date.now());
    const outcome: Outcome = res.status >= 200 && res.status < 300 ? "delivered" : res.status === 410 ? "gone" : "failed";
    return result({ outcome, status: res.status, response: body, error: null, retryAfterMs: outcome === "failed" ? wait : null });
  } catch (err) {
    if (ctl.signal.aborted)
      return result({ outcome: "timeout", status: null, response: null, error: `No answer within timeout_ms (${f.timeout_ms} ms).`, retryAfterMs: null });
    return result({
      outcome: "error",
      status: null,
      response: null,
      error: String((err as Error)?.message ?? err).slice(0, RESPONSE_CHARS),
      retryAfterMs: null,
    });
  } finally {
    clearTimeout(timer);
  }
}
