// What the Worker is given: wrangler vars and secrets.

export interface Bindings {
  /** postgres://… of Neon (or the embedded Postgres locally). */
  DATABASE_URL?: string;
  /** The root credential: every scope on every /v1 route (a wrangler secret in production). Unset: scoped keys only (docs/api-keys.md). */
  API_TOKEN?: string;
  /** How many days audit rows are kept (1–36500). Default 90. */
  AUDIT_RETENTION_DAYS?: string;
  /** Local only: the WebSocket→TCP bridge in front of Postgres, e.g. "127.0.0.1:8788/v1". Unset on Neon. */
  NEON_WS_PROXY?: string;
  /**
   * "websocket": every statement over a WebSocket `Client` session. Default: one-statement work over
   * HTTP (`neon()`), explicit transactions over the session (functions/core/db.ts).
   */
  DB_TRANSPORT?: string;
  /** A request's whole database time budget in ms (connect + statements). Default 5000. */
  DB_BUDGET_MS?: string;
  /** How long one statement may wait for a lock, in ms. Default 2000. */
  LOCK_TIMEOUT_MS?: string;
  /** How long an Idempotency-Key record (and its stored response) is kept, in seconds. Default 86400 (24 h). */
  IDEMPOTENCY_TTL_S?: string;
  /** "off" disables the in-isolate cache of denied rate-limit keys (every check then reaches Postgres). Default on. */
  RATELIMIT_DENY_CACHE?: string;
  /**
   * The admit-pages Worker (functions/http/pages/wrangler.toml: /docs, /dashboard and their files, static
   * assets), a Service Binding. Unbound (tests in Node, a deploy without it): those paths answer 404.
   */
  PAGES?: { fetch(request: Request): Promise<Response> };
  /**
   * Default on: rate-limit checks, reservations and acquires that arrive while earlier ones are on
   * their way to the database go together, in one statement (functions/core/coalesce/). "off":
   * each its own statement (the bench's twin).
   */
  COALESCE?: string;
  /** "off": no counting of decisions or deny-cache answers, no flushes (the bench's switch). Default on. */
  METRICS?: string;
  /** The longest a count waits in the isolate before its flush is sent, in ms. Default 2000. */
  METRICS_FLUSH_MS?: string;
  /** How many policies get a `policy` label of their own in /metrics (the rest: "_other"). Default 100. */
  METRICS_MAX_POLICIES?: string;
  /** The lowest level of decision log lines written: "debug" (every decision), "info" (denials too), "warn" (fail-open and unavailable only), "off". Default "warn". */
  DECISION_LOG_LEVEL?: string;
  /** The fraction of decision log lines at or above the level that are written, 0–1. Default 1. */
  DECISION_LOG_SAMPLE?: string;
}
