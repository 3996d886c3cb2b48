-- Renew and release against the sweeper: never two live holders of one lease or slot.
--
-- 000020's renew/release checked the claim under the key's advisory lock, but their UPDATE matched the
-- row by id alone, and the sweeper marked expired claims without that lock. When the sweeper marked a
-- claim between the check and the UPDATE, renew gave a timed-out claim a future expiry ("renewed",
-- while the next acquire granted the slot again) and release wrote both ending columns (23514).
--
-- Now (a) every write re-checks in its own WHERE that the claim is still live, and answers
-- not_current when nothing changed; (b) the sweeper ends a key's claims only under that key's advisory
-- lock, tried and never waited for, so a request of the key in flight keeps its claim's fate and the
-- key is swept next time.

-- The advisory-lock key of functions/core/keys.ts lockKey(): FNV-1a 64 over the UTF-8 bytes, as a signed bigint.
CREATE FUNCTION admit_fnv64(p_text text) RETURNS bigint
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  b bytea := convert_to(p_text, 'UTF8');
  h numeric := 14695981039346656037;
  lo integer;
BEGIN
  FOR i IN 0 .. length(b) - 1 LOOP
    lo := (h % 256)::integer;
    h := (((h - lo) + (lo # get_byte(b, i))) * 1099511628211) % 18446744073709551616;
  END LOOP;
  IF h >= 9223372036854775808 THEN
    h := h - 18446744073709551616;
  END IF;
  RETURN h::bigint;
END
$$;

CREATE OR REPLACE FUNCTION admit_permit_renew(
  p_lock_key bigint, p_kind text, p_name text, p_id uuid, p_ttl_ms integer,
  p_lock_timeout_ms integer, p_now timestamptz DEFAULT NULL
) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  v_refusal json := admit_permit_check_current(p_lock_key, p_kind, p_name, p_id, p_lock_timeout_ms, p_now);
  v_now timestamptz := coalesce(p_now, clock_timestamp());  -- read after the lock was taken
  v_row permits;
BEGIN
  IF v_refusal IS NOT NULL THEN
    RETURN v_refusal;
  END IF;
  UPDATE permits
     SET ttl_ms = coalesce(p_ttl_ms, ttl_ms),
         expires_at = v_now + coalesce(p_ttl_ms, ttl_ms) * interval '1 millisecond',
         renewed_at = v_now
   WHERE id = p_id AND released_at IS NULL AND timed_out_at IS NULL AND expires_at > v_now
  RETURNING * INTO v_row;
  IF NOT FOUND THEN
    -- Ended since the check (the sweeper, or its expiry passed): say how, as the check would.
    RETURN coalesce(admit_permit_check_current(p_lock_key, p_kind, p_name, p_id, p_lock_timeout_ms, v_now),
                    json_build_object('status', 'not_current', 'state', 'timed_out'));
  END IF;
  RETURN json_build_object('status', 'renewed', 'permit', admit_permit_json(v_row));
END
$$;

CREATE OR REPLACE FUNCTION admit_permit_release(
  p_lock_key bigint, p_kind text, p_name text, p_id uuid,
  p_lock_timeout_ms integer, p_now timestamptz DEFAULT NULL
) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  v_refusal json := admit_permit_check_current(p_lock_key, p_kind, p_name, p_id, p_lock_timeout_ms, p_now);
  v_now timestamptz := coalesce(p_now, clock_timestamp());  -- read after the lock was taken
BEGIN
  IF v_refusal IS NOT NULL THEN
    RETURN v_refusal;
  END IF;
  UPDATE permits SET released_at = v_now
   WHERE id = p_id AND released_at IS NULL AND timed_out_at IS NULL AND expires_at > v_now;
  IF NOT FOUND THEN
    RETURN coalesce(admit_permit_check_current(p_lock_key, p_kind, p_name, p_id, p_lock_timeout_ms, v_now),
                    json_build_object('status', 'not_current', 'state', 'timed_out'));
  END IF;
  RETURN json_build_object('status', 'released');
END
$$;

-- Cron housekeeping: mark expired claims timed out, key by key under the key's advisory lock (tried:
-- a key whose lock is held by a request is left for the next sweep), at most 500 keys a call so the
-- locks held until commit stay few; then delete a batch of claims that ended more than 30 days ago.
CREATE OR REPLACE FUNCTION admit_sweep_permits() RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  k record;
  n integer := 0;
  d integer;
BEGIN
  FOR k IN
    SELECT DISTINCT kind, name FROM (
      SELECT kind, name FROM permits
       WHERE released_at IS NULL AND timed_out_at IS NULL AND expires_at <= clock_timestamp()
       ORDER BY expires_at LIMIT 500) due
  LOOP
    IF pg_try_advisory_xact_lock(admit_fnv64(k.kind || '/' || k.name)) THEN
      n := n + admit_permits_time_out(k.kind, k.name, clock_timestamp());
    END IF;
  END LOOP;

  WITH old AS (
    SELECT id FROM permits
     WHERE (released_at IS NOT NULL OR timed_out_at IS NOT NULL)
       AND coalesce(released_at, timed_out_at) < now() - interval '30 days'
     LIMIT 10000
       FOR UPDATE SKIP LOCKED
  ), deleted AS (
    DELETE FROM permits p USING old WHERE p.id = old.id RETURNING 1
  )
  SELECT count(*)::integer INTO d FROM deleted;
  RETURN n + d;
END
$$;
