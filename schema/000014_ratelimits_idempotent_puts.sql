-- PUT is idempotent under concurrency (issue 18, item 4): identical simultaneous PUTs all succeed and
-- exactly one of them answers "created".
--
-- 000010's override PUT looked for the period (UPDATE … WHERE valid = …) and, finding none, inserted
-- it. Two identical PUTs at once both found none; the second insert waited on the first and then
-- broke the EXCLUDE constraint, answered as an overlap (409) although the period was its own. Now an
-- exclusion violation is looked at again after the wait: if the period that won is exactly this one,
-- this PUT updates it (200); only a different overlapping period is a conflict.
--
-- 000010's policy PUT decided "created" from a read before its upsert, so two simultaneous creates
-- both said created (201). Now the insert itself decides (ON CONFLICT DO NOTHING), and the update
-- path reads the previous version under its row lock.

CREATE OR REPLACE FUNCTION admit_ratelimit_put_override(
  p_policy text, p_key text, p_limit integer, p_from timestamptz, p_to timestamptz
) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  v_valid tstzrange := tstzrange(p_from, p_to, '[)');
  v_row ratelimit_overrides;
BEGIN
  PERFORM 1 FROM ratelimit_policies WHERE name = p_policy;
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

CREATE OR REPLACE FUNCTION admit_ratelimit_put_policy(
  p_name text, p_algorithm text, p_limit integer, p_window_ms bigint, p_log boolean, p_history_ms bigint
) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  v_old ratelimit_policies;
  v_new ratelimit_policies;
BEGIN
  -- A policy deleted between the two steps below is simply created on the next turn.
  FOR attempt IN 1 .. 3 LOOP
    INSERT INTO ratelimit_policies (name, algorithm, quota, window_ms, log, history_ms)
    VALUES (p_name, p_algorithm, p_limit, p_window_ms, p_log, p_history_ms)
    ON CONFLICT (name) DO NOTHING
    RETURNING * INTO v_new;
    IF FOUND THEN
      RETURN json_build_object('created', true, 'policy', admit_ratelimit_policy_json(v_new));
    END IF;
    -- Exists (committed, or just committed by a concurrent create): replace it under its row lock.
    SELECT * INTO v_old FROM ratelimit_policies WHERE name = p_name FOR UPDATE;
    IF FOUND THEN
      UPDATE ratelimit_policies
         SET algorithm = p_algorithm, quota = p_limit, window_ms = p_window_ms,
             log = p_log, history_ms = p_history_ms, updated_at = now()
       WHERE name = p_name
      RETURNING * INTO v_new;
      -- Changing the algorithm or the window resets its counters (their slots would mean something else).
      IF v_old.algorithm <> v_new.algorithm OR v_old.window_ms <> v_new.window_ms THEN
        DELETE FROM ratelimit_counters WHERE policy = p_name;
      END IF;
      RETURN json_build_object('created', false, 'policy', admit_ratelimit_policy_json(v_new));
    END IF;
  END LOOP;
  RAISE EXCEPTION 'policy % was created and deleted concurrently three times', p_name USING ERRCODE = '40001';
END
$$;
