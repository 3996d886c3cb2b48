// The keys capability's SQL: the only file naming admit_key_* and admit_audit_list.
import type { AuditEntry } from "../core/audit";
import type { Queryable } from "../core/db";

export interface KeyRow {
  id: string;
  name: string;
  scopes: string[];
  names: string[] | null;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  made_by: string | null;
  secrets: Array<{ start: string; created_at: string; expires_at: string | null }>;
}

export interface AuditRow {
  id: number;
  at: string;
  key: { id: string | null; name: string };
  action: string;
  target: string;
  change: Record<string, unknown>;
}

/** Refusals of a key's own bounds (schema/000112_keys_made_by.sql): the key asking is revoked or expired, or ends before what it asked for. */
export type MakerRefusal = { status: "maker-gone" } | { status: "beyond-maker"; maker_expires_at: string };

export type CreateResult = { status: "created"; key: KeyRow } | MakerRefusal;

/** maker: the key making it (null: the root token); the new key never outlives it. */
export async function createKey(
  db: Queryable,
  audit: AuditEntry,
  k: { maker: string | null; name: string; scopes: string[]; names: string[] | null; expiresAt: string | null; hash: string; start: string },
): Promise<CreateResult> {
  const [{ r }] = await db.query<{ r: CreateResult }>(
    "SELECT admit_key_create($1::jsonb, $2::uuid, $3, $4::text[], $5::text[], $6::timestamptz, $7::bytea, $8) AS r",
    [JSON.stringify(audit), k.maker, k.name, k.scopes, k.names, k.expiresAt, k.hash, k.start],
    { write: true },
  );
  return r;
}

/** The key, or null when there is none, or (`names`: a caller's LIKE patterns; null: all) when its patterns are not within them. */
export async function getKey(db: Queryable, id: string, names: string[] | null): Promise<KeyRow | null> {
  const [row] = await db.query<{ r: KeyRow }>(
    "SELECT admit_key_json(k) AS r FROM admit_keys k WHERE k.id = $1::uuid AND admit_key_visible(k.names, $2::text[])",
    [id, names],
  );
  return row?.r ?? null;
}

/** Keys after the (created_at, id) cursor whose patterns are within `names` (LIKE patterns; null: all keys), at most limit + 1. */
export async function listKeys(db: Queryable, after: { at: string; id: string } | null, limit: number, names: string[] | null): Promise<KeyRow[]> {
  const [{ r }] = await db.query<{ r: KeyRow[] }>("SELECT admit_key_list($1::timestamptz, $2::uuid, $3::integer, $4::text[]) AS r", [
    after?.at ?? null,
    after?.id ?? null,
    limit,
    names,
  ]);
  return r;
}

/** The key after revocation and the ids of the keys it made (directly or not) revoked with it; null when there is none. */
export async function revokeKey(db: Queryable, audit: AuditEntry, id: string): Promise<{ key: KeyRow; also_revoked: string[] } | null> {
  const [{ r }] = await db.query<{ r: { key: KeyRow; also_revoked: string[] } | null }>(
    "SELECT admit_key_revoke($1::jsonb, $2::uuid) AS r",
    [JSON.stringify(audit), id],
    { write: true },
  );
  return r;
}

export type RotateResult = null | { status: "gone" } | MakerRefusal | { status: "rotated"; key: KeyRow; old_secrets_expire_at: string };

/** maker: the key asking (null: the root token); another key may rotate only keys that end no later than it does. */
export async function rotateKey(
  db: Queryable,
  audit: AuditEntry,
  maker: string | null,
  id: string,
  hash: string,
  start: string,
  overlapMs: number,
): Promise<RotateResult> {
  const [{ r }] = await db.query<{ r: RotateResult }>(
    "SELECT admit_key_rotate($1::jsonb, $2::uuid, $3::uuid, $4::bytea, $5, $6::bigint) AS r",
    [JSON.stringify(audit), maker, id, hash, start, overlapMs],
    { write: true },
  );
  return r;
}

/**
 * Audit rows, newest first, before the (at, id) cursor, at most limit + 1; with `names` (a caller's
 * LIKE patterns; null: all), only rows on a name they match or on a key whose patterns are within them.
 */
export async function listAudit(
  db: Queryable,
  f: { target: string | null; key: string | null; from: string | null; to: string | null },
  before: { at: string; id: string } | null,
  limit: number,
  names: string[] | null,
): Promise<AuditRow[]> {
  const [{ r }] = await db.query<{ r: AuditRow[] }>(
    "SELECT admit_audit_list($1, $2, $3::timestamptz, $4::timestamptz, $5::timestamptz, $6::bigint, $7::integer, $8::text[]) AS r",
    [f.target, f.key, f.from, f.to, before?.at ?? null, before?.id ?? null, limit, names],
  );
  return r;
}
