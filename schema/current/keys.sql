-- GENERATED FILE: DO NOT EDIT.
--
-- The keys part of the schema that applying schema/NNNNNN_*.sql in order produces, built from
-- the catalogs of a freshly migrated database by `npm run schema:dump` (dev/schema-dump.ts), which
-- files each object by its name (AREAS there). It is for reading only: it is never applied, and a
-- change to the schema goes in a new numbered migration, after which `npm run schema:dump` rewrites
-- these files. test/schema/schema.dump.test.ts fails while one is out of date.
--
-- Left out: admit_migrations (the migrator's bookkeeping, created by tools/migrate.ts, not by a
-- migration), the members of extensions, ownership and privileges.

-- Tables, each with its indexes (those not backing a constraint) and triggers

CREATE TABLE admit_audit (
  id bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
  at timestamp with time zone DEFAULT now() NOT NULL,
  key_id uuid,
  key_name text NOT NULL,
  action text NOT NULL,
  target text NOT NULL,
  change jsonb NOT NULL,
  expires_at timestamp with time zone NOT NULL,
  CONSTRAINT admit_audit_pkey PRIMARY KEY (id)
);
COMMENT ON TABLE admit_audit IS 'The audit log: every configuration write, by whom, written in the same statement as the change or not at all.';
CREATE INDEX admit_audit_by_at ON public.admit_audit USING btree (at, id);
CREATE INDEX admit_audit_by_expiry ON public.admit_audit USING btree (expires_at);
CREATE INDEX admit_audit_by_key ON public.admit_audit USING btree (key_id, at, id);
CREATE INDEX admit_audit_by_target ON public.admit_audit USING btree (target, at, id);

CREATE TABLE admit_key_secrets (
  hash bytea NOT NULL,
  key_id uuid NOT NULL,
  start text NOT NULL,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  expires_at timestamp with time zone,
  CONSTRAINT admit_key_secrets_pkey PRIMARY KEY (hash),
  CONSTRAINT admit_key_secrets_key_id_fkey FOREIGN KEY (key_id) REFERENCES admit_keys(id) ON DELETE CASCADE,
  CONSTRAINT admit_key_secrets_hash_check CHECK ((length(hash) = 32))
);
COMMENT ON TABLE admit_key_secrets IS 'The hashes of each key''s secrets (never the secrets), each with its own expiry so a rotation overlaps.';
CREATE INDEX admit_key_secrets_by_key ON public.admit_key_secrets USING btree (key_id);

CREATE TABLE admit_keys (
  id uuid DEFAULT gen_random_uuid() NOT NULL,
  name text NOT NULL,
  scopes text[] NOT NULL,
  names text[],
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  expires_at timestamp with time zone,
  revoked_at timestamp with time zone,
  last_used_at timestamp with time zone,
  lookups bigint DEFAULT 0 NOT NULL,
  made_by uuid,
  CONSTRAINT admit_keys_pkey PRIMARY KEY (id),
  CONSTRAINT admit_keys_made_by_fkey FOREIGN KEY (made_by) REFERENCES admit_keys(id) ON DELETE SET NULL,
  CONSTRAINT admit_keys_name_check CHECK (((length(name) >= 1) AND (length(name) <= 200))),
  CONSTRAINT admit_keys_names_check CHECK (((names IS NULL) OR ((cardinality(names) >= 1) AND (cardinality(names) <= 64)))),
  CONSTRAINT admit_keys_scopes_check CHECK (((cardinality(scopes) >= 1) AND (cardinality(scopes) <= 64)))
);
COMMENT ON TABLE admit_keys IS 'Scoped API keys: name, scopes, name patterns, expiry and revocation; the secrets are in admit_key_secrets.';
CREATE INDEX admit_keys_by_maker ON public.admit_keys USING btree (made_by) WHERE (made_by IS NOT NULL);

-- Functions

CREATE OR REPLACE FUNCTION public.admit_audit_list(p_target text, p_key text, p_from timestamp with time zone, p_to timestamp with time zone, p_before_at timestamp with time zone, p_before_id bigint, p_limit integer, p_names text[])
 RETURNS jsonb
 LANGUAGE sql
 STABLE
AS $function$
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
$function$;
COMMENT ON FUNCTION admit_audit_list(p_target text, p_key text, p_from timestamp with time zone, p_to timestamp with time zone, p_before_at timestamp with time zone, p_before_id bigint, p_limit integer, p_names text[]) IS 'The audit log newest first, filtered by target, key (an id, root or binding) and time, after an (at, id) cursor; a name-limited key sees only rows on what it may see.';

CREATE OR REPLACE FUNCTION public.admit_audit_write(p_entry jsonb)
 RETURNS boolean
 LANGUAGE sql
AS $function$
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
$function$;
COMMENT ON FUNCTION admit_audit_write(p_entry jsonb) IS 'Writes one audit row; returns true so a statement can call it beside its change.';

CREATE OR REPLACE FUNCTION public.admit_key_create(p_entry jsonb, p_maker uuid, p_name text, p_scopes text[], p_names text[], p_expires_at timestamp with time zone, p_hash bytea, p_start text)
 RETURNS jsonb
 LANGUAGE plpgsql
AS $function$
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
$function$;
COMMENT ON FUNCTION admit_key_create(p_entry jsonb, p_maker uuid, p_name text, p_scopes text[], p_names text[], p_expires_at timestamp with time zone, p_hash bytea, p_start text) IS 'Creates a key with its first secret and the audit row, in one statement; a key made by a key never expires after its maker, which must be live by the database clock.';

CREATE OR REPLACE FUNCTION public.admit_key_json(k admit_keys)
 RETURNS jsonb
 LANGUAGE sql
 STABLE
AS $function$
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
$function$;
COMMENT ON FUNCTION admit_key_json(k admit_keys) IS 'A key''s public shape: never a hash.';

CREATE OR REPLACE FUNCTION public.admit_key_list(p_after_at timestamp with time zone, p_after_id uuid, p_limit integer, p_names text[])
 RETURNS jsonb
 LANGUAGE sql
 STABLE
AS $function$
  SELECT coalesce(jsonb_agg(admit_key_json(k) ORDER BY k.created_at, k.id), '[]'::jsonb)
    FROM (SELECT * FROM admit_keys
           WHERE (p_after_at IS NULL OR (created_at, id) > (p_after_at, p_after_id))
             AND admit_key_visible(names, p_names)
           ORDER BY created_at, id
           LIMIT p_limit + 1) k
$function$;
COMMENT ON FUNCTION admit_key_list(p_after_at timestamp with time zone, p_after_id uuid, p_limit integer, p_names text[]) IS 'Keys by creation, after a cursor; a name-limited key sees only the keys it could have made.';

CREATE OR REPLACE FUNCTION public.admit_key_live_maker(p_maker uuid)
 RETURNS admit_keys
 LANGUAGE plpgsql
AS $function$
DECLARE
  m admit_keys;
BEGIN
  SELECT * INTO m FROM admit_keys WHERE id = p_maker FOR SHARE;
  IF NOT FOUND OR m.revoked_at IS NOT NULL OR m.expires_at <= now() THEN
    RETURN NULL;
  END IF;
  RETURN m;
END
$function$;
COMMENT ON FUNCTION admit_key_live_maker(p_maker uuid) IS 'The maker key, share-locked, when it is neither revoked nor expired by the database clock; NULL otherwise.';

CREATE OR REPLACE FUNCTION public.admit_key_lookup(p_hash bytea)
 RETURNS jsonb
 LANGUAGE plpgsql
AS $function$
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
$function$;
COMMENT ON FUNCTION admit_key_lookup(p_hash bytea) IS 'What an isolate caches for a secret''s hash, or NULL (unknown, revoked and expired alike), and how long it stays valid by the database clock.';

CREATE OR REPLACE FUNCTION public.admit_key_revoke(p_entry jsonb, p_id uuid)
 RETURNS jsonb
 LANGUAGE plpgsql
AS $function$
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
$function$;
COMMENT ON FUNCTION admit_key_revoke(p_entry jsonb, p_id uuid) IS 'Revokes a key, every secret at once, and every key it made, down the line, each with its audit row; revoking twice changes nothing.';

CREATE OR REPLACE FUNCTION public.admit_key_rotate(p_entry jsonb, p_maker uuid, p_id uuid, p_hash bytea, p_start text, p_overlap_ms bigint)
 RETURNS jsonb
 LANGUAGE plpgsql
AS $function$
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
$function$;
COMMENT ON FUNCTION admit_key_rotate(p_entry jsonb, p_maker uuid, p_id uuid, p_hash bytea, p_start text, p_overlap_ms bigint) IS 'A new secret for a key; its live secrets end after the overlap. A maker key may rotate only keys that expire no later than itself.';

CREATE OR REPLACE FUNCTION public.admit_key_visible(p_key_names text[], p_names text[])
 RETURNS boolean
 LANGUAGE sql
 IMMUTABLE
AS $function$
  SELECT p_names IS NULL
      OR (p_key_names IS NOT NULL AND NOT EXISTS (SELECT 1 FROM unnest(p_key_names) n WHERE NOT (n LIKE ANY (p_names))))
$function$;
COMMENT ON FUNCTION admit_key_visible(p_key_names text[], p_names text[]) IS 'Whether a key whose name patterns are p_key_names is visible to a key limited to p_names: each of its patterns lies within one of those.';

CREATE OR REPLACE FUNCTION public.admit_sweep_audit()
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
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
$function$;
COMMENT ON FUNCTION admit_sweep_audit() IS 'Sweeper: deletes audit rows past their retention and secrets whose overlap ended, a bounded batch.';
