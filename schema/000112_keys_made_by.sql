-- A key made by a key never outlives it (docs/keys.md, "Keys made by keys").
--
-- admit_keys.made_by is the key that created it (NULL: the root token). By the database's clock,
-- in the statement that makes the key:
--   * the maker must be live (not revoked, not expired): an isolate's cache may believe a revoked
--     or expired maker for up to 5 s, and a key made in that window would outlive its maker;
--   * the new key's expires_at is at most the maker's: an omitted expiry becomes the maker's, a
--     later one is refused ({"status": "beyond-maker"}, a 422 naming expires_at): a time the caller
--     asked for is never silently shortened;
--   * revoking a key revokes every key it made, and theirs, in the same statement (each with its
--     audit row): a leaked key's revocation must not leave behind the keys it was used to make.
-- The lineage is the maker's id, not its secret: rotating the maker keeps both the bound and the
-- cascade. A key that rotates another key (not itself) hands its caller the new secret, so it may
-- rotate only keys that end no later than it does, as it could only have made those.
--
-- Keys made before this migration have made_by NULL (the audit log may no longer say who made
-- them): they keep their expiry and are not revoked with a maker.

ALTER TABLE admit_keys ADD COLUMN made_by uuid REFERENCES admit_keys (id) ON DELETE SET NULL;
CREATE INDEX admit_keys_by_maker ON admit_keys (made_by) WHERE made_by IS NOT NULL;

CREATE OR REPLACE FUNCTION admit_key_json(k admit_keys) RETURNS jsonb
LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object(
    'id', k.id, 'name', k.name, 'scopes', to_jsonb(k.scopes), 'names', to_jsonb(k.names),
    'created_at', k.created_at, 'expires_at', k.expires_at, 'revoked_at', k.revoked_at, 'last_used_at', k.last_used_at,
    'made_by', k.made_by,
    'secrets', coalesce((
      SELECT jsonb_agg(jsonb_build_object('start', s.start, 'created_at', s.created_at, 'expires_at', s.expires_at) ORDER BY s.created_at)
        FROM admit_key_secrets s
       WHERE s.key_id = k.id AND (s.expires_at IS NULL OR s.expires_at > now())
    ), '[]'::jsonb)
  )
$$;

-- The maker p_maker, share-locked until the end of the transaction (so its revocation waits for
-- this statement, then sees what it made), if it is live by the database's clock; NULL otherwise.
CREATE FUNCTION admit_key_live_maker(p_maker uuid) RETURNS admit_keys
LANGUAGE plpgsql AS $$
DECLARE
  m admit_keys;
BEGIN
  SELECT * INTO m FROM admit_keys WHERE id = p_maker FOR SHARE;
  IF NOT FOUND OR m.revoked_at IS NOT NULL OR m.expires_at <= now() THEN
    RETURN NULL;
  END IF;
  RETURN m;
END
$$;

DROP FUNCTION admit_key_create(jsonb, text, text[], text[], timestamptz, bytea, text);

-- Creates a key with its first secret and the audit row, in one statement. p_maker: the key making
-- it (NULL: the root token). {"status": "created", "key"}, or "maker-gone" (the maker is revoked
-- or expired), or "beyond-maker" with "maker_expires_at" (p_expires_at is later than the maker's).
CREATE FUNCTION admit_key_create(p_entry jsonb, p_maker uuid, p_name text, p_scopes text[], p_names text[], p_expires_at timestamptz, p_hash bytea, p_start text)
RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  m admit_keys;
  k admit_keys;
  v_expires timestamptz := p_expires_at;
BEGIN
  IF p_maker IS NOT NULL THEN
    m := admit_key_live_maker(p_maker);
    IF m.id IS NULL THEN
      RETURN jsonb_build_object('status', 'maker-gone');
    END IF;
    IF m.expires_at IS NOT NULL THEN
      IF v_expires IS NULL THEN
        v_expires := m.expires_at;
      ELSIF v_expires > m.expires_at THEN
        RETURN jsonb_build_object('status', 'beyond-maker', 'maker_expires_at', m.expires_at);
      END IF;
    END IF;
  END IF;
  INSERT INTO admit_keys (name, scopes, names, expires_at, made_by) VALUES (p_name, p_scopes, p_names, v_expires, p_maker) RETURNING * INTO k;
  INSERT INTO admit_key_secrets (hash, key_id, start) VALUES (p_hash, k.id, p_start);
  PERFORM admit_audit_write(p_entry || jsonb_build_object('target', k.id::text, 'change',
    jsonb_build_object('name', p_name, 'scopes', to_jsonb(p_scopes), 'names', to_jsonb(p_names), 'expires_at', v_expires, 'start', p_start)));
  RETURN jsonb_build_object('status', 'created', 'key', admit_key_json(k));
END
$$;

DROP FUNCTION admit_key_revoke(jsonb, uuid);

-- Revokes a key and every key it made, directly or not (every secret of each at once), with one
-- audit row per key revoked (a made key's change names the key revoked: "revoked_with"). NULL when
-- there is no such key, else {"key", "also_revoked": [ids]}. Revoking a revoked key changes only
-- what it made that is still live. The key's row is updated first: a creation by it holds that row
-- share-locked, so the revocation waits for it; each round of made keys is a statement of its own
-- (a new snapshot under READ COMMITTED), so a key made by a made key while the previous round
-- waited is found by the next round.
CREATE FUNCTION admit_key_revoke(p_entry jsonb, p_id uuid) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  k admit_keys;
  v_round uuid[] := ARRAY[p_id];
  v_all uuid[] := '{}';
BEGIN
  UPDATE admit_keys SET revoked_at = now() WHERE id = p_id AND revoked_at IS NULL RETURNING * INTO k;
  IF FOUND THEN
    PERFORM admit_audit_write(p_entry || jsonb_build_object('target', k.id::text, 'change', jsonb_build_object('revoked_at', k.revoked_at)));
  ELSE
    SELECT * INTO k FROM admit_keys WHERE id = p_id;
    IF NOT FOUND THEN
      RETURN NULL;
    END IF;
  END IF;
  LOOP
    WITH r AS (
      UPDATE admit_keys SET revoked_at = now() WHERE made_by = ANY (v_round) AND revoked_at IS NULL RETURNING id
    )
    SELECT coalesce(array_agg(id ORDER BY id), '{}') INTO v_round FROM r;
    EXIT WHEN cardinality(v_round) = 0;
    v_all := v_all || v_round;
    PERFORM admit_audit_write(p_entry || jsonb_build_object('target', made::text, 'change',
      jsonb_build_object('revoked_at', now(), 'revoked_with', p_id)))
      FROM unnest(v_round) AS made;
  END LOOP;
  RETURN jsonb_build_object('key', admit_key_json(k), 'also_revoked', to_jsonb(v_all));
END
$$;

DROP FUNCTION admit_key_rotate(jsonb, uuid, bytea, text, bigint);

-- A new secret for a key; its live secrets end after p_overlap_ms (0: at once). p_maker: the key
-- asking (NULL: the root token). NULL when there is no such key; {"status": "gone"} when it is
-- revoked or expired; "maker-gone" when the asking key (another key) is; "beyond-maker" with
-- "maker_expires_at" when the asking key (another key) ends before the rotated one does.
CREATE FUNCTION admit_key_rotate(p_entry jsonb, p_maker uuid, p_id uuid, p_hash bytea, p_start text, p_overlap_ms bigint) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  m admit_keys;
  k admit_keys;
  v_until timestamptz := now() + make_interval(secs => p_overlap_ms / 1000.0);
BEGIN
  -- A key rotating itself is checked as the rotated key below (and its row is locked only once).
  IF p_maker IS NOT NULL AND p_maker <> p_id THEN
    m := admit_key_live_maker(p_maker);
    IF m.id IS NULL THEN
      RETURN jsonb_build_object('status', 'maker-gone');
    END IF;
  END IF;
  SELECT * INTO k FROM admit_keys WHERE id = p_id FOR UPDATE;
  IF NOT FOUND THEN
    RETURN NULL;
  END IF;
  IF k.revoked_at IS NOT NULL OR k.expires_at <= now() THEN
    RETURN jsonb_build_object('status', 'gone');
  END IF;
  IF m.expires_at IS NOT NULL AND (k.expires_at IS NULL OR k.expires_at > m.expires_at) THEN
    RETURN jsonb_build_object('status', 'beyond-maker', 'maker_expires_at', m.expires_at);
  END IF;
  UPDATE admit_key_secrets SET expires_at = least(coalesce(expires_at, v_until), v_until)
   WHERE key_id = p_id AND (expires_at IS NULL OR expires_at > now());
  INSERT INTO admit_key_secrets (hash, key_id, start) VALUES (p_hash, p_id, p_start);
  PERFORM admit_audit_write(p_entry || jsonb_build_object('target', k.id::text, 'change',
    jsonb_build_object('start', p_start, 'old_secrets_expire_at', v_until)));
  RETURN jsonb_build_object('status', 'rotated', 'key', admit_key_json(k), 'old_secrets_expire_at', v_until);
END
$$;

-- The audit log's key filter: key=root and key=binding each find only their own rows. Neither the
-- root token nor the Service Binding writes a key id (core/audit.ts: actor name 'root' or 'binding').

-- The audit log, newest first, filtered by target, key (a key id; 'root': the API_TOKEN;
-- 'binding': the Service Binding, RPC) and [p_from, p_to), and for a name-limited key only the rows
-- on what it may see (p_names); keyset on (at, id) descending. The root token and the binding both
-- write no key id: their rows differ by key_name.
CREATE OR REPLACE FUNCTION admit_audit_list(p_target text, p_key text, p_from timestamptz, p_to timestamptz, p_before_at timestamptz, p_before_id bigint, p_limit integer,
                                            p_names text[])
RETURNS jsonb
LANGUAGE sql STABLE AS $$
  SELECT coalesce(jsonb_agg(jsonb_build_object(
           'id', a.id, 'at', a.at, 'key', jsonb_build_object('id', a.key_id, 'name', a.key_name),
           'action', a.action, 'target', a.target, 'change', a.change) ORDER BY a.at DESC, a.id DESC), '[]'::jsonb)
    FROM (SELECT * FROM admit_audit
           WHERE (p_target IS NULL OR target = p_target)
             AND (p_key IS NULL
                  OR (p_key IN ('root', 'binding') AND key_id IS NULL AND key_name = p_key)
                  OR key_id::text = p_key)
             AND (p_from IS NULL OR at >= p_from)
             AND (p_to IS NULL OR at < p_to)
             AND (p_before_at IS NULL OR (at, id) < (p_before_at, p_before_id))
             AND (p_names IS NULL
                  OR CASE WHEN starts_with(action, 'keys.')
                          THEN EXISTS (SELECT 1 FROM admit_keys k WHERE k.id::text = target AND admit_key_visible(k.names, p_names))
                          ELSE target LIKE ANY (p_names) END)
           ORDER BY at DESC, id DESC
           LIMIT p_limit + 1) a
$$;
