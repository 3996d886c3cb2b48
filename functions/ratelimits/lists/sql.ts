// The SQL of the rate limits' deny and allow lists, one typed wrapper each: the writes (audited in
// the same statement), a page of a list, and the load of every live entry for an isolate's cache.
import { type AuditEntry, audited } from "../../core/audit";
import { type Queryable, RequestDb } from "../../core/db";
import type { Bindings } from "../../core/env";

export type ListName = "deny" | "allow";
export type EntryKind = "key" | "prefix" | "ip" | "country";

export interface ListEntryRow {
  list: ListName;
  policy: string | null;
  kind: EntryKind;
  value: string;
  reason: string | null;
  expires_at: string | null;
  created_at: string;
  updated_at: string;
  expired: boolean;
}

export interface LoadedEntry {
  list: ListName;
  policy: string | null;
  kind: EntryKind;
  value: string;
  reason: string | null;
  /** Remaining lifetime on the database's clock (null: no expiry). */
  expires_in_ms: number | null;
}

export interface EntryInput {
  list: ListName;
  policy: string | null;
  kind: EntryKind;
  value: string;
  reason: string | null;
  expires_at: string | null;
}

/** Creates or replaces one entry, with its audit row. */
export async function putEntry(
  db: Queryable,
  e: EntryInput,
  audit: AuditEntry,
): Promise<{ status: "created" | "updated" | "no_policy" | "invalid"; entry?: ListEntryRow }> {
  const q = audited(
    "SELECT admit_ratelimit_list_put($1, $2, $3, $4, $5, $6::timestamptz) AS r",
    [e.list, e.policy, e.kind, e.value, e.reason, e.expires_at],
    "(c.r->>'status') IN ('created', 'updated')",
    audit,
  );
  const [{ r }] = await db.query<{ r: { status: "created" | "updated" | "no_policy" | "invalid"; entry?: ListEntryRow } }>(q.text, q.params, { write: true });
  return r;
}

/** Deletes one entry, with its audit row when one was removed; false when there was none. */
export async function deleteEntry(db: Queryable, list: ListName, policy: string | null, kind: EntryKind, value: string, audit: AuditEntry): Promise<boolean> {
  const q = audited("SELECT admit_ratelimit_list_delete($1, $2, $3, $4) AS r", [list, policy, kind, value], "c.r", audit);
  const [{ r }] = await db.query<{ r: boolean }>(q.text, q.params, { write: true });
  return r;
}

/** Entries of `list` after the (policy or '', kind, value) cursor, up to `limit` + 1, within `names` (LIKE patterns; null: all, global included). */
export async function listEntries(
  db: Queryable,
  list: ListName,
  policy: string | null,
  after: string[] | null,
  limit: number,
  names: string[] | null,
): Promise<ListEntryRow[]> {
  const [{ r }] = await db.query<{ r: ListEntryRow[] }>("SELECT admit_ratelimit_list_page($1, $2, $3::text[], $4::integer, $5::text[]) AS r", [
    list,
    policy,
    after,
    limit,
    names,
  ]);
  return r;
}

/** Every live entry, on a database handle of its own (shared by every check waiting for the load). */
export async function loadLists(env: Bindings): Promise<LoadedEntry[]> {
  const db = new RequestDb(env);
  try {
    const [{ r }] = await db.query<{ r: LoadedEntry[] }>("SELECT admit_ratelimit_lists_load() AS r", []);
    return r;
  } finally {
    await db.close();
  }
}
