// One description per capability, so the fault, fuzz and model suites cover each capability the
// same way: add an entry here when a capability lands and every generic test runs against it.
import { createHash } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { lockKey } from "../../functions/core/lock-keys";
import { MAX_WINDOW_MS } from "../../functions/ratelimits/schemas";
import { type SchemeName, SENDERS } from "../webhooks/senders";

/** Runs one statement against the suite's database (through whatever path the suite trusts). */
export type Query = <R = Record<string, unknown>>(text: string, params?: unknown[]) => Promise<R[]>;

export interface HttpCall {
  method: string;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/** A pg-style client that can run statements inside a transaction it keeps open. */
export interface Holder {
  query(text: string, params?: unknown[]): Promise<unknown>;
}

export interface Capability {
  name: string;
  /**
   * A write on `key`, made unique by `tag` (stored with it, so `applied` can find it). Different
   * `slot`s of one key do not conflict with each other, only with a write of the same slot.
   */
  write(key: string, tag: string, slot?: number): HttpCall;
  /** Statuses of a write that went through. */
  ok: number[];
  /** Statuses of a write decided "no" (a lost race, a limit): nothing applied. */
  refused: number[];
  /** Requests that make `key` usable (e.g. create the semaphore), sent once before writes on it. */
  prepare?(key: string): HttpCall[];
  /** Text the write's SQL statement contains (the bridge's statement faults match it). */
  statement: string;
  /** How many effects of the write tagged `tag` are in the database (0 or 1). */
  applied(q: Query, tag: string): Promise<number>;
  /** Queries that list violations of the capability's invariants: each must return no rows. */
  invariants: string[];
  /** Inside an open transaction on `conn`, takes what a write on `key` must wait for. */
  holdLock(conn: Holder, key: string): Promise<void>;
  /** The capability's tables (row counts must not change on a rejected request). */
  tables: string[];
  /** One valid request for each of the capability's operations: the fuzzer mutates these. */
  examples(key: string): HttpCall[];
  /** Reads by `key` (in a query string, a path segment, …) that see the write `write(key, tag, slot)`. */
  lookups(key: string, tag: string, slot: number): Array<{ call: HttpCall; found(json: any): boolean }>;
  /** The key stored with the write tagged `tag`, as the database holds it. */
  storedKey(q: Query, tag: string): Promise<string | undefined>;
  /** Keys the capability accepts at all, when it restricts them by design (else any 1–200 characters). */
  keyPattern?: RegExp;
  /**
   * The key is a path segment of some route even where this write sends it in a body (a reservation's
   * resource: /v1/resources/{resource}/availability), so "." and ".." are refused: no URL reaches them.
   */
  dotKeysRefused?: boolean;
  /**
   * How a retry learns the real outcome of a write answered 504: "idempotency-key" (send the same
   * Idempotency-Key again) or "natural" (the write is deduplicated by its own id, e.g. webhook-id).
   * Either way a retry of an applied write answers with `Idempotent-Replayed: true`.
   */
  dedupe: "idempotency-key" | "natural";
}

/** The write as a client that wants to retry safely sends it (and sends it again, identically). */
export function retryable(cap: Capability, key: string, tag: string, slot = 0): () => HttpCall {
  return () => {
    const call = cap.write(key, tag, slot); // rebuilt each time: a webhook signature carries the time
    return cap.dedupe === "natural" ? call : { ...call, headers: { ...call.headers, "Idempotency-Key": `idem-${tag}` } };
  };
}

const DAY = 86_400_000;
const BASE = Date.parse("2040-01-01T00:00:00Z");
const iso = (ms: number) => new Date(ms).toISOString().replace(".000Z", "Z");

/** Pairs of active reservations of one resource that overlap: must always be empty. */
export const RESERVATION_OVERLAPS = `
  SELECT a.id AS a, b.id AS b FROM reservations a
    JOIN reservations b ON a.resource = b.resource AND a.id < b.id AND a.during && b.during
   WHERE a.cancelled_at IS NULL AND b.cancelled_at IS NULL`;

export const reservations: Capability = {
  name: "reservations",
  dotKeysRefused: true,
  write: (key, tag, slot = 0) => ({
    method: "POST",
    path: "/v1/reservations",
    body: { resource: key, holder: tag, start: iso(BASE + slot * DAY), end: iso(BASE + (slot + 1) * DAY) },
  }),
  ok: [201],
  refused: [409],
  dedupe: "idempotency-key",
  statement: "admit_reserve",
  applied: async (q, tag) => (await q<{ n: number }>("SELECT count(*)::int AS n FROM reservations WHERE holder = $1", [tag]))[0].n,
  invariants: [RESERVATION_OVERLAPS],
  holdLock: async (conn, key) => {
    await conn.query("SELECT pg_advisory_xact_lock($1::bigint)", [lockKey("reservation", key)]);
  },
  tables: ["reservations"],
  examples: (key) => [
    {
      method: "POST",
      path: "/v1/reservations",
      body: { resource: key, holder: "h", start: "2041-01-01T00:00:00Z", end: "2041-01-02T00:00:00Z", metadata: { order: "A-1" } },
    },
    { method: "GET", path: `/v1/reservations?resource=${encodeURIComponent(key)}&from=2041-01-01T00:00:00Z&to=2041-02-01T00:00:00Z&limit=10` },
    { method: "GET", path: "/v1/reservations/0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e" },
    { method: "DELETE", path: "/v1/reservations/0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e" },
    { method: "GET", path: `/v1/resources/${encodeURIComponent(key)}/availability?from=2041-01-01T00:00:00Z&to=2041-01-10T00:00:00Z` },
  ],
  lookups: (key, tag, slot) => [
    {
      call: { method: "GET", path: `/v1/reservations?resource=${encodeURIComponent(key)}` },
      found: (json) => (json?.items ?? []).some((r: { holder: string }) => r.holder === tag),
    },
    {
      call: { method: "GET", path: `/v1/resources/${encodeURIComponent(key)}/availability?from=${iso(BASE + slot * DAY)}&to=${iso(BASE + (slot + 1) * DAY)}` },
      found: (json) => (json?.busy ?? []).length > 0,
    },
  ],
  storedKey: async (q, tag) => (await q<{ k: string }>("SELECT resource AS k FROM reservations WHERE holder = $1", [tag]))[0]?.k,
};

const seg = encodeURIComponent;
const NO_SUCH_ID = "0b0f4c53-5b5e-4a3c-9d55-0f7f5b0c2f5e";

/**
 * Claims in `permits` of one (kind, name, slot) whose holding times overlap: must be empty. A claim
 * holds from claimed_at until it was released or expired (timed_out_at is its expiry).
 */
export const PERMIT_OVERLAPS = `
  SELECT a.id AS a, b.id AS b FROM permits a
    JOIN permits b ON a.kind = b.kind AND a.name = b.name AND a.slot = b.slot AND a.id < b.id
     AND tstzrange(a.claimed_at, least(coalesce(a.released_at, a.expires_at), a.expires_at))
      && tstzrange(b.claimed_at, least(coalesce(b.released_at, b.expires_at), b.expires_at))`;

/** Fencing tokens of one key that do not strictly increase in grant order: must be empty. */
export const FENCING_NOT_INCREASING = `
  SELECT kind, name, fencing_token FROM (
    SELECT kind, name, fencing_token, claimed_at,
           lag(fencing_token) OVER (PARTITION BY kind, name ORDER BY claimed_at, fencing_token) AS previous,
           lag(claimed_at) OVER (PARTITION BY kind, name ORDER BY claimed_at, fencing_token) AS previous_at
      FROM permits) x
   WHERE previous >= fencing_token OR previous_at > claimed_at`;

/** Semaphores holding more live claims than permits: must be empty. */
export const SEMAPHORE_OVERSOLD = `
  SELECT s.name FROM semaphores s JOIN permits p ON p.kind = 'semaphore' AND p.name = s.name
   WHERE p.released_at IS NULL AND p.timed_out_at IS NULL AND p.expires_at > clock_timestamp()
   GROUP BY s.name, s.permits HAVING count(*) > s.permits`;

const permitApplied = (kind: string) => async (q: Query, tag: string) =>
  (await q<{ n: number }>("SELECT count(*)::int AS n FROM permits WHERE kind = $1 AND holder = $2", [kind, tag]))[0].n;
const permitKey = (kind: string) => async (q: Query, tag: string) =>
  (await q<{ k: string }>("SELECT name AS k FROM permits WHERE kind = $1 AND holder = $2", [kind, tag]))[0]?.k;

/** Leases (POST /v1/locks/{key}/acquire): one holder per key at a time, fencing tokens increasing. */
export const leases: Capability = {
  name: "leases",
  write: (key, tag) => ({ method: "POST", path: `/v1/locks/${seg(key)}/acquire`, body: { holder: tag, ttl_ms: 600_000 } }),
  ok: [201],
  refused: [409],
  dedupe: "idempotency-key",
  statement: "admit_permit_acquire",
  applied: permitApplied("lease"),
  invariants: [PERMIT_OVERLAPS, FENCING_NOT_INCREASING],
  holdLock: async (conn, key) => {
    await conn.query("SELECT pg_advisory_xact_lock($1::bigint)", [lockKey("lease", key)]);
  },
  tables: ["permits"],
  examples: (key) => [
    { method: "POST", path: `/v1/locks/${seg(key)}/acquire`, body: { holder: "h", ttl_ms: 30_000 } },
    { method: "POST", path: `/v1/locks/${seg(key)}/renew`, body: { lease_id: NO_SUCH_ID, ttl_ms: 30_000 } },
    { method: "POST", path: `/v1/locks/${seg(key)}/release`, body: { lease_id: NO_SUCH_ID } },
    { method: "GET", path: `/v1/locks/${seg(key)}` },
    { method: "GET", path: `/v1/locks?prefix=${encodeURIComponent(key)}` },
  ],
  lookups: (key, tag) => [{ call: { method: "GET", path: `/v1/locks/${seg(key)}` }, found: (json) => json?.holder === tag }],
  storedKey: permitKey("lease"),
};

/** Semaphores of 3 permits (POST /v1/semaphores/{name}/acquire): never more claims than permits. */
export const semaphores: Capability = {
  name: "semaphores",
  prepare: (key) => [{ method: "PUT", path: `/v1/semaphores/${seg(key)}`, body: { permits: 3, default_ttl_ms: 600_000 } }],
  write: (key, tag) => ({ method: "POST", path: `/v1/semaphores/${seg(key)}/acquire`, body: { holder: tag, ttl_ms: 600_000 } }),
  ok: [201],
  refused: [429],
  dedupe: "idempotency-key",
  statement: "admit_permit_acquire",
  applied: permitApplied("semaphore"),
  invariants: [PERMIT_OVERLAPS, FENCING_NOT_INCREASING, SEMAPHORE_OVERSOLD],
  holdLock: async (conn, key) => {
    await conn.query("SELECT pg_advisory_xact_lock($1::bigint)", [lockKey("semaphore", key)]);
  },
  tables: ["semaphores", "permits"],
  examples: (key) => [
    { method: "PUT", path: `/v1/semaphores/${seg(key)}`, body: { permits: 2, default_ttl_ms: 30_000 } },
    { method: "GET", path: `/v1/semaphores/${seg(key)}` },
    { method: "GET", path: "/v1/semaphores" },
    { method: "POST", path: `/v1/semaphores/${seg(key)}/acquire`, body: { holder: "h", ttl_ms: 30_000 } },
    { method: "POST", path: `/v1/semaphores/${seg(key)}/renew`, body: { permit_id: NO_SUCH_ID, ttl_ms: 30_000 } },
    { method: "POST", path: `/v1/semaphores/${seg(key)}/release`, body: { permit_id: NO_SUCH_ID } },
  ],
  lookups: (key, tag) => [
    { call: { method: "GET", path: `/v1/semaphores/${seg(key)}` }, found: (json) => (json?.holders ?? []).some((h: { holder: string }) => h.holder === tag) },
  ],
  storedKey: permitKey("semaphore"),
};

/** A source's signing secret, derived from its name so every suite can sign without shared state. */
export function webhookSecret(source: string): string {
  return "whsec_" + createHash("sha256").update(`admit-test/${source}`).digest("base64");
}

/** A Standard Webhooks delivery of `body` to `source` with webhook-id `id`, signed now. */
export function delivery(source: string, id: string, body: string): HttpCall {
  const at = new Date();
  return {
    method: "POST",
    path: `/v1/webhooks/${seg(source)}`,
    body,
    headers: {
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
      "webhook-signature": new Webhook(webhookSecret(source)).sign(id, at, body),
    },
  };
}

/**
 * Webhook deliveries (POST /v1/webhooks/{source}, signed): one inbox row per webhook-id. Sources
 * here order by `/data/k`, so deliveries of one slot queue on that value's advisory lock.
 */
export const webhooks: Capability = {
  name: "webhooks",
  keyPattern: /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/,
  prepare: (key) => [
    { method: "PUT", path: `/v1/webhooks/sources/${seg(key)}`, body: { secret: webhookSecret(key), tolerance_s: 300, ordering_key: "/data/k" } },
  ],
  write: (key, tag, slot = 0) => delivery(key, tag, JSON.stringify({ type: "test.event", data: { k: `v${slot}`, tag } })),
  ok: [200],
  refused: [],
  dedupe: "natural",
  statement: "admit_webhook_receive",
  applied: async (q, tag) => (await q<{ n: number }>("SELECT count(*)::int AS n FROM webhook_events WHERE webhook_id = $1", [tag]))[0].n,
  invariants: ["SELECT source, webhook_id FROM webhook_events GROUP BY source, webhook_id HAVING count(*) > 1"],
  holdLock: async (conn, key) => {
    await conn.query("SELECT pg_advisory_xact_lock($1::bigint)", [lockKey("webhook", `${key}/v0`)]);
  },
  tables: ["webhook_sources", "webhook_events"],
  examples: (key) => {
    const source = key.replace(/[^A-Za-z0-9._-]/g, "") || "src";
    return [
      { method: "PUT", path: `/v1/webhooks/sources/${seg(source)}`, body: { secret: webhookSecret(source), tolerance_s: 300, ordering_key: "/data/k" } },
      { method: "GET", path: `/v1/webhooks/sources/${seg(source)}` },
      { method: "GET", path: "/v1/webhooks/sources" },
      delivery(source, "msg_fuzz", JSON.stringify({ type: "x", data: { k: "v" } })),
      { method: "POST", path: `/v1/webhooks/${seg(source)}/events/claim`, body: { limit: 10, visibility_ms: 30_000 } },
      { method: "POST", path: `/v1/webhooks/${seg(source)}/events/${NO_SUCH_ID}/ack`, body: { receipt: NO_SUCH_ID } },
      { method: "GET", path: `/v1/webhooks/${seg(source)}/events?status=received&limit=10` },
      { method: "GET", path: `/v1/webhooks/${seg(source)}/events/${NO_SUCH_ID}/attempts?limit=10` },
      { method: "POST", path: `/v1/webhooks/${seg(source)}/events/${NO_SUCH_ID}/redeliver` },
      { method: "POST", path: `/v1/webhooks/${seg(source)}/events/redeliver`, body: { since: "2030-01-01T00:00:00Z", until: "2030-01-02T00:00:00Z" } },
    ];
  },
  lookups: (key, tag) => [
    {
      call: { method: "GET", path: `/v1/webhooks/${seg(key)}/events` },
      found: (json) => (json?.items ?? []).some((e: { webhook_id: string }) => e.webhook_id === tag),
    },
  ],
  storedKey: async (q, tag) => (await q<{ k: string }>("SELECT source AS k FROM webhook_events WHERE webhook_id = $1", [tag]))[0]?.k,
};

/**
 * Webhook deliveries of another sender scheme (test/webhooks/senders.ts): the same inbox and the same
 * invariant, the sender's own headers, id and body shape. Sources order by the sender's place of
 * `k`, so deliveries of one slot queue on that value's advisory lock as with Standard Webhooks.
 */
export function webhookScheme(scheme: Exclude<SchemeName, "standard-webhooks">): Capability {
  const sender = SENDERS[scheme];
  const put = (source: string): HttpCall => ({
    method: "PUT",
    path: `/v1/webhooks/sources/${seg(source)}`,
    body: { ...sender.settings, secret: sender.secretFor(source), ordering_key: sender.dataPointer("k") },
  });
  const signed = (source: string, id: string, slot: number, tag: string): HttpCall => {
    const d = sender.sign([sender.secretFor(source)], id, "test.event", { k: `v${slot}`, tag }, Math.floor(Date.now() / 1000));
    return { method: "POST", path: `/v1/webhooks/${seg(source)}`, body: d.body, headers: d.headers };
  };
  return {
    ...webhooks,
    name: `webhooks/${scheme}`,
    prepare: (key) => [put(key)],
    write: (key, tag, slot = 0) => signed(key, tag, slot, tag),
    examples: (key) => {
      const source = `${key.replace(/[^A-Za-z0-9._-]/g, "") || "src"}-${scheme}`;
      return [put(source), signed(source, `fuzz_${scheme}`, 0, "fuzz")];
    },
  };
}

/**
 * The one policy every rate-limit test key is checked against: 20 units per key per window, logged.
 * The longest window (366 days): a key's write and its lookup (usage reads the current window) never
 * fall in two.
 */
export const RL_POLICY = "admit-test-20-per-year";
const RL_WINDOW_MS = MAX_WINDOW_MS;

/**
 * Rate limits (POST /v1/ratelimits/check, fixed window of 20 units): never more consumed than the
 * limit in a window, and every admitted call logged by the same statement. A check is tagged through
 * `info`, and costs slot + 1 units, so a key's usage shows which write it holds.
 */
export const ratelimits: Capability = {
  name: "ratelimits",
  prepare: () => [
    { method: "PUT", path: `/v1/ratelimits/policies/${RL_POLICY}`, body: { algorithm: "fixed_window", limit: 20, window_ms: RL_WINDOW_MS, log: true } },
  ],
  write: (key, tag, slot = 0) => ({ method: "POST", path: "/v1/ratelimits/check", body: { policy: RL_POLICY, key, cost: (slot % 20) + 1, info: { tag } } }),
  ok: [200],
  refused: [429],
  dedupe: "idempotency-key",
  statement: "admit_ratelimit_check",
  applied: async (q, tag) => (await q<{ n: number }>("SELECT count(*)::int AS n FROM ratelimit_log WHERE info->>'tag' = $1 AND allowed", [tag]))[0].n,
  invariants: [
    `SELECT c.policy, c.key, c.slot FROM ratelimit_counters c JOIN ratelimit_policies p ON p.name = c.policy
      WHERE p.algorithm = 'fixed_window' AND c.consumed > p.quota`,
    // Logged policies: the allowed log rows of a key are exactly its admitted count (one statement writes both).
    `SELECT coalesce(l.policy, c.policy) AS policy, coalesce(l.key, c.key) AS key FROM
       (SELECT policy, key, count(*) FILTER (WHERE allowed) AS n FROM ratelimit_log GROUP BY 1, 2) l
       FULL JOIN (SELECT c.policy, c.key, sum(c.admitted) AS a FROM ratelimit_counters c JOIN ratelimit_policies p ON p.name = c.policy AND p.log
                   GROUP BY 1, 2) c ON l.policy = c.policy AND l.key = c.key
      WHERE coalesce(l.n, 0) <> coalesce(c.a, 0)`,
  ],
  // The check upserts the key's counter row: an uncommitted insert of that row makes it wait.
  holdLock: async (conn, key) => {
    await conn.query(
      `INSERT INTO ratelimit_counters (policy, key, slot, window_start, last_allowed, expires_at)
       SELECT $1, $2, s, to_timestamp(s * $3::bigint / 1000.0), true, now() + interval '1 day'
         FROM (SELECT floor(extract(epoch FROM now()) * 1000 / $3::bigint)::bigint AS s) x
       ON CONFLICT DO NOTHING`,
      [RL_POLICY, key, RL_WINDOW_MS],
    );
    await conn.query("SELECT 1 FROM ratelimit_counters WHERE policy = $1 AND key = $2 FOR UPDATE", [RL_POLICY, key]);
  },
  tables: ["ratelimit_policies", "ratelimit_counters", "ratelimit_log", "ratelimit_list_entries"],
  examples: (key) => [
    {
      method: "PUT",
      path: "/v1/ratelimits/policies/fuzz-policy",
      body: { algorithm: "fixed_window", limit: 5, window_ms: 60_000, log: true, history_ms: 3_600_000 },
    },
    { method: "GET", path: "/v1/ratelimits/policies/fuzz-policy" },
    { method: "GET", path: "/v1/ratelimits/policies?limit=10" },
    { method: "GET", path: "/v1/ratelimits/policies/fuzz-policy/overrides" },
    { method: "DELETE", path: "/v1/ratelimits/policies/no-such-policy" },
    {
      method: "PUT",
      path: `/v1/ratelimits/policies/fuzz-policy/overrides/${seg(key)}`,
      body: { limit: 10, valid_from: "2040-01-01T00:00:00Z", valid_to: "2040-02-01T00:00:00Z" },
    },
    { method: "GET", path: `/v1/ratelimits/policies/fuzz-policy/overrides/${seg(key)}` },
    { method: "DELETE", path: `/v1/ratelimits/policies/fuzz-policy/overrides/${seg(key)}?valid_from=2040-01-01T00:00:00Z` },
    { method: "POST", path: "/v1/ratelimits/check", body: { policy: "fuzz-policy", key, cost: 1, info: { order: "A-1" } } },
    { method: "POST", path: "/v1/ratelimits/refund", body: { policy: "fuzz-policy", key, cost: 1 } },
    { method: "GET", path: `/v1/ratelimits/usage?policy=fuzz-policy&key=${seg(key)}&from=2040-01-01T00:00:00Z&to=2040-01-02T00:00:00Z` },
    { method: "DELETE", path: `/v1/ratelimits/usage?policy=fuzz-policy&key=${seg(key)}` },
    { method: "GET", path: "/v1/ratelimits/policies/fuzz-policy/keys?window=1h&order=used&limit=10" },
    { method: "GET", path: "/v1/ratelimits/policies/fuzz-policy/decisions?minutes=30" },
    {
      method: "PUT",
      path: "/v1/ratelimits/lists/deny",
      body: { kind: "key", value: key, policy: "fuzz-policy", reason: "fuzz", expires_at: "2040-01-01T00:00:00Z" },
    },
    { method: "GET", path: "/v1/ratelimits/lists/deny?policy=fuzz-policy&limit=10" },
    { method: "DELETE", path: `/v1/ratelimits/lists/deny?kind=key&value=${seg(key)}&policy=fuzz-policy` },
    { method: "POST", path: "/v1/ratelimits/check", body: { policy: "fuzz-policy", key, ip: "192.0.2.1", country: "NL" } },
  ],
  lookups: (key, _tag, slot) => [
    {
      call: { method: "GET", path: `/v1/ratelimits/usage?policy=${RL_POLICY}&key=${seg(key)}` },
      found: (json) => json?.admitted === 1 && json?.consumed === (slot % 20) + 1,
    },
  ],
  storedKey: async (q, tag) => (await q<{ k: string }>("SELECT key AS k FROM ratelimit_log WHERE info->>'tag' = $1", [tag]))[0]?.k,
};

const NIGHT0 = Date.parse("2040-01-01T00:00:00Z");
const night = (n: number) => new Date(NIGHT0 + n * DAY).toISOString().slice(0, 10);

/**
 * Inventory (POST /v1/inventory/{item}/bookings): 2 rooms a night for 20 nights; a write books one
 * room for night `slot` (mod 20). Never more rooms taken than stocked on any night.
 */
export const inventory: Capability = {
  name: "inventory",
  prepare: (key) => [{ method: "PUT", path: `/v1/inventory/${seg(key)}/stock`, body: { from: night(0), to: night(20), quantity: 2 } }],
  write: (key, tag, slot = 0) => ({
    method: "POST",
    path: `/v1/inventory/${seg(key)}/bookings`,
    body: { check_in: night(slot % 20), check_out: night((slot % 20) + 1), quantity: 1, holder: tag },
  }),
  ok: [201],
  refused: [409],
  dedupe: "idempotency-key",
  statement: "admit_inventory_book",
  applied: async (q, tag) => (await q<{ n: number }>("SELECT count(*)::int AS n FROM inventory_bookings WHERE holder = $1", [tag]))[0].n,
  invariants: [
    // No night has more rooms booked or (live) held than it has.
    `SELECT n.item, n.night FROM inventory_nights n
       JOIN inventory_bookings b ON b.item = n.item AND n.night >= b.check_in AND n.night < b.check_out
        AND (b.status = 'confirmed' OR (b.status = 'held' AND b.expires_at > clock_timestamp()))
      GROUP BY n.item, n.night, n.capacity HAVING sum(b.quantity) > n.capacity`,
    // A confirmed booking owns exactly its room-nights.
    `SELECT b.id FROM inventory_bookings b WHERE b.status = 'confirmed'
        AND (SELECT count(*) FROM inventory_tokens t WHERE t.booking_id = b.id) <> b.quantity * (b.check_out - b.check_in)`,
  ],
  // A booking takes the night's room rows with row locks: hold every row of the item.
  holdLock: async (conn, key) => {
    await conn.query("SELECT 1 FROM inventory_tokens WHERE item = $1 FOR UPDATE", [key]);
  },
  tables: ["inventory_nights", "inventory_bookings", "inventory_tokens"],
  examples: (key) => [
    { method: "PUT", path: `/v1/inventory/${seg(key)}/stock`, body: { from: "2041-01-01", to: "2041-01-05", quantity: 2 } },
    { method: "GET", path: `/v1/inventory/${seg(key)}/availability?from=2041-01-01&to=2041-01-05` },
    {
      method: "POST",
      path: `/v1/inventory/${seg(key)}/bookings`,
      body: { check_in: "2041-01-01", check_out: "2041-01-03", quantity: 1, holder: "h", hold_ms: 60_000 },
    },
    { method: "POST", path: `/v1/inventory/${seg(key)}/bookings/${NO_SUCH_ID}/confirm` },
    { method: "GET", path: `/v1/inventory/${seg(key)}/bookings/${NO_SUCH_ID}` },
    { method: "DELETE", path: `/v1/inventory/${seg(key)}/bookings/${NO_SUCH_ID}` },
  ],
  lookups: (key, _tag, slot) => [
    {
      call: { method: "GET", path: `/v1/inventory/${seg(key)}/availability?from=${night(slot % 20)}&to=${night((slot % 20) + 1)}` },
      found: (json) => (json?.nights ?? []).some((n: { booked: number; held: number }) => n.booked + n.held >= 1),
    },
  ],
  storedKey: async (q, tag) => (await q<{ k: string }>("SELECT item AS k FROM inventory_bookings WHERE holder = $1", [tag]))[0]?.k,
};

/** The webhook schemes besides Standard Webhooks (`webhooks` above), each its own entry. */
export const WEBHOOK_SCHEMES: Capability[] = (["stripe", "github", "shopify", "slack", "hmac"] as const).map(webhookScheme);

export const CAPABILITIES: Capability[] = [reservations, leases, semaphores, webhooks, ...WEBHOOK_SCHEMES, ratelimits, inventory];

/**
 * Valid requests for every operation, for the fuzzer to mutate: each capability's, plus routes no
 * capability above describes (their effects cannot be attributed to one request by a tag).
 */
export function examples(key: string): HttpCall[] {
  return [
    ...CAPABILITIES.flatMap((c) => c.examples(key)),
    { method: "POST", path: "/v1/invoices/generate", body: { subscription_id: key, kind: "usage", work_ms: 0 } },
    // Keys and the audit log (test/apikeys/): a fuzzed key is created, listed, rotated and revoked like any other.
    { method: "POST", path: "/v1/keys", body: { name: key, scopes: ["ratelimits:read"], names: [`${key}*`] } },
    { method: "GET", path: "/v1/keys?limit=10" },
    { method: "GET", path: "/v1/keys/00000000-0000-0000-0000-000000000000" },
    { method: "POST", path: "/v1/keys/00000000-0000-0000-0000-000000000000/rotate", body: { overlap_ms: 0 } },
    { method: "DELETE", path: "/v1/keys/00000000-0000-0000-0000-000000000000" },
    { method: "GET", path: `/v1/audit?target=${encodeURIComponent(key)}&limit=10` },
    { method: "GET", path: "/metrics" },
    // The forward-auth check: the same answer for every method (functions/ratelimits/authz.ts).
    ...["GET", "POST", "PUT", "PATCH", "DELETE"].map((method) => ({
      method,
      path: "/v1/authz?policy=fuzz-policy&key=header:X-Api-Key&key=ip&cost=1",
      headers: { "X-Api-Key": key, "X-Forwarded-For": "192.0.2.1" },
    })),
  ];
}
