-- Rate limits: a batch's run of one key's token-bucket checks decided as one set too (issue 33,
-- part 2). 000104 did it for fixed-window policies; a token-bucket run now also reads the policy and
-- the key's overrides once, locks the bucket's row once, decides the items in arrival order on its
-- TAT with admit_ratelimit_check_any's arithmetic, and writes the row once. Sliding windows, logged
-- policies, peeks and runs of one are still decided item by item.

CREATE OR REPLACE FUNCTION admit_ratelimit_check_run(p_policy text, p_key text, p_costs integer[], p_infos jsonb[],
                                          p_lock_timeout_ms integer, p_now timestamptz DEFAULT now()) RETURNS json[]
LANGUAGE plpgsql AS $$
DECLARE
  pol ratelimit_policies;
  n integer := cardinality(p_costs);
  v_res json[] := array_fill(NULL::json, ARRAY[n]);
  v_limit integer;
  v_over integer;
  v_next timestamptz;
  v_now bigint;
  v_ws bigint;
  v_end bigint;
  v_stop bigint;
  v_slot bigint;
  v_cons bigint;               -- the row's `consumed` as each item leaves it
  v_ok boolean;
  v_admitted integer := 0;
  v_left bigint;
  j integer;
  -- token bucket (admit_ratelimit_check_any's arithmetic, in numeric ms)
  v_nowx numeric;
  v_w numeric;
  v_t numeric;
  v_inc numeric;
  v_fits numeric;
  v_tat numeric;              -- the bucket's TAT as each item leaves it
  v_base numeric;
  v_rem numeric;
  v_wait numeric;
  v_wait1 numeric;
  v_ws_ts timestamptz;
  v_fresh boolean;            -- the row's counts belong to an earlier statistics window: they restart
  v_cost_ok bigint := 0;
  v_eps constant numeric := 0.000001;
  r ratelimit_counters;
BEGIN
  SELECT * INTO pol FROM ratelimit_policies WHERE name = p_policy;
  IF NOT FOUND OR pol.algorithm NOT IN ('fixed_window', 'token_bucket') OR pol.log OR n = 1 OR EXISTS (SELECT 1 FROM unnest(p_costs) c WHERE c <= 0) THEN
    FOR j IN 1 .. n LOOP
      v_res[j] := admit_ratelimit_check(p_policy, p_key, p_costs[j], p_infos[j], p_lock_timeout_ms, p_now);
    END LOOP;
    RETURN v_res;
  END IF;
  -- As admit_ratelimit_check: the limit in force and the key's next override boundary, one look-up.
  SELECT max(o.quota) FILTER (WHERE o.valid @> p_now),
         min(CASE WHEN lower(o.valid) > p_now THEN lower(o.valid) ELSE upper(o.valid) END)
    INTO v_over, v_next
    FROM ratelimit_overrides o
   WHERE o.policy = p_policy AND o.key = p_key AND o.valid && tstzrange(p_now, NULL, '[)');
  v_limit := coalesce(v_over, pol.quota);
  IF pol.algorithm = 'token_bucket' THEN
    -- As admit_ratelimit_check_any's token bucket, item by item on the row's TAT: admitted iff
    -- max(TAT, now) ≤ now + window − cost·T; then TAT := max(TAT, now) + cost·T. The statistics
    -- (consumed, admitted, …) restart when the aligned window has moved on.
    v_nowx := admit_ts_to_ms(p_now);
    v_w := pol.window_ms;
    v_t := v_w / v_limit;
    v_ws_ts := admit_ms_to_ts(floor(v_nowx / v_w) * v_w);
    SELECT * INTO r FROM ratelimit_counters c
     WHERE c.policy = p_policy AND c.key = p_key AND c.slot = -1 FOR NO KEY UPDATE;
    IF NOT FOUND THEN
      INSERT INTO ratelimit_counters
        (policy, key, slot, window_start, consumed, admitted, attempted, rejected, tat, last_allowed, expires_at)
      VALUES (p_policy, p_key, -1, v_ws_ts, 0, 0, 0, 0, v_nowx, false, admit_ms_to_ts(admit_ts_to_ms(v_ws_ts) + v_w))
      ON CONFLICT (policy, key, slot) DO NOTHING;
      SELECT * INTO r FROM ratelimit_counters c
       WHERE c.policy = p_policy AND c.key = p_key AND c.slot = -1 FOR NO KEY UPDATE;
    END IF;
    v_fresh := r.window_start <> v_ws_ts;
    v_tat := r.tat;
    FOR j IN 1 .. n LOOP
      v_inc := p_costs[j] * v_t;
      v_fits := v_nowx + v_w + v_eps - v_inc;
      v_ok := greatest(v_tat, v_nowx) <= v_fits;
      IF v_ok THEN
        v_tat := greatest(v_tat, v_nowx) + v_inc;
        v_admitted := v_admitted + 1;
        v_cost_ok := v_cost_ok + p_costs[j];
      END IF;
      v_base := greatest(v_tat, v_nowx);
      v_rem := least(v_limit, floor((v_w - (v_base - v_nowx) + v_eps) / v_t));
      v_wait := CASE WHEN NOT v_ok
                     THEN admit_ratelimit_wait_ms('token_bucket', v_limit, v_w, v_nowx, p_costs[j], 0, 0, 0, v_tat) END;
      v_wait1 := CASE WHEN v_rem >= 1 THEN 0
                      ELSE admit_ratelimit_wait_ms('token_bucket', v_limit, v_w, v_nowx, 1, 0, 0, 0, v_tat) END;
      IF v_next IS NOT NULL THEN
        IF v_wait IS NOT NULL THEN v_wait := least(v_wait, admit_ts_to_ms(v_next) - v_nowx); END IF;
        v_wait1 := least(v_wait1, admit_ts_to_ms(v_next) - v_nowx);
      END IF;
      v_res[j] := json_build_object(
        'allowed', v_ok,
        'policy', p_policy,
        'key', p_key,
        'limit', v_limit,
        'window_ms', pol.window_ms,
        'log', false,
        'remaining', greatest(0, v_rem)::bigint,
        'reset_ms', ceil(greatest(0, v_base - v_nowx))::bigint,
        'retry_after_ms', ceil(v_wait)::bigint,
        'wait1_ms', ceil(v_wait1)::bigint,
        'timeout_ms', pol.timeout_ms,
        'on_unavailable', pol.on_unavailable);
    END LOOP;
    UPDATE ratelimit_counters
       SET tat = v_tat,
           window_start = v_ws_ts,
           consumed = CASE WHEN v_fresh THEN 0 ELSE consumed END + v_cost_ok,
           admitted = CASE WHEN v_fresh THEN 0 ELSE admitted END + v_admitted,
           attempted = CASE WHEN v_fresh THEN 0 ELSE attempted END + n,
           rejected = CASE WHEN v_fresh THEN 0 ELSE rejected END + (n - v_admitted),
           last_allowed = v_ok,
           -- As the one check: the row outlives the bucket's TAT, so the sweeper never hands the key a full one.
           expires_at = admit_ms_to_ts(greatest(v_tat, admit_ts_to_ms(v_ws_ts) + v_w))
     WHERE policy = p_policy AND key = p_key AND slot = -1;
    RETURN v_res;
  END IF;
  v_now := floor(extract(epoch FROM p_now) * 1000);
  v_ws := v_now / pol.window_ms * pol.window_ms;
  v_slot := v_ws / pol.window_ms;
  v_end := v_ws + pol.window_ms - v_now;
  v_stop := v_end;
  IF v_next IS NOT NULL THEN
    v_stop := least(v_end, ceil(admit_ts_to_ms(v_next) - admit_ts_to_ms(p_now))::bigint);
  END IF;
  -- The counter row, locked (created empty first if this window has none yet).
  SELECT c.consumed INTO v_cons FROM ratelimit_counters c
   WHERE c.policy = p_policy AND c.key = p_key AND c.slot = v_slot FOR NO KEY UPDATE;
  IF NOT FOUND THEN
    INSERT INTO ratelimit_counters
      (policy, key, slot, window_start, consumed, admitted, attempted, rejected, last_allowed, expires_at)
    VALUES (p_policy, p_key, v_slot, 'epoch'::timestamptz + v_ws * interval '1 millisecond', 0, 0, 0, 0, false,
            'epoch'::timestamptz + (v_ws + pol.window_ms + greatest(pol.window_ms, pol.history_ms)) * interval '1 millisecond')
    ON CONFLICT (policy, key, slot) DO NOTHING;
    SELECT c.consumed INTO v_cons FROM ratelimit_counters c
     WHERE c.policy = p_policy AND c.key = p_key AND c.slot = v_slot FOR NO KEY UPDATE;
  END IF;
  FOR j IN 1 .. n LOOP
    -- admit_ratelimit_check: admitted iff consumed ≤ limit − cost.
    v_ok := v_cons <= v_limit - p_costs[j];
    IF v_ok THEN
      v_cons := v_cons + p_costs[j];
      v_admitted := v_admitted + 1;
    END IF;
    v_left := v_limit - v_cons;
    v_res[j] := json_build_object(
      'allowed', v_ok,
      'policy', p_policy,
      'key', p_key,
      'limit', v_limit,
      'window_ms', pol.window_ms,
      'log', false,
      'remaining', greatest(0, v_left),
      'reset_ms', v_end,
      'retry_after_ms', CASE WHEN NOT v_ok AND p_costs[j] <= v_limit THEN v_stop END,
      'wait1_ms', CASE WHEN v_left >= 1 THEN 0 ELSE v_stop END,
      'timeout_ms', pol.timeout_ms,
      'on_unavailable', pol.on_unavailable);
  END LOOP;
  UPDATE ratelimit_counters
     SET consumed = v_cons,
         admitted = admitted + v_admitted,
         attempted = attempted + n,
         rejected = rejected + (n - v_admitted),
         last_allowed = v_ok
   WHERE policy = p_policy AND key = p_key AND slot = v_slot;
  RETURN v_res;
END
$$;
