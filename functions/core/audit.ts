// The audit row of a configuration write, written by the same statement as the change: one
// statement, one transaction, so there is never a change without its row nor a row without its
// change (schema/current/keys.sql). A capability's sql.ts wraps its one call with `audited()`.
import type { Caller } from "./apikeys";
import type { Bindings } from "./env";

/** How long audit rows are kept unless AUDIT_RETENTION_DAYS says otherwise. */
export const DEFAULT_AUDIT_RETENTION_DAYS = 90;

/** Who made the change, what, on which name, and the change itself (never a secret: see `redact`). */
export interface AuditEntry {
  actor: { id: string | null; name: string };
  action: string;
  target: string;
  change: Record<string, unknown>;
  keep_days: number;
}

export function actorOf(caller: Caller | undefined): AuditEntry["actor"] {
  if (caller?.kind === "key") return { id: caller.id, name: caller.name };
  return { id: null, name: caller?.kind ?? "root" };
}

/** The audit entry of a change made by `caller`; `change` must already be redacted. */
export function auditEntry(caller: Caller | undefined, env: Bindings, action: string, target: string, change: Record<string, unknown>): AuditEntry {
  const days = Number(env.AUDIT_RETENTION_DAYS);
  const keep = Number.isInteger(days) && days >= 1 && days <= 36_500 ? days : DEFAULT_AUDIT_RETENTION_DAYS;
  return { actor: actorOf(caller), action, target, change, keep_days: keep };
}

/** `value` with the named fields replaced by "[redacted]". */
export function redact<T extends Record<string, unknown>>(value: T, ...fields: string[]): T {
  const out: Record<string, unknown> = { ...value };
  for (const f of fields) if (f in out) out[f] = "[redacted]";
  return out as T;
}

/**
 * One statement: `call` (a `SELECT <function>(…) AS <column>` using parameters $1…$n), then, when
 * `ok` (a SQL condition on `c.<column>`) holds, the audit row of `entry`, passed as $n+1. The call
 * runs once (a MATERIALIZED CTE); the audit function runs only when the change happened.
 */
export function audited(call: string, params: unknown[], ok: string, entry: AuditEntry): { text: string; params: unknown[] } {
  return {
    text: `WITH c AS MATERIALIZED (${call}) SELECT c.*, CASE WHEN ${ok} THEN admit_audit_write($${params.length + 1}::jsonb) END AS audited FROM c`,
    params: [...params, JSON.stringify(entry)],
  };
}
