// The rate-limit SQL functions (and the semaphore calls of `rateLimit({ concurrency })`), one typed
// wrapper each: with controls/sql.ts (operator controls) and dashboard/sql.ts (the dashboard's views
// of a policy), the only files in functions/ that name them. The statement texts are matched by the
// bridge's fault tests (e.g. `admit_ratelimit_check`, `admit_permit_acquire`): keep them as they are.
import { type AuditEntry, audited } from "../core/audit";
import { type Ask, Coalescer, type UNSENT } from "../core/coalesce";
import type { Queryable } from "../core/db";
import { lockKey } from "../core/lock-keys";

export type Algorithm = "fixed_window" | "sliding_window" | "token_bucket";
export type FailMode = "deny" | "allow";

export interface PolicyInput {
  algorithm: Algorithm;
  limit: number;
  window_ms: number;
  log: boolean;
  history_ms: number;
  timeout_ms: number;
  on_unavailable: FailMode;
  /** Shadow mode: decided and counted as if enforced, never refused (default false). */
  shadow?: boolean;
  /** Its counters commit synchronously (a crash loses none of them); default false: asynchronously (docs/ratelimits.md#durability). */
  durable?: boolean;
}

/** A policy as admit_ratelimit_policy_json() renders it. */
export interface PolicyRow extends PolicyInput {
  name: string;
  shadow: boolean;
  durable: boolean;
  created_at: string;
  updated_at: string;
}

export interface OverrideRow {
  policy: string;
  key: string;
  limit: number;
  valid_from: string;
  valid_to: string | null;
  shadow: boolean;
}

export type PutOverrideResult = { status: "created" | "updated" | "conflict" | "tie" | "no_policy"; override?: OverrideRow; conflicts?: OverrideRow[] };

/** One policy's answer to a check (admit_ratelimit_check, and each item of admit_ratelimit_check_multi). */
export interface CheckRow {
  allowed: boolean;
  policy: string;
  key: string;
  limit: number;
  remaining: number;
  reset_ms: number;
  window_ms: number;
  log: boolean;
  retry_after_ms: number | null;
  /** ms until one unit fits again (0 = one fits now); feeds the deny cache. */
  wait1_ms: number | null;
  /**
   * The database's clock when it decided (ms since the epoch, floored; the `now()` the check functions
   * decide at): the window the answer was decided in is floor(at / window_ms). Feeds the deny cache.
   */
  at?: number;
  timeout_ms?: number;
  on_unavailable?: FailMode;
  /** The limit decided in shadow mode (the policy's, or the key's override in force): a refusal is let through. */
  shadow?: boolean;
  /**
   * false: a refusal the committed counter already decided, answered from a read that wrote nothing;
   * the caller counts the call (attempted, rejected) through its tally, in the window starting at
   * `window_start_ms`, as it counts a deny-cache answer.
   */
  counted?: false;
  window_start_ms?: number;
}

/** admit_ratelimit_check_multi: `missing` when some policy does not exist (nothing counted). */
export type CheckMultiRow = { missing: string[] } | { allowed: boolean; key: string; results: CheckRow[] };

export interface RefundRow {
  policy: string;
  key: string;
  limit: number;
  remaining: number;
  reset_ms: number;
  refunded: number;
  window_ms: number;
}

export interface WindowUsageRow {
  window_start: string;
  window_end: string;
  admitted: number;
  attempted: number;
  rejected: number;
  /** Refusals shadow mode let through (counted in `rejected` too). */
  would_refuse: number;
  consumed: number;
}

export interface UsageRow extends WindowUsageRow {
  policy: string;
  key: string;
  algorithm: Algorithm;
  limit: number;
  window_ms: number;
  windows: WindowUsageRow[] | null;
  shadow: boolean;
}

export type AcquireRow =
  | { status: "acquired"; permit: { permit_id: string; slot: number } }
  | { status: "busy"; permits: number; in_use: number; retry_after_ms: number; expires_at: string }
  | { status: "not_found" };

/** Creates or replaces a policy; `created` tells which. */
export async function putPolicy(db: Queryable, name: string, p: PolicyInput, audit: AuditEntry): Promise<{ created: boolean; policy: PolicyRow }> {
  const q = audited(
    "SELECT admit_ratelimit_put_policy($1, $2, $3::integer, $4::bigint, $5::boolean, $6::bigint, $7::integer, $8, $9::integer, $10::boolean, $11::boolean) AS r",
    [name, p.algorithm, p.limit, p.window_ms, p.log, p.history_ms, p.timeout_ms, p.on_unavailable, db.lockTimeoutMs, p.shadow ?? false, p.durable ?? false],
    "true",
    audit,
  );
  const [{ r }] = await db.query<{ r: { created: boolean; policy: PolicyRow } }>(q.text, q.params, { write: true });
  return r;
}

/** The policy, or null when there is none of that name. */
export async function getPolicy(db: Queryable, name: string): Promise<PolicyRow | null> {
  const [row] = await db.query<{ r: PolicyRow }>("SELECT admit_ratelimit_policy_json(p) AS r FROM ratelimit_policies p WHERE p.name = $1", [name]);
  return row ? row.r : null;
}

/** Policies by name after `after` (at most limit + 1), only those matching `names` (LIKE patterns; null: all). */
export async function listPolicies(db: Queryable, after: string | null, limit: number, names: string[] | null): Promise<PolicyRow[]> {
  const [{ r }] = await db.query<{ r: PolicyRow[] }>("SELECT admit_ratelimit_list_policies($1, $2::integer, $3::text[]) AS r", [after, limit, names]);
  return r;
}

/**
 * A policy's overrides (all keys, by key then start) after the (key, valid_from) cursor, up to
 * `limit` + 1 (so the caller knows there is a next page); null when there is no such policy.
 */
export async function listPolicyOverrides(
  db: Queryable,
  policy: string,
  after: { key: string; validFrom: string } | null,
  limit: number,
): Promise<OverrideRow[] | null> {
  const [{ r }] = await db.query<{ r: OverrideRow[] | null }>("SELECT admit_ratelimit_list_policy_overrides($1, $2, $3::timestamptz, $4::integer) AS r", [
    policy,
    after?.key ?? null,
    after?.validFrom ?? null,
    limit,
  ]);
  return r;
}

/** Deletes a policy with its overrides and counters; false when there was none. */
export async function deletePolicy(db: Queryable, name: string, audit: AuditEntry): Promise<boolean> {
  const q = audited("SELECT admit_ratelimit_delete_policy($1, $2::integer) AS r", [name, db.lockTimeoutMs], "c.r", audit);
  const [{ r }] = await db.query<{ r: boolean }>(q.text, q.params, { write: true });
  return r;
}

export async function putOverride(
  db: Queryable,
  policy: string,
  key: string,
  o: { limit: number; valid_from: string; valid_to: string | null; shadow: boolean },
  audit: AuditEntry,
): Promise<PutOverrideResult> {
  const q = audited(
    "SELECT admit_ratelimit_put_override($1, $2, $3::integer, $4::timestamptz, $5::timestamptz, $6::integer, $7::boolean) AS r",
    [policy, key, o.limit, o.valid_from, o.valid_to, db.lockTimeoutMs, o.shadow],
    "c.r->>'status' IN ('created', 'updated')",
    audit,
  );
  const [{ r }] = await db.query<{ r: PutOverrideResult }>(q.text, q.params, { write: true });
  return r;
}

/** A key's override periods in order of valid_from, or null when the policy does not exist. */
export async function listOverrides(db: Queryable, policy: string, key: string): Promise<OverrideRow[] | null> {
  const [{ r }] = await db.query<{ r: OverrideRow[] | null }>("SELECT admit_ratelimit_list_overrides($1, $2) AS r", [policy, key]);
  return r;
}

/** Deletes a key's override periods (only the one starting at `validFrom` when given); how many went. */
export async function deleteOverrides(db: Queryable, policy: string, key: string, validFrom: string | null, audit: AuditEntry): Promise<number> {
  const q = audited(
    "SELECT admit_ratelimit_delete_overrides($1, $2, $3::timestamptz, $4::integer) AS n",
    [policy, key, validFrom, db.lockTimeoutMs],
    "c.n > 0",
    audit,
  );
  const [{ n }] = await db.query<{ n: number }>(q.text, q.params, { write: true });
  return n;
}

/** The database's clock of the statement (its transaction's `now()`, at which every check in it decides): a check row's `at`. */
const AT = "floor(extract(epoch FROM now()) * 1000)::float8 AS at";
/**
 * The one statement a single-policy check sends (policy, key, cost, log info, lock timeout in ms), as
 * its own transaction (p_edge): its counter commits asynchronously unless the policy is durable, and
 * a refusal the committed counter decides comes from a read, `counted: false`, counted by the tally.
 * Shadow mode is applied to its answer (admit_ratelimit_shadowed).
 */
export const CHECK_SQL = `SELECT admit_ratelimit_shadowed(admit_ratelimit_check($1, $2, $3::integer, $4::jsonb, $5::integer, p_edge => true), $3::integer) AS r, ${AT}`;
/** The same check inside an explicit transaction: never asynchronous, so the transaction's other writes keep their durability. */
const CHECK_IN_TX_SQL = `SELECT admit_ratelimit_shadowed(admit_ratelimit_check($1, $2, $3::integer, $4::jsonb, $5::integer), $3::integer) AS r, ${AT}`;
/** The one statement a multi-policy check sends (policies, key, cost, log info, lock timeout in ms). */
export const CHECK_MULTI_SQL = `SELECT admit_ratelimit_check_multi($1::text[], $2, $3::integer, $4::jsonb, $5::integer) AS r, ${AT}`;

export interface CheckArgs {
  key: string;
  cost: number;
  info?: Record<string, unknown>;
  lockTimeoutMs: number;
  /** Give up on the answer sooner than the request's budget. */
  withinMs?: number;
}

/**
 * The one statement of the checks that were in flight together (functions/core/coalesce/): each
 * item as its own statement would decide it, one answer per item, in order.
 */
export const CHECK_BATCH_SQL = `SELECT admit_ratelimit_shadowed_batch(admit_ratelimit_check_batch($1::jsonb, $2::integer, $3::boolean), $1::jsonb) AS r, ${AT}`;

/** True when `db` has an explicit transaction open: a check there must not make it commit asynchronously. */
function inTransaction(db: Queryable): boolean {
  return (db as { inTransaction?: boolean }).inTransaction === true;
}

/** A check as the coalescer carries it: one policy or several (all-or-nothing). */
interface CheckItem {
  policy?: string;
  policies?: string[];
  a: CheckArgs;
}

/** A check's answer: one policy's row (null: no such policy), or several policies'. */
type CheckAnswer = CheckRow | null | CheckMultiRow;

/** `answer` with its policies' rows stamped with the statement's clock (CheckRow.at). */
function stamped(answer: CheckAnswer, at: number): CheckAnswer {
  if (answer === null || "missing" in answer) return answer;
  if ("results" in answer) {
    for (const r of answer.results) r.at = at;
  } else {
    answer.at = at;
  }
  return answer;
}

const checks = new Coalescer<CheckItem, CheckAnswer>({
  alone: async (db, { policy, policies, a }, withinMs) => {
    const [{ r, at }] = await db.query<{ r: CheckAnswer; at: number }>(
      policies ? CHECK_MULTI_SQL : inTransaction(db) ? CHECK_IN_TX_SQL : CHECK_SQL,
      [policies ?? policy, a.key, a.cost, a.info === undefined ? null : JSON.stringify(a.info), a.lockTimeoutMs],
      { write: a.cost > 0, withinMs },
    );
    return stamped(r, at);
  },
  together: async (db, items, withinMs) => {
    const json = items.map(({ policy, policies, a }) => ({ ...(policies ? { ps: policies } : { p: policy }), k: a.key, c: a.cost, i: a.info }));
    const [{ r, at }] = await db.query<{ r: CheckAnswer[]; at: number }>(
      CHECK_BATCH_SQL,
      [JSON.stringify(json), Math.min(...items.map((x) => x.a.lockTimeoutMs)), !inTransaction(db)],
      {
        write: items.some((x) => x.a.cost > 0),
        withinMs,
      },
    );
    return r.map((x) => stamped(x, at));
  },
  // A check locks the counter rows of its key (one per policy): checks of one key keep their order,
  // and a multi-policy check has its key to itself in a batch (the batch function's lock order).
  group: (x) => x.a.key,
  exclusive: (x) => x.policies !== undefined,
  write: (x) => x.a.cost > 0,
});

/** What this isolate's check coalescer has done (tests, the bench). */
export const checkCoalescing = checks.stats;

/**
 * One policy, one decision; null when the policy does not exist. A peek (cost 0) is not a write.
 * UNSENT when, while it waited to join a batch, `ask.known` said its answer no longer needs the
 * database; `ask.learn` gets the answer when its batch lands (functions/core/coalesce/).
 */
export async function check(db: Queryable, policy: string, a: CheckArgs, ask?: Ask<CheckRow | null>): Promise<CheckRow | null | typeof UNSENT> {
  return (await checks.runUnless(db, { policy, a }, a.withinMs, ask as Ask<CheckAnswer>)) as CheckRow | null | typeof UNSENT;
}

/** Several policies of one key in one decision, all-or-nothing; UNSENT as check() says. */
export async function checkMulti(db: Queryable, policies: string[], a: CheckArgs, ask?: Ask<CheckMultiRow>): Promise<CheckMultiRow | typeof UNSENT> {
  return (await checks.runUnless(db, { policies, a }, a.withinMs, ask as Ask<CheckAnswer>)) as CheckMultiRow | typeof UNSENT;
}

/** Gives back units of the current window; null when the policy does not exist. */
export async function refund(db: Queryable, policy: string, key: string, cost: number): Promise<RefundRow | null> {
  const [{ r }] = await db.query<{ r: RefundRow | null }>(
    "SELECT admit_ratelimit_refund($1, $2, $3::integer, $4::integer) AS r",
    [policy, key, cost, db.lockTimeoutMs],
    { write: true },
  );
  return r;
}

/** The key's current window and, with from/to, its stored windows; null when the policy does not exist. */
export async function usage(db: Queryable, policy: string, key: string, from: string | null, to: string | null): Promise<UsageRow | null> {
  const [{ r }] = await db.query<{ r: UsageRow | null }>("SELECT admit_ratelimit_usage($1, $2, $3::timestamptz, $4::timestamptz) AS r", [
    policy,
    key,
    from,
    to,
  ]);
  return r;
}

/** Semaphore calls of `rateLimit({ concurrency })`: the lock timeout and the time limit are the check's budget. */
export interface PermitCallOptions {
  lockTimeoutMs: number;
  withinMs: number;
}

export async function acquirePermit(db: Queryable, semaphore: string, holder: string, ttlMs: number | null, o: PermitCallOptions): Promise<AcquireRow> {
  const [{ r }] = await db.query<{ r: AcquireRow }>(
    "SELECT admit_permit_acquire($1::bigint, 'semaphore', $2, $3, $4::integer, $5::integer) AS r",
    [lockKey("semaphore", semaphore), semaphore, holder, ttlMs, o.lockTimeoutMs],
    { write: true, withinMs: o.withinMs },
  );
  return r;
}

/**
 * Creates a semaphore unless it exists (an existing one keeps its size and TTL), with `audit`'s row
 * in the same statement when it did create it: a configuration write, as a semaphore's PUT is.
 */
export async function createSemaphore(
  db: Queryable,
  semaphore: string,
  permits: number,
  ttlMs: number,
  o: PermitCallOptions,
  audit: AuditEntry,
): Promise<void> {
  const q = audited(
    "SELECT admit_semaphore_put($1::bigint, $2, $3::integer, $4::integer, true, $5::integer) AS r",
    [lockKey("semaphore", semaphore), semaphore, permits, ttlMs, o.lockTimeoutMs],
    "(c.r->>'created')::boolean",
    audit,
  );
  await db.query(q.text, q.params, { write: true, withinMs: o.withinMs });
}

export async function releasePermit(db: Queryable, semaphore: string, permitId: string, o: PermitCallOptions): Promise<void> {
  await db.query(
    "SELECT admit_permit_release($1::bigint, 'semaphore', $2, $3::uuid, $4::integer) AS r",
    [lockKey("semaphore", semaphore), semaphore, permitId, o.lockTimeoutMs],
    { write: true, withinMs: o.withinMs },
  );
}
