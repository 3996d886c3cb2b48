-- An Idempotency-Key belongs to the caller that sent it (docs/idempotency.md, "Whose key it is").
--
-- A key shared by every caller of the deployment would let a caller holding any write key replay
-- another caller's stored answer by sending its key and body, learn when and for which request another
-- caller used a key (the 422 names it), or use a guessable key (an order id) first and so block the
-- other caller's request. So each record carries its caller, and (caller, key) is its identity:
--   'root'        the API_TOKEN
--   'binding'     the RPC entrypoint (a Service Binding: one authority for every Worker bound to it)
--   'key:<uuid>'  a scoped key, by its id, which a rotation keeps (its secrets change, its id does not)
--   'legacy'      a record stored before callers were recorded, whose caller cannot be told (below)
--
-- The records stored before this migration say nothing of their caller. They are live (up to
-- IDEMPOTENCY_TTL_S, 24 h by default) and a client retrying one must still get its stored answer, or
-- the request would run twice. Each gets the caller it certainly had, where that can be told:
--   * request_method 'RPC': only the binding stores those (no HTTP request has that method);
--   * an HTTP record made before any key existed (admit_keys rows are never deleted, so none with
--     created_at at or before the record's): only the root token could have sent it.
-- The rest (an HTTP record made while keys existed: the root token's or any key's) is 'legacy'. A
-- legacy record is never claimed, blocked on or reported by another caller's request: a caller's
-- claim is in its own scope, and a legacy record whose request differs is passed over in silence
-- (no 422 naming it). It is replayed only to an identical request (same method, path and body hash)
-- from a caller that could have sent it: the root token, or a key that existed when it was stored —
-- and, as for every keyed request, only after that caller passed the route's scope and name checks.
-- That is what the record promised when it was stored (a retry gets the stored answer); it tells such
-- a caller nothing it did not send itself but the answer, as before this migration, and only until the
-- record expires. Nothing new is stored as 'legacy' except by a Worker still running the code from
-- before this migration (its calls have no caller argument: p_caller defaults to 'legacy', so such
-- a Worker keeps working, with the old shared keys, until it is replaced). Its records replay to the
-- new code as above once committed; a claim of its still running is not seen by the new code (a row
-- not yet committed is invisible and the new code claims in its own scope): a retry of such a request
-- sent to the new code while the first still runs on the old one may run it a second time, in the
-- minutes a deploy lasts.

ALTER TABLE idempotency_keys ADD COLUMN caller text NOT NULL DEFAULT 'legacy';
UPDATE idempotency_keys i
   SET caller = CASE WHEN i.request_method = 'RPC' THEN 'binding' ELSE 'root' END
 WHERE i.request_method = 'RPC'
    OR NOT EXISTS (SELECT 1 FROM admit_keys k WHERE k.created_at <= i.created_at);
ALTER TABLE idempotency_keys ALTER COLUMN caller DROP DEFAULT;
ALTER TABLE idempotency_keys
  DROP CONSTRAINT idempotency_keys_pkey,
  ADD CONSTRAINT idempotency_keys_pkey PRIMARY KEY (caller, key),
  ADD CONSTRAINT idempotency_keys_caller
    CHECK (caller IN ('root', 'binding', 'legacy') OR caller ~ '^key:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$');

-- Claims p_key for p_caller in this transaction, or says what the caller's key already holds, as
-- 000040's (claimed | replay | mismatch | in_progress), looking only at p_caller's own records; and,
-- for a key p_caller claims afresh, at a legacy record of the same key (see above).
DROP FUNCTION admit_idempotency_claim(text, text, text, text, integer, integer);
CREATE FUNCTION admit_idempotency_claim(
  p_key text, p_method text, p_path text, p_hash text, p_ttl_s integer, p_lock_timeout_ms integer, p_caller text DEFAULT 'legacy'
) RETURNS json
LANGUAGE plpgsql AS $$
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
$$;

-- Records the response of the request that claimed p_caller's p_key in this transaction.
DROP FUNCTION admit_idempotency_store(text, integer, jsonb, text);
CREATE FUNCTION admit_idempotency_store(p_key text, p_status integer, p_headers jsonb, p_body_base64 text, p_caller text DEFAULT 'legacy')
RETURNS void
LANGUAGE sql AS $$
  UPDATE idempotency_keys
     SET response_status = p_status, response_headers = p_headers, response_body = decode(p_body_base64, 'base64')
   WHERE caller = p_caller AND key = p_key
$$;

-- Lets go of p_caller's p_key, claimed by this transaction (as 000076's).
DROP FUNCTION admit_idempotency_release(text);
CREATE FUNCTION admit_idempotency_release(p_key text, p_caller text DEFAULT 'legacy') RETURNS void
LANGUAGE sql AS $$
  DELETE FROM idempotency_keys WHERE caller = p_caller AND key = p_key AND response_status IS NULL
$$;

-- Cron housekeeping, as 000040's: up to 10000 expired records; never waits on a key being re-claimed.
CREATE OR REPLACE FUNCTION admit_sweep_idempotency() RETURNS integer
LANGUAGE sql AS $$
  WITH gone AS (
    DELETE FROM idempotency_keys
     WHERE (caller, key) IN (SELECT caller, key FROM idempotency_keys WHERE expires_at <= now()
                              ORDER BY expires_at LIMIT 10000 FOR UPDATE SKIP LOCKED)
    RETURNING 1
  )
  SELECT count(*)::integer FROM gone
$$;
