-- GENERATED FILE: DO NOT EDIT.
--
-- The idempotency part of the schema that applying schema/NNNNNN_*.sql in order produces, built from
-- the catalogs of a freshly migrated database by `npm run schema:dump` (dev/schema-dump.ts), which
-- files each object by its name (AREAS there). It is for reading only: it is never applied, and a
-- change to the schema goes in a new numbered migration, after which `npm run schema:dump` rewrites
-- these files. test/schema/schema.dump.test.ts fails while one is out of date.
--
-- Left out: admit_migrations (the migrator's bookkeeping, created by tools/migrate.ts, not by a
-- migration), the members of extensions, ownership and privileges.

-- Tables, each with its indexes (those not backing a constraint) and triggers

CREATE TABLE idempotency_keys (
  key text NOT NULL,
  request_method text NOT NULL,
  request_path text NOT NULL,
  request_hash text NOT NULL,
  response_status integer,
  response_headers jsonb,
  response_body bytea,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  expires_at timestamp with time zone NOT NULL,
  caller text NOT NULL,
  CONSTRAINT idempotency_keys_pkey PRIMARY KEY (caller, key),
  CONSTRAINT idempotency_keys_caller CHECK (((caller = ANY (ARRAY['root'::text, 'binding'::text, 'legacy'::text])) OR (caller ~ '^key:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'::text))),
  CONSTRAINT idempotency_keys_key_length CHECK (((char_length(key) >= 1) AND (char_length(key) <= 255)))
);
COMMENT ON TABLE idempotency_keys IS 'Idempotency records: a key''s request fingerprint and, once its transaction commits, the stored response replayed to a retry.';
CREATE INDEX idempotency_keys_expiry ON public.idempotency_keys USING btree (expires_at);

-- Functions

CREATE OR REPLACE FUNCTION public.admit_idempotency_claim(p_key text, p_method text, p_path text, p_hash text, p_ttl_s integer, p_lock_timeout_ms integer, p_caller text DEFAULT 'legacy'::text)
 RETURNS json
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_row idempotency_keys;
  v_n integer;
  v_since timestamptz;
BEGIN
  PERFORM set_config('lock_timeout', p_lock_timeout_ms::text || 'ms', true);
  FOR attempt IN 1..3 LOOP
    BEGIN
      -- Blocks while another open transaction of the same caller has inserted the same key; lock_timeout bounds it.
      INSERT INTO idempotency_keys (caller, key, request_method, request_path, request_hash, expires_at)
      VALUES (p_caller, p_key, p_method, p_path, p_hash, now() + make_interval(secs => p_ttl_s))
      ON CONFLICT (caller, key) DO NOTHING;
      GET DIAGNOSTICS v_n = ROW_COUNT;
    EXCEPTION WHEN lock_not_available THEN
      RETURN json_build_object('outcome', 'in_progress');
    END;
    IF v_n = 1 THEN
      IF p_caller <> 'legacy' THEN
        SELECT * INTO v_row FROM idempotency_keys
         WHERE caller = 'legacy' AND key = p_key AND expires_at > now() AND response_status IS NOT NULL
           AND request_method = p_method AND request_path = p_path AND request_hash = p_hash;
        IF FOUND THEN
          IF p_caller LIKE 'key:%' THEN
            SELECT created_at INTO v_since FROM admit_keys WHERE id = substr(p_caller, 5)::uuid;
          ELSE
            v_since := '-infinity';
          END IF;
          IF v_since <= v_row.created_at THEN
            DELETE FROM idempotency_keys WHERE caller = p_caller AND key = p_key;
            RETURN json_build_object('outcome', 'replay', 'status', v_row.response_status,
                                     'headers', v_row.response_headers, 'body', encode(v_row.response_body, 'base64'),
                                     'created_at', admit_rfc3339(v_row.created_at));
          END IF;
        END IF;
      END IF;
      RETURN json_build_object('outcome', 'claimed');
    END IF;

    -- A fresh snapshot (READ COMMITTED, new statement) sees the committed holder of the key.
    SELECT * INTO v_row FROM idempotency_keys WHERE caller = p_caller AND key = p_key;
    IF NOT FOUND THEN
      CONTINUE;  -- swept in between: claim again
    END IF;
    IF v_row.expires_at <= now() THEN
      DELETE FROM idempotency_keys WHERE caller = p_caller AND key = p_key AND expires_at <= now();
      CONTINUE;
    END IF;
    IF v_row.request_method <> p_method OR v_row.request_path <> p_path OR v_row.request_hash <> p_hash THEN
      RETURN json_build_object('outcome', 'mismatch', 'method', v_row.request_method, 'path', v_row.request_path,
                               'created_at', admit_rfc3339(v_row.created_at));
    END IF;
    IF v_row.response_status IS NULL THEN
      RETURN json_build_object('outcome', 'in_progress');
    END IF;
    RETURN json_build_object('outcome', 'replay', 'status', v_row.response_status,
                             'headers', v_row.response_headers, 'body', encode(v_row.response_body, 'base64'),
                             'created_at', admit_rfc3339(v_row.created_at));
  END LOOP;
  RETURN json_build_object('outcome', 'in_progress');
END
$function$;
COMMENT ON FUNCTION admit_idempotency_claim(p_key text, p_method text, p_path text, p_hash text, p_ttl_s integer, p_lock_timeout_ms integer, p_caller text) IS 'Claims an idempotency key for this transaction, or says what it holds: a stored response to replay, another request''s key, or one in progress.';

CREATE OR REPLACE FUNCTION public.admit_idempotency_release(p_key text, p_caller text DEFAULT 'legacy'::text)
 RETURNS void
 LANGUAGE sql
AS $function$
  DELETE FROM idempotency_keys WHERE caller = p_caller AND key = p_key AND response_status IS NULL
$function$;
COMMENT ON FUNCTION admit_idempotency_release(p_key text, p_caller text) IS 'Lets go of a key this transaction claimed, so a retry runs.';

CREATE OR REPLACE FUNCTION public.admit_idempotency_store(p_key text, p_status integer, p_headers jsonb, p_body_base64 text, p_caller text DEFAULT 'legacy'::text)
 RETURNS void
 LANGUAGE sql
AS $function$
  UPDATE idempotency_keys
     SET response_status = p_status, response_headers = p_headers, response_body = decode(p_body_base64, 'base64')
   WHERE caller = p_caller AND key = p_key
$function$;
COMMENT ON FUNCTION admit_idempotency_store(p_key text, p_status integer, p_headers jsonb, p_body_base64 text, p_caller text) IS 'Stores the response of the request that claimed the key in this transaction.';

CREATE OR REPLACE FUNCTION public.admit_sweep_idempotency()
 RETURNS integer
 LANGUAGE sql
AS $function$
  WITH gone AS (
    DELETE FROM idempotency_keys
     WHERE (caller, key) IN (SELECT caller, key FROM idempotency_keys WHERE expires_at <= now()
                              ORDER BY expires_at LIMIT 10000 FOR UPDATE SKIP LOCKED)
    RETURNING 1
  )
  SELECT count(*)::integer FROM gone
$function$;
COMMENT ON FUNCTION admit_sweep_idempotency() IS 'Sweeper: drops a bounded batch of expired records, never waiting on a key being claimed.';
