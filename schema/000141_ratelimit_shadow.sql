-- Shadow mode, per policy and per override: a check under a limit in shadow is decided, counted
-- and logged as if enforced, but never refused. The counters keep `rejected` as the limit decided
-- and add `would_refuse`: the refusals shadow mode let through. The policy's flag, or the flag of
-- the key's override in force, decides (admit_ratelimit_in_shadow).
--
-- A single check's shadow is applied around the check, not inside it: the statements the Worker
-- sends wrap admit_ratelimit_check and admit_ratelimit_check_batch in admit_ratelimit_shadowed /
-- admit_ratelimit_shadowed_batch, which read the flag (the policy by its key, overrides through a
-- partial index of the shadowed ones only) and, for a refusal let through, count it. The decision
-- functions are unchanged. admit_ratelimit_check_multi must know inside its all-or-nothing decision
-- (a shadow policy must not make the others refuse): it reads the flag per policy, a shadow policy's
-- refusal does not refuse the check, and such a policy consumes nothing then (as if it had refused).

ALTER TABLE ratelimit_policies ADD COLUMN shadow boolean NOT NULL DEFAULT false;
ALTER TABLE ratelimit_overrides ADD COLUMN shadow boolean NOT NULL DEFAULT false;
ALTER TABLE ratelimit_counters ADD COLUMN would_refuse bigint NOT NULL DEFAULT 0;
CREATE INDEX ratelimit_overrides_shadowed ON ratelimit_overrides (policy, key) WHERE shadow;

CREATE FUNCTION admit_ratelimit_in_shadow(p_pol ratelimit_policies, p_key text, p_now timestamptz) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT p_pol.shadow OR EXISTS (SELECT 1 FROM ratelimit_overrides o
                                  WHERE o.policy = p_pol.name AND o.key = p_key AND o.shadow AND o.valid @> p_now)
$$;
COMMENT ON FUNCTION admit_ratelimit_in_shadow IS 'Whether checks of (policy, key) at p_now are in shadow mode: the policy is, or the key''s override in force is.';

CREATE FUNCTION admit_ratelimit_shadowed(p_r json, p_cost integer, p_now timestamptz DEFAULT now()) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  pol ratelimit_policies;
BEGIN
  IF p_r IS NULL THEN RETURN NULL; END IF;
  SELECT * INTO pol FROM ratelimit_policies WHERE name = p_r ->> 'policy';
  IF NOT FOUND OR NOT admit_ratelimit_in_shadow(pol, p_r ->> 'key', p_now) THEN RETURN p_r; END IF;
  IF p_cost > 0 AND NOT (p_r ->> 'allowed')::boolean THEN
    -- The check has just counted this refusal on the row (and holds its lock): count it as let through.
    UPDATE ratelimit_counters SET would_refuse = would_refuse + 1
     WHERE policy = pol.name AND key = p_r ->> 'key'
       AND slot = CASE WHEN pol.algorithm = 'token_bucket' THEN -1 ELSE floor(admit_ts_to_ms(p_now) / pol.window_ms)::bigint END;
  END IF;
  RETURN (p_r::jsonb || '{"shadow": true}'::jsonb)::json;
END
$$;
COMMENT ON FUNCTION admit_ratelimit_shadowed IS 'A single check''s answer (admit_ratelimit_check) under shadow mode: unchanged unless the policy or the key''s override in force is in shadow; then marked "shadow", and a refusal counted in would_refuse.';

CREATE FUNCTION admit_ratelimit_shadowed_batch(p_res json, p_items jsonb) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  v_out json[] := '{}';
  n integer := json_array_length(p_res);
BEGIN
  -- In the batch's own lock order (key, then policy): the counter rows are already locked by it.
  FOR i IN 0 .. n - 1 LOOP
    v_out[i + 1] := CASE WHEN p_items -> i ? 'p' THEN admit_ratelimit_shadowed(p_res -> i, (p_items -> i ->> 'c')::integer) ELSE p_res -> i END;
  END LOOP;
  RETURN array_to_json(v_out);
END
$$;
COMMENT ON FUNCTION admit_ratelimit_shadowed_batch IS 'admit_ratelimit_shadowed over the answers of admit_ratelimit_check_batch (its single-policy items; several-policies items decide shadow mode themselves).';

CREATE OR REPLACE FUNCTION admit_ratelimit_check_multi(p_policies text[], p_key text, p_cost integer, p_info jsonb, p_lock_timeout_ms integer, p_now timestamp with time zone DEFAULT now())
 RETURNS json
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_now numeric := admit_ts_to_ms(p_now);
  v_eps constant numeric := 0.000001;
  v_names text[];
  n integer;
  pol ratelimit_policies;
  v_pols ratelimit_policies[] := '{}';
  v_lim integer[] := '{}';
  v_slot bigint[] := '{}';
  v_ws numeric[] := '{}';
  v_prev numeric[] := '{}';
  v_weight numeric[] := '{}';
  v_cur numeric[] := '{}';     -- windows: consumed; token bucket: TAT
  v_fits boolean[] := '{}';
  v_res json[] := '{}';
  v_allowed boolean := true;
  v_missing text[];
  v_w numeric;
  v_t numeric;
  v_l integer;
  v_c numeric;
  v_base numeric;
  v_remaining numeric;
  v_reset numeric;
  v_ws_ts timestamptz;
  v_set text;
  v_over integer;
  v_next timestamptz;
  v_stop numeric[] := '{}';    -- ms until the key's next override boundary of each policy (NULL: none)
  v_wait numeric;
  v_wait1 numeric;
  v_shadow boolean[] := '{}';  -- shadow mode: the policy's, or the override's in force (admit_ratelimit_in_shadow)
BEGIN
  v_set := set_config('lock_timeout', p_lock_timeout_ms || 'ms', true);
  v_names := ARRAY(SELECT DISTINCT u COLLATE "C" FROM unnest(p_policies) u ORDER BY 1);
  n := coalesce(array_length(v_names, 1), 0);
  v_missing := ARRAY(SELECT u FROM unnest(v_names) u WHERE NOT EXISTS (SELECT 1 FROM ratelimit_policies p WHERE p.name = u));
  IF n = 0 OR array_length(v_missing, 1) > 0 THEN
    RETURN json_build_object('missing', v_missing);
  END IF;

  -- Phase 1, in name order: count the attempt on each counter row (taking its lock, creating it if
  -- need be) and read its state; decide each policy on that locked state.
  FOR i IN 1 .. n LOOP
    SELECT * INTO pol FROM ratelimit_policies WHERE name = v_names[i];
    IF NOT FOUND THEN
      -- Deleted since the look-up above: roll back whatever this statement counted.
      RAISE EXCEPTION 'rate-limit policy % was deleted during the check', v_names[i] USING ERRCODE = '40001';
    END IF;
    v_pols[i] := pol;
    -- The limit in force and the key's next override boundary (see admit_ratelimit_check_any).
    SELECT max(o.quota) FILTER (WHERE o.valid @> p_now),
           min(CASE WHEN lower(o.valid) > p_now THEN lower(o.valid) ELSE upper(o.valid) END)
      INTO v_over, v_next
      FROM ratelimit_overrides o
     WHERE o.policy = pol.name AND o.key = p_key AND o.valid && tstzrange(p_now, NULL, '[)');
    v_lim[i] := coalesce(v_over, pol.quota);
    v_stop[i] := admit_ts_to_ms(v_next) - v_now;  -- NULL: no boundary ahead
    v_w := pol.window_ms;
    v_slot[i] := floor(v_now / v_w);
    v_ws[i] := v_slot[i] * v_w;
    v_prev[i] := 0;
    v_weight[i] := 0;
    IF pol.algorithm = 'sliding_window' THEN
      v_prev[i] := coalesce((SELECT c.consumed FROM ratelimit_counters c
                              WHERE c.policy = pol.name AND c.key = p_key AND c.slot = v_slot[i] - 1), 0);
      v_weight[i] := 1 - (v_now - v_ws[i]) / v_w;
    END IF;
    v_ws_ts := admit_ms_to_ts(v_ws[i]);
    IF pol.algorithm = 'token_bucket' THEN
      v_t := v_w / v_lim[i];
      IF p_cost = 0 THEN
        v_cur[i] := (SELECT c.tat FROM ratelimit_counters c WHERE c.policy = pol.name AND c.key = p_key AND c.slot = -1);
      ELSE
        INSERT INTO ratelimit_counters AS c
          (policy, key, slot, window_start, consumed, admitted, attempted, rejected, tat, last_allowed, expires_at)
        VALUES (pol.name, p_key, -1, v_ws_ts, 0, 0, 1, 0, v_now, false, admit_ms_to_ts(greatest(v_now, v_ws[i] + v_w)))
        ON CONFLICT (policy, key, slot) DO UPDATE SET
          window_start = v_ws_ts,
          consumed = CASE WHEN c.window_start = v_ws_ts THEN c.consumed ELSE 0 END,
          admitted = CASE WHEN c.window_start = v_ws_ts THEN c.admitted ELSE 0 END,
          attempted = CASE WHEN c.window_start = v_ws_ts THEN c.attempted ELSE 0 END + 1,
          rejected = CASE WHEN c.window_start = v_ws_ts THEN c.rejected ELSE 0 END
        RETURNING c.tat INTO v_c;
        v_cur[i] := v_c;
      END IF;
      v_base := greatest(coalesce(v_cur[i], v_now), v_now);
      v_fits[i] := v_base + greatest(p_cost, 1) * v_t - v_now <= v_w + v_eps;
    ELSE
      IF p_cost = 0 THEN
        v_cur[i] := coalesce((SELECT c.consumed FROM ratelimit_counters c
                               WHERE c.policy = pol.name AND c.key = p_key AND c.slot = v_slot[i]), 0);
      ELSE
        INSERT INTO ratelimit_counters AS c
          (policy, key, slot, window_start, consumed, admitted, attempted, rejected, last_allowed, expires_at)
        VALUES (pol.name, p_key, v_slot[i], v_ws_ts, 0, 0, 1, 0, false,
                admit_ms_to_ts(v_ws[i] + v_w + greatest(v_w, pol.history_ms)))
        ON CONFLICT (policy, key, slot) DO UPDATE SET attempted = c.attempted + 1
        RETURNING c.consumed INTO v_c;
        v_cur[i] := v_c;
      END IF;
      v_fits[i] := v_cur[i] + greatest(p_cost, 1) + v_prev[i] * v_weight[i] <= v_lim[i];
    END IF;
    -- A policy in shadow mode decides and counts as if enforced but never refuses the check.
    v_shadow[i] := admit_ratelimit_in_shadow(pol, p_key, p_now);
    v_allowed := v_allowed AND (v_fits[i] OR v_shadow[i]);
  END LOOP;

  -- Phase 2: every row is locked; consume on all of them, or on none.
  FOR i IN 1 .. n LOOP
    pol := v_pols[i];
    v_w := pol.window_ms;
    v_l := v_lim[i];
    IF pol.algorithm = 'token_bucket' THEN
      v_t := v_w / v_l;
      IF p_cost > 0 THEN
        UPDATE ratelimit_counters c SET
          tat = CASE WHEN v_allowed AND v_fits[i] THEN greatest(c.tat, v_now) + p_cost * v_t ELSE c.tat END,
          consumed = c.consumed + CASE WHEN v_allowed AND v_fits[i] THEN p_cost ELSE 0 END,
          admitted = c.admitted + CASE WHEN v_allowed AND v_fits[i] THEN 1 ELSE 0 END,
          rejected = c.rejected + CASE WHEN v_allowed AND v_fits[i] THEN 0 ELSE 1 END,
          would_refuse = c.would_refuse + CASE WHEN v_allowed AND NOT v_fits[i] THEN 1 ELSE 0 END,
          last_allowed = v_allowed AND v_fits[i],
          expires_at = admit_ms_to_ts(greatest(
            CASE WHEN v_allowed AND v_fits[i] THEN greatest(c.tat, v_now) + p_cost * v_t ELSE c.tat END, v_ws[i] + v_w))
         WHERE c.policy = pol.name AND c.key = p_key AND c.slot = -1
        RETURNING c.tat INTO v_c;
        v_cur[i] := v_c;
      END IF;
      v_base := greatest(coalesce(v_cur[i], v_now), v_now);
      v_remaining := least(v_l, floor((v_w - (v_base - v_now) + v_eps) / v_t));
      v_reset := v_base - v_now;
    ELSE
      IF p_cost > 0 THEN
        UPDATE ratelimit_counters c SET
          consumed = c.consumed + CASE WHEN v_allowed AND v_fits[i] THEN p_cost ELSE 0 END,
          admitted = c.admitted + CASE WHEN v_allowed AND v_fits[i] THEN 1 ELSE 0 END,
          rejected = c.rejected + CASE WHEN v_allowed AND v_fits[i] THEN 0 ELSE 1 END,
          would_refuse = c.would_refuse + CASE WHEN v_allowed AND NOT v_fits[i] THEN 1 ELSE 0 END,
          last_allowed = v_allowed AND v_fits[i]
         WHERE c.policy = pol.name AND c.key = p_key AND c.slot = v_slot[i]
        RETURNING c.consumed INTO v_c;
        v_cur[i] := v_c;
      END IF;
      v_remaining := floor(v_l - v_cur[i] - v_prev[i] * v_weight[i]);
      v_reset := v_ws[i] + v_w - v_now;
    END IF;
    IF pol.log AND p_cost > 0 THEN
      INSERT INTO ratelimit_log (at, policy, key, allowed, cost, info, expires_at)
      VALUES (p_now, pol.name, p_key, v_allowed AND v_fits[i], p_cost, p_info, p_now + pol.history_ms * interval '1 millisecond');
    END IF;
    -- This policy's own wait for this cost (it denied; for a peek, for one unit) and for one unit,
    -- never past its next override boundary.
    v_wait := NULL;
    IF NOT v_fits[i] THEN
      v_wait := admit_ratelimit_wait_ms(pol.algorithm, v_l, v_w, v_now, greatest(p_cost, 1), v_ws[i],
                  CASE WHEN pol.algorithm = 'token_bucket' THEN 0 ELSE v_cur[i] END, v_prev[i],
                  CASE WHEN pol.algorithm = 'token_bucket' THEN v_cur[i] END);
      -- least() skips NULLs: a NULL wait (a cost above the limit in force) stays NULL.
      IF v_wait IS NOT NULL THEN v_wait := least(v_wait, v_stop[i]); END IF;
    END IF;
    v_wait1 := 0;
    IF v_remaining < 1 THEN
      v_wait1 := least(admit_ratelimit_wait_ms(pol.algorithm, v_l, v_w, v_now, 1, v_ws[i],
                         CASE WHEN pol.algorithm = 'token_bucket' THEN 0 ELSE v_cur[i] END, v_prev[i],
                         CASE WHEN pol.algorithm = 'token_bucket' THEN v_cur[i] END), v_stop[i]);
    END IF;
    v_res[i] := json_build_object(
      'allowed', v_fits[i],
      'policy', pol.name,
      'key', p_key,
      'limit', v_l,
      'window_ms', pol.window_ms,
      'log', pol.log,
      'remaining', greatest(0, v_remaining)::bigint,
      'reset_ms', ceil(greatest(0, v_reset))::bigint,
      'retry_after_ms', ceil(v_wait)::bigint,
      'wait1_ms', ceil(v_wait1)::bigint,
      'timeout_ms', pol.timeout_ms,
      'on_unavailable', pol.on_unavailable);
    -- As admit_ratelimit_shadowed marks a single check's answer: only when in shadow mode.
    IF v_shadow[i] THEN v_res[i] := (v_res[i]::jsonb || '{"shadow": true}'::jsonb)::json; END IF;
  END LOOP;

  RETURN json_build_object(
    'allowed', v_allowed,
    'key', p_key,
    'results', (SELECT json_agg(v_res[array_position(v_names, q COLLATE "C")] ORDER BY ord)
                  FROM unnest(p_policies) WITH ORDINALITY AS t(q, ord)));
END
$function$;
COMMENT ON FUNCTION admit_ratelimit_check_multi IS 'Decides one check against several policies all-or-nothing: admitted only if every policy admits it (or would refuse in shadow mode), and a refusal leaves every policy as it was.';

DROP FUNCTION admit_ratelimit_put_policy(text, text, integer, bigint, boolean, bigint, integer, text, integer);
CREATE FUNCTION admit_ratelimit_put_policy(p_name text, p_algorithm text, p_limit integer, p_window_ms bigint, p_log boolean, p_history_ms bigint, p_timeout_ms integer DEFAULT 5000, p_on_unavailable text DEFAULT 'deny'::text, p_lock_timeout_ms integer DEFAULT 2000, p_shadow boolean DEFAULT false)
 RETURNS json
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_old ratelimit_policies;
  v_new ratelimit_policies;
BEGIN
  PERFORM set_config('lock_timeout', p_lock_timeout_ms::text || 'ms', true);
  FOR attempt IN 1 .. 3 LOOP
    INSERT INTO ratelimit_policies (name, algorithm, quota, window_ms, log, history_ms, timeout_ms, on_unavailable, shadow)
    VALUES (p_name, p_algorithm, p_limit, p_window_ms, p_log, p_history_ms, p_timeout_ms, p_on_unavailable, p_shadow)
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
             on_unavailable = p_on_unavailable, shadow = p_shadow, updated_at = now()
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
$function$;
COMMENT ON FUNCTION admit_ratelimit_put_policy IS 'Creates or replaces a policy (its shadow flag too), with its audit row, in one statement; a PUT of what is already there changes nothing.';

DROP FUNCTION admit_ratelimit_put_override(text, text, integer, timestamptz, timestamptz, integer);
CREATE FUNCTION admit_ratelimit_put_override(p_policy text, p_key text, p_limit integer, p_from timestamp with time zone, p_to timestamp with time zone, p_lock_timeout_ms integer DEFAULT 2000, p_shadow boolean DEFAULT false)
 RETURNS json
 LANGUAGE plpgsql
AS $function$
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
  UPDATE ratelimit_overrides SET quota = p_limit, shadow = p_shadow
   WHERE policy = p_policy AND key = p_key AND valid = v_valid
  RETURNING * INTO v_row;
  IF FOUND THEN
    RETURN json_build_object('status', 'updated', 'override', admit_ratelimit_override_json(v_row));
  END IF;
  BEGIN
    INSERT INTO ratelimit_overrides (policy, key, quota, valid, shadow) VALUES (p_policy, p_key, p_limit, v_valid, p_shadow)
    RETURNING * INTO v_row;
  EXCEPTION WHEN exclusion_violation THEN
    -- The constraint waited for the other writer to commit; this statement's snapshot sees it.
    UPDATE ratelimit_overrides SET quota = p_limit, shadow = p_shadow
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
$function$;
COMMENT ON FUNCTION admit_ratelimit_put_override IS 'Sets a key''s limit (and shadow flag) for a period; an overlapping period of the same key is a conflict (the EXCLUDE constraint), never two limits at once.';

CREATE OR REPLACE FUNCTION admit_ratelimit_usage(p_policy text, p_key text, p_from timestamp with time zone, p_to timestamp with time zone, p_now timestamp with time zone DEFAULT now())
 RETURNS json
 LANGUAGE plpgsql
 STABLE
AS $function$
DECLARE
  pol ratelimit_policies;
  v_limit integer;
  v_now numeric := admit_ts_to_ms(p_now);
  v_slot bigint;
  v_ws timestamptz;
  r ratelimit_counters;
  v_history json;
BEGIN
  SELECT * INTO pol FROM ratelimit_policies WHERE name = p_policy;
  IF NOT FOUND THEN RETURN NULL; END IF;
  SELECT f.o_limit, f.o_slot, admit_ms_to_ts(f.o_ws) INTO v_limit, v_slot, v_ws FROM admit_ratelimit_frame(pol, p_key, p_now) f;
  IF pol.algorithm = 'token_bucket' THEN
    SELECT * INTO r FROM ratelimit_counters WHERE policy = p_policy AND key = p_key AND slot = -1 AND window_start = v_ws;
  ELSE
    SELECT * INTO r FROM ratelimit_counters WHERE policy = p_policy AND key = p_key AND slot = v_slot;
  END IF;
  IF p_from IS NOT NULL AND pol.algorithm <> 'token_bucket' THEN
    SELECT coalesce(json_agg(json_build_object(
             'window_start', admit_rfc3339(h.window_start),
             'window_end', admit_rfc3339(h.window_start + pol.window_ms * interval '1 millisecond'),
             'admitted', h.admitted, 'attempted', h.attempted, 'rejected', h.rejected,
             'would_refuse', h.would_refuse, 'consumed', h.consumed)
           ORDER BY h.slot), '[]'::json)
      INTO v_history
      FROM (SELECT * FROM ratelimit_counters
             WHERE policy = p_policy AND key = p_key
               AND slot >= ceil(admit_ts_to_ms(p_from) / pol.window_ms)
               AND slot < ceil(admit_ts_to_ms(p_to) / pol.window_ms)
             ORDER BY slot LIMIT 1000) h;
  END IF;
  RETURN json_build_object(
    'policy', p_policy, 'key', p_key, 'algorithm', pol.algorithm,
    'limit', v_limit, 'window_ms', pol.window_ms,
    'window_start', admit_rfc3339(v_ws),
    'window_end', admit_rfc3339(v_ws + pol.window_ms * interval '1 millisecond'),
    'admitted', coalesce(r.admitted, 0), 'attempted', coalesce(r.attempted, 0),
    'rejected', coalesce(r.rejected, 0), 'would_refuse', coalesce(r.would_refuse, 0),
    'consumed', coalesce(r.consumed, 0), 'shadow', admit_ratelimit_in_shadow(pol, p_key, p_now),
    'windows', v_history);
END
$function$;
COMMENT ON FUNCTION admit_ratelimit_usage IS 'A key''s usage: the current window''s admitted, attempted, rejected, would_refuse and consumed, whether it is in shadow mode now, and the stored windows in [p_from, p_to); NULL when the policy does not exist.';

CREATE OR REPLACE FUNCTION admit_ratelimit_policy_json(p ratelimit_policies) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT json_build_object(
    'name', p.name, 'algorithm', p.algorithm, 'limit', p.quota, 'window_ms', p.window_ms,
    'log', p.log, 'history_ms', p.history_ms, 'timeout_ms', p.timeout_ms, 'on_unavailable', p.on_unavailable,
    'shadow', p.shadow, 'created_at', admit_rfc3339(p.created_at), 'updated_at', admit_rfc3339(p.updated_at))
$$;

CREATE OR REPLACE FUNCTION admit_ratelimit_override_json(o ratelimit_overrides) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT json_build_object(
    'policy', o.policy, 'key', o.key, 'limit', o.quota,
    'valid_from', admit_rfc3339(lower(o.valid)), 'valid_to', admit_rfc3339(upper(o.valid)), 'shadow', o.shadow)
$$;

CREATE OR REPLACE FUNCTION admit_ratelimit_policy_minutes(p_policy text, p_minutes integer)
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT CASE WHEN EXISTS (SELECT 1 FROM ratelimit_policies WHERE name = p_policy) THEN
    (SELECT coalesce(json_agg(json_build_object(
              'minute', admit_rfc3339(m.minute), 'allowed', m.allowed, 'denied', m.denied,
              'would_refuse', m.would_refuse, 'unenforced', m.unenforced, 'unavailable', m.unavailable)
            ORDER BY m.minute), '[]'::json)
       FROM (SELECT minute,
                    coalesce(sum(value) FILTER (WHERE labels->>'outcome' = 'allowed'), 0)::bigint AS allowed,
                    coalesce(sum(value) FILTER (WHERE labels->>'outcome' = 'denied'), 0)::bigint AS denied,
                    coalesce(sum(value) FILTER (WHERE labels->>'outcome' = 'would_refuse'), 0)::bigint AS would_refuse,
                    coalesce(sum(value) FILTER (WHERE labels->>'outcome' = 'unenforced'), 0)::bigint AS unenforced,
                    coalesce(sum(value) FILTER (WHERE labels->>'outcome' = 'unavailable'), 0)::bigint AS unavailable
               FROM metric_minutes
              WHERE name = 'admit_ratelimit_decisions_total' AND labels->>'policy' = p_policy
                AND minute >= date_trunc('minute', now()) - (p_minutes - 1) * interval '1 minute'
              GROUP BY minute) m)
  END
$function$;
COMMENT ON FUNCTION admit_ratelimit_policy_minutes IS 'A policy''s decisions per minute over the last p_minutes (allowed, denied, would_refuse, unenforced, unavailable), oldest first; NULL when the policy does not exist.';
