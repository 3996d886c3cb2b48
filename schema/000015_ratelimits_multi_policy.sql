-- Rate limits for API gateways (issue 19): several policies in one all-or-nothing check, and a
-- latency budget per policy.
--
-- Gateways ask for "100 a minute AND 10 000 a day" in one call. As two calls, the first consumes
-- even when the second denies. admit_ratelimit_check_multi decides every policy of one key in ONE
-- statement: admitted only if every policy admits; when any denies, none consumes (each still counts
-- the attempt: attempted and rejected move, as for a single denied check).
--
-- Lock order: the counter rows of one check are taken in the order of the policy names (distinct,
-- sorted byte-wise: COLLATE "C", independent of the database's collation). Two checks over
-- overlapping policy sets, asked in any order, take their common rows in the same order, so they
-- queue and never deadlock. The single-policy check takes one row; refunds take one row.
--
-- Policies gain timeout_ms (the longest a check on them may take; the Worker enforces it) and
-- on_unavailable ('deny' | 'allow': what the Worker answers when the database is silent for that long).
-- The checks return them so a Worker isolate learns them from its answers.

ALTER TABLE ratelimit_policies
  ADD COLUMN timeout_ms integer NOT NULL DEFAULT 5000, -- the Worker's default request budget (DB_BUDGET_MS)
  ADD COLUMN on_unavailable text NOT NULL DEFAULT 'deny',
  ADD CONSTRAINT ratelimit_policies_timeout CHECK (timeout_ms BETWEEN 1 AND 60000),
  ADD CONSTRAINT ratelimit_policies_on_unavailable CHECK (on_unavailable IN ('deny', 'allow'));

CREATE OR REPLACE FUNCTION admit_ratelimit_policy_json(p ratelimit_policies) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT json_build_object(
    'name', p.name, 'algorithm', p.algorithm, 'limit', p.quota, 'window_ms', p.window_ms,
    'log', p.log, 'history_ms', p.history_ms, 'timeout_ms', p.timeout_ms, 'on_unavailable', p.on_unavailable,
    'created_at', admit_rfc3339(p.created_at), 'updated_at', admit_rfc3339(p.updated_at))
$$;

-- 000014's PUT with the two new settings (defaults keep six-argument calls working).
DROP FUNCTION admit_ratelimit_put_policy(text, text, integer, bigint, boolean, bigint);
CREATE FUNCTION admit_ratelimit_put_policy(
  p_name text, p_algorithm text, p_limit integer, p_window_ms bigint, p_log boolean, p_history_ms bigint,
  p_timeout_ms integer DEFAULT 5000, p_on_unavailable text DEFAULT 'deny'
) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  v_old ratelimit_policies;
  v_new ratelimit_policies;
BEGIN
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

-- THE multi-policy decision. p_policies: 1–8 names (the route refuses duplicates; here they collapse).
-- Returns {"missing": [names]} when a policy does not exist (nothing written), else
--   {allowed, key, results: [one per name of p_policies, in its order]}
-- where each result is {allowed (this policy's own verdict), policy, key, limit, window_ms, log,
-- remaining, reset_ms, retry_after_ms (when this policy denies), wait1_ms, timeout_ms, on_unavailable},
-- computed on the state after the decision (a denied check leaves every policy as it was).
-- p_cost 0 is a peek: nothing is written or logged; allowed means one more unit fits every policy.
CREATE FUNCTION admit_ratelimit_check_multi(
  p_policies text[], p_key text, p_cost integer, p_info jsonb, p_lock_timeout_ms integer,
  p_now timestamptz DEFAULT now()
) RETURNS json
LANGUAGE plpgsql AS $$
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
    v_lim[i] := coalesce(
      (SELECT o.quota FROM ratelimit_overrides o WHERE o.policy = pol.name AND o.key = p_key AND o.valid @> p_now),
      pol.quota);
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
    v_allowed := v_allowed AND v_fits[i];
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
          tat = CASE WHEN v_allowed THEN greatest(c.tat, v_now) + p_cost * v_t ELSE c.tat END,
          consumed = c.consumed + CASE WHEN v_allowed THEN p_cost ELSE 0 END,
          admitted = c.admitted + CASE WHEN v_allowed THEN 1 ELSE 0 END,
          rejected = c.rejected + CASE WHEN v_allowed THEN 0 ELSE 1 END,
          last_allowed = v_allowed,
          expires_at = admit_ms_to_ts(greatest(
            CASE WHEN v_allowed THEN greatest(c.tat, v_now) + p_cost * v_t ELSE c.tat END, v_ws[i] + v_w))
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
          consumed = c.consumed + CASE WHEN v_allowed THEN p_cost ELSE 0 END,
          admitted = c.admitted + CASE WHEN v_allowed THEN 1 ELSE 0 END,
          rejected = c.rejected + CASE WHEN v_allowed THEN 0 ELSE 1 END,
          last_allowed = v_allowed
         WHERE c.policy = pol.name AND c.key = p_key AND c.slot = v_slot[i]
        RETURNING c.consumed INTO v_c;
        v_cur[i] := v_c;
      END IF;
      v_remaining := floor(v_l - v_cur[i] - v_prev[i] * v_weight[i]);
      v_reset := v_ws[i] + v_w - v_now;
    END IF;
    IF pol.log AND p_cost > 0 THEN
      INSERT INTO ratelimit_log (at, policy, key, allowed, cost, info, expires_at)
      VALUES (p_now, pol.name, p_key, v_allowed, p_cost, p_info, p_now + pol.history_ms * interval '1 millisecond');
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
      -- This policy's own wait for this cost (it denied); for a peek, for one unit.
      'retry_after_ms', CASE WHEN NOT v_fits[i] THEN
          ceil(admit_ratelimit_wait_ms(pol.algorithm, v_l, v_w, v_now, greatest(p_cost, 1), v_ws[i],
               CASE WHEN pol.algorithm = 'token_bucket' THEN 0 ELSE v_cur[i] END, v_prev[i],
               CASE WHEN pol.algorithm = 'token_bucket' THEN v_cur[i] END))::bigint END,
      'wait1_ms', CASE WHEN v_remaining >= 1 THEN 0 ELSE
          ceil(admit_ratelimit_wait_ms(pol.algorithm, v_l, v_w, v_now, 1, v_ws[i],
               CASE WHEN pol.algorithm = 'token_bucket' THEN 0 ELSE v_cur[i] END, v_prev[i],
               CASE WHEN pol.algorithm = 'token_bucket' THEN v_cur[i] END))::bigint END,
      'timeout_ms', pol.timeout_ms,
      'on_unavailable', pol.on_unavailable);
  END LOOP;

  RETURN json_build_object(
    'allowed', v_allowed,
    'key', p_key,
    'results', (SELECT json_agg(v_res[array_position(v_names, q COLLATE "C")] ORDER BY ord)
                  FROM unnest(p_policies) WITH ORDINALITY AS t(q, ord)));
END
$$;
