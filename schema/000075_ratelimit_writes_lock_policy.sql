-- Rate-limit policy and override writes: an override PUT racing the DELETE of its policy, and lock
-- waits bounded like every other decision's (issue 28, item 4).
--
-- admit_ratelimit_put_override (000063) read the policy without a lock. A DELETE of the policy that
-- committed between that read and the insert left the insert's foreign key check waiting on the
-- deleted row and then failing with 23503, which the Worker answered 500 (over HTTP: 18 of 80
-- rounds). It now takes the policy row FOR KEY SHARE: a delete in progress is waited for and the
-- policy is then gone (the policy's 404), and a delete that comes second waits for the override to
-- commit and takes it with the policy (ON DELETE CASCADE). KEY SHARE does not conflict with a policy
-- PUT's update (no key column changes), so overrides and limit changes never wait on each other.
--
-- None of the four writes set lock_timeout, so a long wait (a policy row or counter rows held by
-- other work) ended at the request's budget as a 504 instead of the 503 lock-timeout every other
-- decision answers. Each now takes p_lock_timeout_ms like the checks and the refund (the old
-- signatures are dropped; the new last parameter has a default so a call without it still works).

DROP FUNCTION admit_ratelimit_put_override(text, text, integer, timestamptz, timestamptz);
CREATE FUNCTION admit_ratelimit_put_override(
  p_policy text, p_key text, p_limit integer, p_from timestamptz, p_to timestamptz, p_lock_timeout_ms integer DEFAULT 2000
) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  v_valid tstzrange := tstzrange(p_from, p_to, '[)');
  v_row ratelimit_overrides;
BEGIN
  PERFORM set_config('lock_timeout', p_lock_timeout_ms::text || 'ms', true);
  -- One writer per (policy, key) at a time: concurrent inserts checked by the exclusion constraint
  -- wait on each other's tuples and can deadlock (000063).
  PERFORM pg_advisory_xact_lock(admit_fnv64('ratelimit_override/' || p_policy || '/' || p_key));
  -- The policy stays until this override commits (a concurrent DELETE waits, then takes it along);
  -- one being deleted right now is waited for, and then it is not found.
  PERFORM 1 FROM ratelimit_policies WHERE name = p_policy FOR KEY SHARE;
  IF NOT FOUND THEN RETURN json_build_object('status', 'no_policy'); END IF;
  UPDATE ratelimit_overrides SET quota = p_limit
   WHERE policy = p_policy AND key = p_key AND valid = v_valid
  RETURNING * INTO v_row;
  IF FOUND THEN
    RETURN json_build_object('status', 'updated', 'override', admit_ratelimit_override_json(v_row));
  END IF;
  BEGIN
    INSERT INTO ratelimit_overrides (policy, key, quota, valid) VALUES (p_policy, p_key, p_limit, v_valid)
    RETURNING * INTO v_row;
  EXCEPTION WHEN exclusion_violation THEN
    -- The constraint waited for the other writer to commit; this statement's snapshot sees it.
    UPDATE ratelimit_overrides SET quota = p_limit
     WHERE policy = p_policy AND key = p_key AND valid = v_valid
    RETURNING * INTO v_row;
    IF FOUND THEN
      RETURN json_build_object('status', 'updated', 'override', admit_ratelimit_override_json(v_row));
    END IF;
    RETURN json_build_object('status', 'conflict', 'conflicts',
      (SELECT json_agg(admit_ratelimit_override_json(o) ORDER BY lower(o.valid))
         FROM ratelimit_overrides o WHERE o.policy = p_policy AND o.key = p_key AND o.valid && v_valid));
  END;
  RETURN json_build_object('status', 'created', 'override', admit_ratelimit_override_json(v_row));
END
$$;

DROP FUNCTION admit_ratelimit_delete_overrides(text, text, timestamptz);
-- Deletes the key's override starting at p_from, or all of the key's overrides when p_from is NULL.
CREATE FUNCTION admit_ratelimit_delete_overrides(p_policy text, p_key text, p_from timestamptz, p_lock_timeout_ms integer DEFAULT 2000)
RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  v_n integer;
BEGIN
  PERFORM set_config('lock_timeout', p_lock_timeout_ms::text || 'ms', true);
  DELETE FROM ratelimit_overrides
   WHERE policy = p_policy AND key = p_key AND (p_from IS NULL OR lower(valid) = p_from);
  GET DIAGNOSTICS v_n = ROW_COUNT;
  RETURN v_n;
END
$$;

DROP FUNCTION admit_ratelimit_delete_policy(text);
CREATE FUNCTION admit_ratelimit_delete_policy(p_name text, p_lock_timeout_ms integer DEFAULT 2000) RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM set_config('lock_timeout', p_lock_timeout_ms::text || 'ms', true);
  DELETE FROM ratelimit_policies WHERE name = p_name;
  IF NOT FOUND THEN RETURN false; END IF;
  DELETE FROM ratelimit_counters WHERE policy = p_name;
  RETURN true;
END
$$;

DROP FUNCTION admit_ratelimit_put_policy(text, text, integer, bigint, boolean, bigint, integer, text);
CREATE FUNCTION admit_ratelimit_put_policy(
  p_name text, p_algorithm text, p_limit integer, p_window_ms bigint, p_log boolean, p_history_ms bigint,
  p_timeout_ms integer DEFAULT 5000, p_on_unavailable text DEFAULT 'deny', p_lock_timeout_ms integer DEFAULT 2000
) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  v_old ratelimit_policies;
  v_new ratelimit_policies;
BEGIN
  PERFORM set_config('lock_timeout', p_lock_timeout_ms::text || 'ms', true);
  FOR attempt IN 1 .. 3 LOOP
    INSERT INTO ratelimit_policies (name, algorithm, quota, window_ms, log, history_ms, timeout_ms, on_unavailable)
    VALUES (p_name, p_algorithm, p_limit, p_window_ms, p_log, p_history_ms, p_timeout_ms, p_on_unavailable)
    ON CONFLICT (name) DO NOTHING
    RETURNING * INTO v_new;
    IF FOUND THEN
      RETURN json_build_object('created', true, 'policy', admit_ratelimit_policy_json(v_new));
    END IF;
    SELECT * INTO v_old FROM ratelimit_policies WHERE name = p_name FOR UPDATE;
    IF FOUND THEN
      UPDATE ratelimit_policies
         SET algorithm = p_algorithm, quota = p_limit, window_ms = p_window_ms,
             log = p_log, history_ms = p_history_ms, timeout_ms = p_timeout_ms,
             on_unavailable = p_on_unavailable, updated_at = now()
       WHERE name = p_name
      RETURNING * INTO v_new;
      IF v_old.algorithm <> v_new.algorithm OR v_old.window_ms <> v_new.window_ms THEN
        DELETE FROM ratelimit_counters WHERE policy = p_name;
      END IF;
      RETURN json_build_object('created', false, 'policy', admit_ratelimit_policy_json(v_new));
    END IF;
  END LOOP;
  RAISE EXCEPTION 'policy % was created and deleted concurrently three times', p_name USING ERRCODE = '40001';
END
$$;
