-- Idempotency-Key on every write (issue 6), after Brandur Leach's Postgres design: the stored
-- response commits in the same transaction as the request's effect, so a key either has its real
-- answer stored or nothing happened at all.
--
-- functions/idempotency/ wraps a keyed POST/PUT/DELETE in BEGIN … COMMIT:
--   1. admit_idempotency_claim() inserts the key (ON CONFLICT DO NOTHING). A concurrent request
--      with the same key blocks on the uncommitted unique entry until the first one commits
--      (→ replay) or rolls back (→ it claims the key itself), for at most lock_timeout (→ 409).
--   2. the route runs inside the same transaction (it joins it through c.var.db);
--   3. admit_idempotency_store() writes the response into the claimed row, then COMMIT.
-- A 5xx, a failed statement or a response not worth keeping rolls everything back instead.
-- So a committed row always carries its response.

CREATE TABLE idempotency_keys (
  key              text PRIMARY KEY,
  request_method   text NOT NULL,
  request_path     text NOT NULL,         -- path and query string
  request_hash     text NOT NULL,         -- sha256 (hex) of the raw request body
  response_status  integer,               -- NULL only inside the claiming transaction
  response_headers jsonb,
  response_body    bytea,                 -- the exact bytes sent
  created_at       timestamptz NOT NULL DEFAULT now(),
  expires_at       timestamptz NOT NULL,
  CONSTRAINT idempotency_keys_key_length CHECK (char_length(key) BETWEEN 1 AND 255)
);

CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);

-- Claims p_key for this transaction, or says what the key already holds:
--   {"outcome": "claimed"}                          run the request, then store its response
--   {"outcome": "replay", status, headers, body}    body is base64 of the stored bytes
--   {"outcome": "mismatch", method, path}           the key was used for another request
--   {"outcome": "in_progress"}                      another transaction holds the key past lock_timeout
-- An expired record (not yet swept) counts as absent.
CREATE FUNCTION admit_idempotency_claim(
  p_key text, p_method text, p_path text, p_hash text, p_ttl_s integer, p_lock_timeout_ms integer
) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  v_row idempotency_keys;
  v_n integer;
BEGIN
  PERFORM set_config('lock_timeout', p_lock_timeout_ms::text || 'ms', true);
  FOR attempt IN 1..3 LOOP
    BEGIN
      -- Blocks while another open transaction has inserted the same key; lock_timeout bounds it.
      INSERT INTO idempotency_keys (key, request_method, request_path, request_hash, expires_at)
      VALUES (p_key, p_method, p_path, p_hash, now() + make_interval(secs => p_ttl_s))
      ON CONFLICT (key) DO NOTHING;
      GET DIAGNOSTICS v_n = ROW_COUNT;
    EXCEPTION WHEN lock_not_available THEN
      RETURN json_build_object('outcome', 'in_progress');
    END;
    IF v_n = 1 THEN
      RETURN json_build_object('outcome', 'claimed');
    END IF;

    -- A fresh snapshot (READ COMMITTED, new statement) sees the committed holder of the key.
    SELECT * INTO v_row FROM idempotency_keys WHERE key = p_key;
    IF NOT FOUND THEN
      CONTINUE;  -- swept in between: claim again
    END IF;
    IF v_row.expires_at <= now() THEN
      DELETE FROM idempotency_keys WHERE key = p_key AND expires_at <= now();
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

-- Records the response of the request that claimed p_key in this transaction.
CREATE FUNCTION admit_idempotency_store(p_key text, p_status integer, p_headers jsonb, p_body_base64 text)
RETURNS void
LANGUAGE sql AS $$
  UPDATE idempotency_keys
     SET response_status = p_status, response_headers = p_headers, response_body = decode(p_body_base64, 'base64')
   WHERE key = p_key
$$;

-- Cron housekeeping: drop up to 10000 expired records; never waits on a key being re-claimed.
CREATE FUNCTION admit_sweep_idempotency() RETURNS integer
LANGUAGE sql AS $$
  WITH gone AS (
    DELETE FROM idempotency_keys
     WHERE key IN (SELECT key FROM idempotency_keys WHERE expires_at <= now()
                    ORDER BY expires_at LIMIT 10000 FOR UPDATE SKIP LOCKED)
    RETURNING 1
  )
  SELECT count(*)::integer FROM gone
$$;
