-- Rate limits: a batch decides a run of checks on one counter as one set (issue 33, part 2: the
-- library layer). admit_ratelimit_check_batch (000101) called the one-check function once per item,
-- so a hot key's batch of 64 paid 64 policy reads, 64 override look-ups and 64 upserts of the same
-- row, one after another in one backend (~77 µs each). Now the items of one (policy, key) — a "run",
-- consecutive in the batch's lock order anyway — go to admit_ratelimit_check_run, which for a
-- fixed-window or token-bucket policy without a log reads the policy and the key's overrides once,
-- locks the counter row once, decides the items in arrival order in memory, each exactly as its own
-- statement would (the same arithmetic as admit_ratelimit_check's fast path, and as
-- admit_ratelimit_check_any's token bucket on the row's TAT), and writes the row once.
--
-- Everything else — a sliding window, a logged policy (its log rows carry each item's info), a cost
-- of 0 (a peek), a missing policy, a run of one, a multi-policy item — is decided item by item by the
-- one-check functions, as before. The lock order is unchanged: policy rows by name first (FOR KEY
-- SHARE), then the counter rows in (key, policy) order, one row per run.

CREATE FUNCTION admit_ratelimit_check_run(p_policy text, p_key text, p_costs integer[], p_infos jsonb[],
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

CREATE OR REPLACE FUNCTION admit_ratelimit_check_batch(p_items jsonb, p_lock_timeout_ms integer) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  v_res json[] := array_fill(NULL::json, ARRAY[jsonb_array_length(p_items)]);
  g record;
  v_run json[];
  v_set text;
  j integer;
BEGIN
  v_set := set_config('lock_timeout', p_lock_timeout_ms || 'ms', true);
  PERFORM 1
     FROM ratelimit_policies p
    WHERE p.name IN (SELECT jsonb_array_elements_text(CASE WHEN e ? 'ps' THEN e -> 'ps' ELSE jsonb_build_array(e -> 'p') END)
                       FROM jsonb_array_elements(p_items) e)
    ORDER BY p.name COLLATE "C"
      FOR KEY SHARE;
  -- One row per (key, policy) in the counters' lock order; a multi-policy item's key is its own
  -- (the coalescer holds a second item of that key for the next batch), so it is a run of one.
  FOR g IN
    SELECT t.k, t.p, array_agg(t.i::integer ORDER BY t.i) AS idx, array_agg(t.e ORDER BY t.i) AS es
      FROM (SELECT e ->> 'k' AS k, e ->> 'p' AS p, e, i FROM jsonb_array_elements(p_items) WITH ORDINALITY AS u(e, i)) t
     GROUP BY t.k, t.p
     ORDER BY t.k COLLATE "C", t.p COLLATE "C"
  LOOP
    IF g.p IS NULL OR cardinality(g.idx) = 1 THEN
      FOR j IN 1 .. cardinality(g.idx) LOOP
        IF g.es[j] ? 'ps' THEN
          v_res[g.idx[j]] := admit_ratelimit_check_multi(ARRAY(SELECT jsonb_array_elements_text(g.es[j] -> 'ps')), g.k,
                                                         (g.es[j] ->> 'c')::integer, g.es[j] -> 'i', p_lock_timeout_ms);
        ELSE
          v_res[g.idx[j]] := admit_ratelimit_check(g.p, g.k, (g.es[j] ->> 'c')::integer, g.es[j] -> 'i', p_lock_timeout_ms);
        END IF;
      END LOOP;
    ELSE
      v_run := admit_ratelimit_check_run(g.p, g.k, ARRAY(SELECT (e ->> 'c')::integer FROM unnest(g.es) WITH ORDINALITY u(e, o) ORDER BY o),
                                         ARRAY(SELECT e -> 'i' FROM unnest(g.es) WITH ORDINALITY u(e, o) ORDER BY o), p_lock_timeout_ms);
      FOR j IN 1 .. cardinality(g.idx) LOOP
        v_res[g.idx[j]] := v_run[j];
      END LOOP;
    END IF;
  END LOOP;
  RETURN array_to_json(v_res);
END
$$;
