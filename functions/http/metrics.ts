// GET /metrics (Prometheus text exposition format 0.0.4) and the counting of every capability's
// decisions as they leave the Worker (HTTP: decisions(); RPC: countRpc()). Counts go to the isolate's
// tally (functions/core/tally.ts) and reach the database after the response, in one statement per
// flush; a scrape sums them (per-minute rows plus each series' rolled-up total,
// schema/current/observability.sql) and adds the gauges the database computes at that moment.
// docs/observability.md says what each metric means.

import { createRoute, z } from "@hono/zod-openapi";
import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "../core/context";
import type { RequestDb } from "../core/db";
import type { Bindings } from "../core/env";
import { executionCtxOf, REPLAYED_HEADER } from "../core/http";
import { problemResponses } from "../core/openapi";
import { nameAllowed, scoped } from "../core/scopes";
import { flushSoon, tallyFor } from "../core/tally";

export const DECISIONS = "admit_decisions_total";
export const DELIVERIES = "admit_webhook_deliveries_total";
export const AUTH_FAILURES = "admit_auth_failures_total";

/** Decision routes of the capabilities other than rate limits (which count their own, per policy): method + path → capability and action. */
const ROUTES: Array<[method: string, path: RegExp, capability: string, action: string]> = [
  ["POST", /^\/v1\/reservations$/, "reservations", "reserve"],
  ["DELETE", /^\/v1\/reservations\/[^/]+$/, "reservations", "cancel"],
  ["POST", /^\/v1\/locks\/[^/]+\/(acquire|renew|release)$/, "leases", "$1"],
  ["POST", /^\/v1\/invoices\/generate$/, "leases", "generate"],
  ["POST", /^\/v1\/semaphores\/[^/]+\/(acquire|renew|release)$/, "semaphores", "$1"],
  ["POST", /^\/v1\/inventory\/[^/]+\/bookings$/, "inventory", "book"],
  ["POST", /^\/v1\/inventory\/[^/]+\/bookings\/[^/]+\/confirm$/, "inventory", "confirm"],
  ["DELETE", /^\/v1\/inventory\/[^/]+\/bookings\/[^/]+$/, "inventory", "cancel"],
  ["PUT", /^\/v1\/inventory\/[^/]+\/stock$/, "inventory", "stock"],
];

/** RPC methods of the same decisions. */
const RPC_METHODS: Record<string, [capability: string, action: string]> = {
  reserve: ["reservations", "reserve"],
  cancelReservation: ["reservations", "cancel"],
  acquireLease: ["leases", "acquire"],
  renewLease: ["leases", "renew"],
  releaseLease: ["leases", "release"],
  acquirePermit: ["semaphores", "acquire"],
  renewPermit: ["semaphores", "renew"],
  releasePermit: ["semaphores", "release"],
  book: ["inventory", "book"],
  confirmBooking: ["inventory", "confirm"],
  cancelBooking: ["inventory", "cancel"],
};

/** ok (2xx), conflict (409, 429: a lost race or a limit), unavailable (503, 504), invalid (another 4xx), error (5xx bug). */
export function outcomeOfStatus(status: number): string {
  if (status < 300) return "ok";
  if (status === 409 || status === 429) return "conflict";
  if (status === 503 || status === 504) return "unavailable";
  if (status < 500) return "invalid";
  return "error";
}

function classify(method: string, path: string): [string, string] | null {
  if (method === "GET" || path.startsWith("/v1/ratelimits/")) return null; // reads decide nothing; rate limits count their own
  for (const [m, re, capability, action] of ROUTES) {
    if (m !== method) continue;
    const match = re.exec(path);
    if (match) return [capability, action.startsWith("$") ? match[1] : action];
  }
  return null;
}

/**
 * Counts each decision the HTTP API answers (reservations, leases, semaphores, inventory: by
 * capability, action and outcome; webhook deliveries: received, duplicate or refused — no source
 * label, the delivery route is open to anyone), then makes sure a flush is on its way after the
 * response. Nothing is awaited on the request's path.
 */
export function decisions(isDelivery: (c: Context<AppEnv>) => boolean): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    try {
      await next();
    } finally {
      const tally = tallyFor(c.env);
      if (tally) {
        const now = Date.now();
        const status = c.res.status;
        if (isDelivery(c)) {
          const outcome =
            status === 200 ? (c.res.headers.get(REPLAYED_HEADER) === "true" ? "duplicate" : "received") : status >= 500 ? "unavailable" : "refused";
          tally.count(DELIVERIES, { outcome }, now);
        } else if (c.res.headers.get(REPLAYED_HEADER) !== "true") {
          // (A replayed Idempotency-Key answer decided nothing new: not counted again.)
          const kind = classify(c.req.method, c.req.path);
          if (kind) tally.count(DECISIONS, { capability: kind[0], action: kind[1], outcome: outcomeOfStatus(status) }, now);
        }
        flushSoon(c.env, executionCtxOf(c));
      }
    }
  };
}

/**
 * Counts each request whose credential the bearer guard refused (functions/core/auth.ts notes why),
 * by surface — `authz` (a gateway's forward-auth check: a wrong, revoked or under-scoped gateway
 * key), `metrics`, `api` (any other /v1 route) — and reason. A gateway answers its clients with its
 * own error then; this is where its operator sees which key problem it was.
 */
export function authFailures(isForwardAuth: (path: string) => boolean): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await next();
    const reason = c.get("authFailure");
    if (reason === undefined) return;
    const tally = tallyFor(c.env);
    if (!tally) return;
    const surface = isForwardAuth(c.req.path) ? "authz" : c.req.path === "/metrics" ? "metrics" : "api";
    tally.count(AUTH_FAILURES, { surface, reason }, Date.now());
    flushSoon(c.env, executionCtxOf(c));
  };
}

/** Counts one RPC call's decision (the same series as over HTTP) and makes sure a flush is on its way. */
export function countRpc(env: Bindings | undefined, ctx: { waitUntil(p: Promise<unknown>): void } | undefined, method: string, answer: unknown): void {
  const tally = tallyFor(env);
  if (!tally) return;
  const kind = RPC_METHODS[method];
  if (kind) {
    const a = answer as { error?: { status?: number }; acquired?: unknown; allowed?: unknown } | undefined;
    const outcome = a?.error ? outcomeOfStatus(a.error.status ?? 500) : a?.acquired === false ? "conflict" : "ok";
    tally.count(DECISIONS, { capability: kind[0], action: kind[1], outcome }, Date.now());
  }
  flushSoon(env, ctx);
}

interface Family {
  help: string;
  type: "counter" | "gauge";
}

/** Every family /metrics exposes, with its HELP (each is listed even before its first sample). */
export const FAMILIES: Record<string, Family> = {
  admit_ratelimit_decisions_total: {
    type: "counter",
    help: 'Rate-limit decisions by policy and outcome (allowed, denied, unenforced = fail open, unavailable = fail closed); deny-cache answers included. Policies past METRICS_MAX_POLICIES are policy="_other".',
  },
  [DECISIONS]: {
    type: "counter",
    help: "Decisions of reservations, leases, semaphores and inventory by capability, action and outcome (ok, conflict = 409/429, unavailable = 503/504, invalid, error).",
  },
  [DELIVERIES]: {
    type: "counter",
    help: "Webhook deliveries received (stored), duplicate (already stored: answered again), refused (4xx) or unavailable (5xx).",
  },
  [AUTH_FAILURES]: {
    type: "counter",
    help: "Requests whose bearer credential was refused, by surface (authz = the gateways' /v1/authz, metrics, api) and reason (missing, invalid = unknown/revoked/expired/wrong, not_configured, scope, name: 401/403/503).",
  },
  admit_sweep_rows_total: { type: "counter", help: "Rows the cron's sweepers deleted or marked, by sweeper." },
  admit_permits_in_use: { type: "gauge", help: "Unexpired, unreleased permits now, by kind (semaphore, lease)." },
  admit_semaphore_permits: { type: "gauge", help: "Permits of every semaphore together (their configured sizes)." },
  admit_webhook_events_waiting: { type: "gauge", help: "Stored webhook events not acknowledged and not under a live claim, by source." },
  admit_webhook_events_claimed: { type: "gauge", help: "Webhook events under a live claim, by source." },
  admit_webhook_claims_lapsed: { type: "gauge", help: "Webhook events whose last claim lapsed without an ack (waiting to be claimed again), by source." },
  admit_webhook_oldest_waiting_seconds: { type: "gauge", help: "Age of the oldest unacknowledged webhook event, by source (0 when none)." },
  admit_webhook_forward_attempts_total: {
    type: "counter",
    help: "Webhook forwarding attempts by source and outcome (delivered, failed = a non-2xx answer, timeout, error = no answer, gone = 410).",
  },
  admit_webhook_forward_pending: { type: "gauge", help: "Forwarded webhook events not yet delivered (an attempt due, waiting or in flight), by source." },
  admit_webhook_forward_in_flight: { type: "gauge", help: "Forwarded webhook events with an attempt in flight now, by source." },
  admit_webhook_forward_failed: { type: "gauge", help: "Forwarded webhook events whose retry schedule is spent (dead letters, until redelivered), by source." },
  admit_webhook_forward_stopped: {
    type: "gauge",
    help: "1 when the source's forwarding is stopped by a 410 from its target (until the source is PUT again), by source.",
  },
  admit_webhook_forward_oldest_pending_seconds: {
    type: "gauge",
    help: "Age of the oldest forwarded webhook event not yet delivered, by source (0 when none).",
  },
  admit_sweep_due_rows: { type: "gauge", help: "Rows past their expiry that the sweeper has not removed yet, by sweeper (counted up to 100000 per table)." },
};

function labelText(labels: Record<string, unknown>): string {
  const parts = Object.keys(labels)
    .sort()
    .map((k) => `${k}="${String(labels[k]).replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`);
  return parts.length ? `{${parts.join(",")}}` : "";
}

interface Gauges {
  permits_in_use: Record<string, number>;
  semaphore_permits: number;
  webhooks: Array<{ source: string; waiting: number; claimed: number; lapsed: number; oldest_waiting_s: number }>;
  sweep_due: Record<string, number>;
}

type ForwardGauges = Array<{ source: string; pending: number; in_flight: number; failed: number; stopped: boolean; oldest_pending_s: number }>;

/** Labels whose value is the name of a thing a key's name patterns bound (a policy, a webhook source). */
const NAME_LABELS = ["policy", "source"];

/**
 * The exposition: every counter series (summed in the database) and the gauges, family by family.
 * `visible` says which names the caller may read: a series labelled with another is left out, so a
 * key bounded by names learns no other name here either (`_other`, the policies past
 * METRICS_MAX_POLICIES together, names none).
 */
export async function renderMetrics(db: RequestDb, visible: (name: string) => boolean = () => true): Promise<string> {
  const counters = await db.query<{ name: string; labels: Record<string, string>; value: string }>(
    "SELECT name, labels, value::text AS value FROM admit_metric_counters()",
  );
  const [{ g }] = await db.query<{ g: Gauges }>("SELECT admit_metric_gauges() AS g");
  const [{ f }] = await db.query<{ f: ForwardGauges }>("SELECT admit_webhook_forward_gauges() AS f");
  const samples = new Map<string, string[]>(Object.keys(FAMILIES).map((f) => [f, []]));
  const add = (name: string, labels: Record<string, unknown>, value: number | string) => {
    if (!samples.has(name)) return; // a series of a family this Worker no longer exposes
    if (NAME_LABELS.some((l) => typeof labels[l] === "string" && labels[l] !== "_other" && !visible(labels[l] as string))) return;
    samples.get(name)!.push(`${name}${labelText(labels)} ${value}`);
  };
  for (const c of counters) add(c.name, c.labels, c.value);
  for (const kind of ["semaphore", "lease"]) add("admit_permits_in_use", { kind }, g.permits_in_use[kind] ?? 0);
  add("admit_semaphore_permits", {}, g.semaphore_permits);
  for (const w of g.webhooks) {
    add("admit_webhook_events_waiting", { source: w.source }, w.waiting);
    add("admit_webhook_events_claimed", { source: w.source }, w.claimed);
    add("admit_webhook_claims_lapsed", { source: w.source }, w.lapsed);
    add("admit_webhook_oldest_waiting_seconds", { source: w.source }, Math.round(w.oldest_waiting_s * 1000) / 1000);
  }
  for (const w of f) {
    add("admit_webhook_forward_pending", { source: w.source }, w.pending);
    add("admit_webhook_forward_in_flight", { source: w.source }, w.in_flight);
    add("admit_webhook_forward_failed", { source: w.source }, w.failed);
    add("admit_webhook_forward_stopped", { source: w.source }, w.stopped ? 1 : 0);
    add("admit_webhook_forward_oldest_pending_seconds", { source: w.source }, Math.round(w.oldest_pending_s * 1000) / 1000);
  }
  for (const [sweeper, n] of Object.entries(g.sweep_due)) add("admit_sweep_due_rows", { sweeper }, n);
  let out = "";
  for (const [name, f] of Object.entries(FAMILIES)) {
    out += `# HELP ${name} ${f.help.replace(/\\/g, "\\\\").replace(/\n/g, "\\n")}\n# TYPE ${name} ${f.type}\n`;
    for (const line of samples.get(name)!) out += `${line}\n`;
  }
  return out;
}

export const getMetrics = scoped(
  { area: "metrics", access: "read" },
  createRoute({
    method: "get",
    path: "/metrics",
    operationId: "getMetrics",
    tags: ["Service"],
    summary: "Prometheus metrics",
    description:
      'Counters and gauges in the Prometheus text exposition format (0.0.4), for a Prometheus that scrapes with `authorization: {credentials: <token>}`. Counters are sums of per-minute rows written by the isolates after their responses (at most `METRICS_FLUSH_MS` late, 2 s by default) and never go down. No label carries a rate-limit key; policies past `METRICS_MAX_POLICIES` (100) share `policy="_other"`. See docs/observability.md.',
    responses: {
      200: {
        description: "The exposition",
        content: {
          // Sent as `text/plain; version=0.0.4; charset=utf-8`, the exposition format's own content type.
          "text/plain": {
            schema: z.string(),
            example: [
              "# HELP admit_ratelimit_decisions_total Rate-limit decisions by policy and outcome …",
              "# TYPE admit_ratelimit_decisions_total counter",
              'admit_ratelimit_decisions_total{outcome="allowed",policy="api"} 50',
              'admit_ratelimit_decisions_total{outcome="denied",policy="api"} 450',
              "",
            ].join("\n"),
          },
        },
      },
      ...problemResponses(401, 503),
    },
  }),
);

export const metricsHandler = async (c: Context<AppEnv>) => {
  const caller = c.var.caller;
  const patterns = caller?.kind === "key" ? caller.names : null;
  const text = await renderMetrics(c.var.db, (name) => nameAllowed(patterns, name));
  return c.text(text, 200, { "Content-Type": "text/plain; version=0.0.4; charset=utf-8" });
};
