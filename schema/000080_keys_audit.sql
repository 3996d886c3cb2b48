-- Scoped API keys and the audit log (issue 29). docs/keys.md.
--
-- A key is an identity (name, scopes, name patterns, expiry, revocation) with one or two secrets:
-- one normally, two while a rotation's overlap lasts. Only a secret's SHA-256 is stored, never the
-- secret: a secret is 32 random bytes (256 bits), so no dictionary or brute force can find a
-- preimage and a slow password hash (bcrypt, argon2) would buy nothing but CPU on every cache miss.
-- The Worker hashes; the secret never reaches Postgres.
--
-- Every configuration write records one admit_audit row in the same statement as the change (the
-- keys' own functions below write it themselves; the other capabilities' calls are wrapped by
-- functions/core/audit.ts in one statement with admit_audit_write()). Decisions are not audited.

CREATE TABLE admit_keys (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  scopes text[] NOT NULL CHECK (cardinality(scopes) BETWEEN 1 AND 64),
  -- NULL: any name; else the patterns ('*' = any run of characters) a named thing must match.
  names text[] CHECK (names IS NULL OR cardinality(names) BETWEEN 1 AND 64),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz,
  revoked_at timestamptz,
  -- Set when an isolate looks the key up (at most once per key per isolate per cache period, 5 s).
  last_used_at timestamptz,
  -- How many look-ups reached Postgres: what the per-isolate cache saves is visible here.
  lookups bigint NOT NULL DEFAULT 0
);

CREATE TABLE admit_key_secrets (
  hash bytea PRIMARY KEY CHECK (length(hash) = 32),
  key_id uuid NOT NULL REFERENCES admit_keys (id) ON DELETE CASCADE,
  -- The secret's first characters ('admit_' and 6 more): enough to tell keys apart, nothing to guess from.
  start text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  -- NULL while it is the key's current secret; a rotation sets the old one's end of overlap.
  expires_at timestamptz
);
CREATE INDEX admit_key_secrets_by_key ON admit_key_secrets (key_id);

CREATE TABLE admit_audit (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at timestamptz NOT NULL DEFAULT now(),
  -- NULL key_id with key_name 'root': the API_TOKEN.
  key_id uuid,
  key_name text NOT NULL,
  action text NOT NULL,
  target text NOT NULL,
  change jsonb NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX admit_audit_by_at ON admit_audit (at, id);
CREATE INDEX admit_audit_by_target ON admit_audit (target, at, id);
CREATE INDEX admit_audit_by_key ON admit_audit (key_id, at, id);
CREATE INDEX admit_audit_by_expiry ON admit_audit (expires_at);

-- One audit row: p_entry is {"actor": {"id", "name"}, "action", "target", "change", "keep_days"}
-- as functions/core/audit.ts builds it. Returns true, so a statement can call it in a CASE.
CREATE FUNCTION admit_audit_write(p_entry jsonb) RETURNS boolean
LANGUAGE sql AS $$
  INSERT INTO admit_audit (key_id, key_name, action, target, change, expires_at)
  VALUES (
    (p_entry->'actor'->>'id')::uuid,
    p_entry->'actor'->>'name',
    p_entry->>'action',
    p_entry->>'target',
    coalesce(p_entry->'change', '{}'::jsonb),
    now() + make_interval(days => coalesce((p_entry->>'keep_days')::integer, 90))
  );
  SELECT true
$$;

-- A key as GET /v1/keys shows it: never a hash. `starts` lists the live secrets' first characters.
CREATE FUNCTION admit_key_json(k admit_keys) RETURNS jsonb
LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object(
    'id', k.id, 'name', k.name, 'scopes', to_jsonb(k.scopes), 'names', to_jsonb(k.names),
    'created_at', k.created_at, 'expires_at', k.expires_at, 'revoked_at', k.revoked_at, 'last_used_at', k.last_used_at,
    'secrets', coalesce((
      SELECT jsonb_agg(jsonb_build_object('start', s.start, 'created_at', s.created_at, 'expires_at', s.expires_at) ORDER BY s.created_at)
        FROM admit_key_secrets s
       WHERE s.key_id = k.id AND (s.expires_at IS NULL OR s.expires_at > now())
    ), '[]'::jsonb)
  )
$$;

-- Creates a key with its first secret and the audit row, in one statement.
CREATE FUNCTION admit_key_create(p_entry jsonb, p_name text, p_scopes text[], p_names text[], p_expires_at timestamptz, p_hash bytea, p_start text)
RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  k admit_keys;
BEGIN
  INSERT INTO admit_keys (name, scopes, names, expires_at) VALUES (p_name, p_scopes, p_names, p_expires_at) RETURNING * INTO k;
  INSERT INTO admit_key_secrets (hash, key_id, start) VALUES (p_hash, k.id, p_start);
  PERFORM admit_audit_write(p_entry || jsonb_build_object('target', k.id::text, 'change',
    jsonb_build_object('name', p_name, 'scopes', to_jsonb(p_scopes), 'names', to_jsonb(p_names), 'expires_at', p_expires_at, 'start', p_start)));
  RETURN admit_key_json(k);
END
$$;

-- Revokes a key (every secret of it at once); NULL when there is no such key. Revoking a revoked key
-- changes nothing and writes no audit row.
CREATE FUNCTION admit_key_revoke(p_entry jsonb, p_id uuid) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  k admit_keys;
BEGIN
  UPDATE admit_keys SET revoked_at = now() WHERE id = p_id AND revoked_at IS NULL RETURNING * INTO k;
  IF NOT FOUND THEN
    SELECT * INTO k FROM admit_keys WHERE id = p_id;
    RETURN CASE WHEN FOUND THEN admit_key_json(k) END;
  END IF;
  PERFORM admit_audit_write(p_entry || jsonb_build_object('target', k.id::text, 'change', jsonb_build_object('revoked_at', k.revoked_at)));
  RETURN admit_key_json(k);
END
$$;

-- A new secret for a key; its live secrets end after p_overlap_ms (0: at once). NULL when there is
-- no such key, or it is revoked or expired ({"status": "gone"}).
CREATE FUNCTION admit_key_rotate(p_entry jsonb, p_id uuid, p_hash bytea, p_start text, p_overlap_ms bigint) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  k admit_keys;
  v_until timestamptz := now() + make_interval(secs => p_overlap_ms / 1000.0);
BEGIN
  SELECT * INTO k FROM admit_keys WHERE id = p_id FOR UPDATE;
  IF NOT FOUND THEN
    RETURN NULL;
  END IF;
  IF k.revoked_at IS NOT NULL OR k.expires_at <= now() THEN
    RETURN jsonb_build_object('status', 'gone');
  END IF;
  UPDATE admit_key_secrets SET expires_at = least(coalesce(expires_at, v_until), v_until)
   WHERE key_id = p_id AND (expires_at IS NULL OR expires_at > now());
  INSERT INTO admit_key_secrets (hash, key_id, start) VALUES (p_hash, p_id, p_start);
  PERFORM admit_audit_write(p_entry || jsonb_build_object('target', k.id::text, 'change',
    jsonb_build_object('start', p_start, 'old_secrets_expire_at', v_until)));
  RETURN jsonb_build_object('status', 'rotated', 'key', admit_key_json(k), 'old_secrets_expire_at', v_until);
END
$$;

-- What the Worker's cache holds for a secret's hash, or NULL: unknown, revoked and expired alike.
-- valid_ms: how long it stays valid by the database's clock (NULL: no end). Counts the look-up.
CREATE FUNCTION admit_key_lookup(p_hash bytea) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  v jsonb;
BEGIN
  UPDATE admit_keys k SET last_used_at = now(), lookups = k.lookups + 1
    FROM admit_key_secrets s
   WHERE s.hash = p_hash AND s.key_id = k.id
     AND k.revoked_at IS NULL
     AND (k.expires_at IS NULL OR k.expires_at > now())
     AND (s.expires_at IS NULL OR s.expires_at > now())
  RETURNING jsonb_build_object(
    'id', k.id, 'name', k.name, 'scopes', to_jsonb(k.scopes), 'names', to_jsonb(k.names),
    'valid_ms', floor(extract(epoch FROM (least(k.expires_at, s.expires_at) - now())) * 1000)::bigint
  ) INTO v;
  RETURN v;
END
$$;

-- Keys by created_at, id after the cursor (at most p_limit + 1).
CREATE FUNCTION admit_key_list(p_after_at timestamptz, p_after_id uuid, p_limit integer) RETURNS jsonb
LANGUAGE sql STABLE AS $$
  SELECT coalesce(jsonb_agg(admit_key_json(k) ORDER BY k.created_at, k.id), '[]'::jsonb)
    FROM (SELECT * FROM admit_keys
           WHERE p_after_at IS NULL OR (created_at, id) > (p_after_at, p_after_id)
           ORDER BY created_at, id
           LIMIT p_limit + 1) k
$$;

-- The audit log, newest first, filtered by target, key (a key id, or 'root') and [p_from, p_to);
-- keyset on (at, id) descending.
CREATE FUNCTION admit_audit_list(p_target text, p_key text, p_from timestamptz, p_to timestamptz, p_before_at timestamptz, p_before_id bigint, p_limit integer)
RETURNS jsonb
LANGUAGE sql STABLE AS $$
  SELECT coalesce(jsonb_agg(jsonb_build_object(
           'id', a.id, 'at', a.at, 'key', jsonb_build_object('id', a.key_id, 'name', a.key_name),
           'action', a.action, 'target', a.target, 'change', a.change) ORDER BY a.at DESC, a.id DESC), '[]'::jsonb)
    FROM (SELECT * FROM admit_audit
           WHERE (p_target IS NULL OR target = p_target)
             AND (p_key IS NULL OR (p_key = 'root' AND key_id IS NULL) OR key_id::text = p_key)
             AND (p_from IS NULL OR at >= p_from)
             AND (p_to IS NULL OR at < p_to)
             AND (p_before_at IS NULL OR (at, id) < (p_before_at, p_before_id))
           ORDER BY at DESC, id DESC
           LIMIT p_limit + 1) a
$$;

-- Retention: audit rows past their expires_at (now() + AUDIT_RETENTION_DAYS when written, default
-- 90 days), and secrets whose rotation overlap ended more than a day ago, in batches.
CREATE FUNCTION admit_sweep_audit() RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  v_audit integer;
  v_secrets integer;
BEGIN
  WITH old AS (
    SELECT id FROM admit_audit WHERE expires_at < now() ORDER BY expires_at LIMIT 10000 FOR UPDATE SKIP LOCKED
  )
  DELETE FROM admit_audit a USING old WHERE a.id = old.id;
  GET DIAGNOSTICS v_audit = ROW_COUNT;
  WITH old AS (
    SELECT hash FROM admit_key_secrets WHERE expires_at < now() - interval '1 day' LIMIT 10000 FOR UPDATE SKIP LOCKED
  )
  DELETE FROM admit_key_secrets s USING old WHERE s.hash = old.hash;
  GET DIAGNOSTICS v_secrets = ROW_COUNT;
  RETURN v_audit + v_secrets;
END
$$;
