-- A token-bucket check refused on a key's first check computed its counter row's expiry from the
-- cost it did not take: now + cost · (window / limit). With the largest cost (10^9) on a long window
-- that is out of Postgres's timestamp range, and a valid request answered 422 "the database rejected
-- a value" instead of 429. The row now expires as the ON CONFLICT branch already had it: from the
-- TAT after this check, which a refusal leaves at now. Otherwise the function is 000016's as dumped.

CREATE OR REPLACE FUNCTION admit_ratelimit_check_any(p_policy text, p_key text, p_cost integer, p_info jsonb, p_lock_timeout_ms integer, p_now timestamp with time zone DEFAULT now())
 RETURNS json
 LANGUAGE plpgsql
AS $function$
DECLARE
  pol ratelimit_policies;
  v_limit integer;
  v_now numeric := admit_ts_to_ms(p_now);
  v_w numeric;
  v_t numeric;                 -- GCRA emission interval: window / limit
  v_slot bigint;
  v_ws numeric;                -- window start, ms
  v_prev numeric;              -- sliding: consumed units of the previous window
  v_weight numeric;            -- sliding: share of the previous window still inside the sliding one
  v_expires timestamptz;
  r ratelimit_counters;
  v_allowed boolean;
  v_remaining numeric;
  v_reset numeric;
  v_cur numeric;
  v_base numeric;
  v_room numeric;              -- windows: the most `consumed` may be for this cost to fit
  v_inc numeric;               -- GCRA: cost · T
  v_fits numeric;              -- GCRA: the latest max(TAT, now) that still admits this cost
  v_ws_ts timestamptz;
  v_eps constant numeric := 0.000001;  -- numeric division rounds at ~1e-20; never let that deny the last unit
BEGIN
  PERFORM set_config('lock_timeout', p_lock_timeout_ms::text || 'ms', true);
  SELECT * INTO pol FROM ratelimit_policies WHERE name = p_policy;
  IF NOT FOUND THEN RETURN NULL; END IF;
  -- admit_ratelimit_frame(), inlined: a nested plpgsql call costs more than these lines on every check.
  v_limit := coalesce(
    (SELECT o.quota FROM ratelimit_overrides o WHERE o.policy = p_policy AND o.key = p_key AND o.valid @> p_now),
    pol.quota);
  v_w := pol.window_ms;
  v_slot := floor(v_now / v_w);
  v_ws := v_slot * v_w;
  v_prev := 0;
  v_weight := 0;
  IF pol.algorithm = 'sliding_window' THEN
    v_prev := coalesce((SELECT c.consumed FROM ratelimit_counters c
                         WHERE c.policy = p_policy AND c.key = p_key AND c.slot = v_slot - 1), 0);
    v_weight := 1 - (v_now - v_ws) / v_w;
  END IF;

  IF pol.algorithm = 'token_bucket' THEN
    v_t := v_w / v_limit;
    IF p_cost = 0 THEN
      SELECT * INTO r FROM ratelimit_counters WHERE policy = p_policy AND key = p_key AND slot = -1;
      v_base := greatest(coalesce(r.tat, v_now), v_now);
      v_allowed := v_base + v_t - v_now <= v_w + v_eps;
    ELSE
      -- Admit iff max(TAT, now) + cost·T − now ≤ window, i.e. max(TAT, now) ≤ v_fits; then TAT := max(TAT, now) + cost·T.
      v_inc := p_cost * v_t;
      v_fits := v_now + v_w + v_eps - v_inc;
      v_ws_ts := admit_ms_to_ts(v_ws);
      INSERT INTO ratelimit_counters AS c
        (policy, key, slot, window_start, consumed, admitted, attempted, rejected, tat, last_allowed, expires_at)
      VALUES (p_policy, p_key, -1, v_ws_ts,
              CASE WHEN v_now <= v_fits THEN p_cost ELSE 0 END,
              CASE WHEN v_now <= v_fits THEN 1 ELSE 0 END, 1,
              CASE WHEN v_now <= v_fits THEN 0 ELSE 1 END,
              CASE WHEN v_now <= v_fits THEN v_now + v_inc ELSE v_now END,
              v_now <= v_fits,
              -- A refused first check keeps no tokens: the row expires with its window, not cost·T
              -- ahead (which for the largest cost on a long window was out of timestamp range).
              admit_ms_to_ts(greatest(CASE WHEN v_now <= v_fits THEN v_now + v_inc ELSE v_now END, v_ws + v_w)))
      ON CONFLICT (policy, key, slot) DO UPDATE SET
        -- Every right-hand side reads the row as it was (the latest committed version, locked).
        -- The counts restart when the aligned statistics window has moved on.
        last_allowed = greatest(c.tat, v_now) <= v_fits,
        tat = CASE WHEN greatest(c.tat, v_now) <= v_fits THEN greatest(c.tat, v_now) + v_inc ELSE c.tat END,
        window_start = v_ws_ts,
        consumed = CASE WHEN c.window_start = v_ws_ts THEN c.consumed ELSE 0 END
                 + CASE WHEN greatest(c.tat, v_now) <= v_fits THEN p_cost ELSE 0 END,
        admitted = CASE WHEN c.window_start = v_ws_ts THEN c.admitted ELSE 0 END
                 + CASE WHEN greatest(c.tat, v_now) <= v_fits THEN 1 ELSE 0 END,
        attempted = CASE WHEN c.window_start = v_ws_ts THEN c.attempted ELSE 0 END + 1,
        rejected = CASE WHEN c.window_start = v_ws_ts THEN c.rejected ELSE 0 END
                 + CASE WHEN greatest(c.tat, v_now) <= v_fits THEN 0 ELSE 1 END,
        -- From the new TAT (the same expression as `tat` above): the row outlives it, so the sweeper
        -- never deletes a bucket that is still (partly) empty and hands the key a full one.
        expires_at = admit_ms_to_ts(greatest(
          CASE WHEN greatest(c.tat, v_now) <= v_fits THEN greatest(c.tat, v_now) + v_inc ELSE c.tat END,
          v_ws + v_w))
      RETURNING * INTO r;
      v_allowed := r.last_allowed;
      v_base := greatest(r.tat, v_now);
    END IF;
    v_remaining := least(v_limit, floor((v_w - (v_base - v_now) + v_eps) / v_t));
    v_reset := v_base - v_now;
  ELSE
    IF p_cost = 0 THEN
      SELECT * INTO r FROM ratelimit_counters WHERE policy = p_policy AND key = p_key AND slot = v_slot;
      v_cur := coalesce(r.consumed, 0);
      v_allowed := v_cur + 1 + v_prev * v_weight <= v_limit;
    ELSE
      v_expires := admit_ms_to_ts(v_ws + v_w + greatest(v_w, pol.history_ms));
      -- Admit iff consumed + cost + prev·weight ≤ limit, i.e. consumed ≤ v_room.
      v_room := v_limit - p_cost - v_prev * v_weight;
      INSERT INTO ratelimit_counters AS c
        (policy, key, slot, window_start, consumed, admitted, attempted, rejected, last_allowed, expires_at)
      VALUES (p_policy, p_key, v_slot, admit_ms_to_ts(v_ws),
              CASE WHEN 0 <= v_room THEN p_cost ELSE 0 END,
              CASE WHEN 0 <= v_room THEN 1 ELSE 0 END, 1,
              CASE WHEN 0 <= v_room THEN 0 ELSE 1 END,
              0 <= v_room, v_expires)
      ON CONFLICT (policy, key, slot) DO UPDATE SET
        -- Every right-hand side reads the row as it was (the latest committed version, locked).
        last_allowed = c.consumed <= v_room,
        consumed = c.consumed + CASE WHEN c.consumed <= v_room THEN p_cost ELSE 0 END,
        admitted = c.admitted + CASE WHEN c.consumed <= v_room THEN 1 ELSE 0 END,
        attempted = c.attempted + 1,
        rejected = c.rejected + CASE WHEN c.consumed <= v_room THEN 0 ELSE 1 END
      RETURNING * INTO r;
      v_allowed := r.last_allowed;
      v_cur := r.consumed;
    END IF;
    v_remaining := floor(v_limit - v_cur - v_prev * v_weight);
    v_reset := v_ws + v_w - v_now;
  END IF;

  IF pol.log AND p_cost > 0 THEN
    INSERT INTO ratelimit_log (at, policy, key, allowed, cost, info, expires_at)
    VALUES (p_now, p_policy, p_key, v_allowed, p_cost, p_info, p_now + pol.history_ms * interval '1 millisecond');
  END IF;

  RETURN json_build_object(
    'allowed', v_allowed,
    'policy', p_policy,
    'key', p_key,
    'limit', v_limit,
    'window_ms', pol.window_ms,
    'log', pol.log,
    'remaining', greatest(0, v_remaining)::bigint,
    'reset_ms', ceil(greatest(0, v_reset))::bigint,
    'retry_after_ms', CASE WHEN NOT v_allowed THEN
        ceil(admit_ratelimit_wait_ms(pol.algorithm, v_limit, v_w, v_now, greatest(p_cost, 1), v_ws, coalesce(v_cur, 0), v_prev, r.tat))::bigint END,
    -- A unit still fits now (remaining ≥ 1) ⇒ waiting for one unit is 0: skip the computation
    -- while the counter row is locked.
    'wait1_ms', CASE WHEN v_remaining >= 1 THEN 0
                ELSE ceil(admit_ratelimit_wait_ms(pol.algorithm, v_limit, v_w, v_now, 1, v_ws, coalesce(v_cur, 0), v_prev, r.tat))::bigint END,
    'timeout_ms', pol.timeout_ms,
    'on_unavailable', pol.on_unavailable);
END
$function$;
