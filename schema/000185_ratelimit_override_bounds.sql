-- One override look-up for every check, in one place, with a plan that does not depend on the
-- table's statistics.
--
-- Each check function carried its own copy of the two-form look-up (the key's own overrides, or
-- with patterns the key and its prefixes). The pattern form probed `prefix = ANY (prefixes)` on
-- (policy, prefix, lower(valid)); the planner chose that index only when its statistics knew how
-- many overrides the policy has. Until autovacuum's next ANALYZE after a policy gained its pattern
-- overrides, a policy it had not seen looked like one row, and each look-up read every override of
-- the policy through the (policy) index instead: 1 000 overrides, ~0.4 ms per look-up, twice per
-- check. Here each prefix is probed on its own (policy, prefix) equality, and the function keeps
-- one generic plan: the index is chosen from its columns, not from how many rows the planner
-- believes the policy has, and the query is not planned anew on every call.
CREATE FUNCTION admit_ratelimit_override_bounds(p_pol ratelimit_policies, p_key text, p_now timestamptz,
                                                OUT o_quota integer, OUT o_next timestamptz)
 LANGUAGE plpgsql
 STABLE
 SET plan_cache_mode = force_generic_plan
AS $function$
BEGIN
  IF p_pol.pattern_prefix_lengths = '{}' THEN
    -- No patterns: the key's own overrides, on the EXCLUDE constraint's index (policy, key, valid).
    SELECT max(o.quota) FILTER (WHERE o.valid @> p_now),
           min(CASE WHEN lower(o.valid) > p_now THEN lower(o.valid) ELSE upper(o.valid) END)
      INTO o_quota, o_next
      FROM ratelimit_overrides o
     WHERE o.policy = p_pol.name AND o.key = p_key AND o.valid && tstzrange(p_now, NULL, '[)');
  ELSE
    -- The key and its prefixes of the policy's pattern lengths, each on (policy, prefix,
    -- lower(valid)): exact first, then the longest prefix.
    SELECT (array_agg(o.quota ORDER BY o.pattern, length(o.prefix) DESC) FILTER (WHERE o.valid @> p_now))[1],
           min(CASE WHEN lower(o.valid) > p_now THEN lower(o.valid) ELSE upper(o.valid) END)
      INTO o_quota, o_next
      FROM unnest(admit_ratelimit_key_prefixes(p_key, p_pol.pattern_prefix_lengths)) x(prefix)
     CROSS JOIN LATERAL (SELECT * FROM ratelimit_overrides o WHERE o.policy = p_pol.name AND o.prefix = x.prefix OFFSET 0) o
     WHERE (upper_inf(o.valid) OR upper(o.valid) > p_now) AND (o.key = p_key OR o.pattern AND p_key LIKE o.key_like);
  END IF;
END
$function$;
COMMENT ON FUNCTION admit_ratelimit_override_bounds(ratelimit_policies, text, timestamptz) IS 'For a check of (policy, key) at p_now: the limit of the override in force (the key''s exact override, else its most specific pattern; NULL when none) and the next boundary after now of any override matching the key (the start of a later one, or the end of one in force), where the limit may change.';

CREATE OR REPLACE FUNCTION admit_ratelimit_override_in_force(p_pol ratelimit_policies, p_key text, p_now timestamptz)
 RETURNS ratelimit_overrides
 LANGUAGE plpgsql
 STABLE
 SET plan_cache_mode = force_generic_plan
AS $function$
DECLARE
  r ratelimit_overrides;
BEGIN
  -- The two forms of admit_ratelimit_override_bounds, for the override in force only.
  IF p_pol.pattern_prefix_lengths = '{}' THEN
    SELECT * INTO r FROM ratelimit_overrides o WHERE o.policy = p_pol.name AND o.key = p_key AND o.valid @> p_now;
  ELSE
    SELECT o.* INTO r
      FROM unnest(admit_ratelimit_key_prefixes(p_key, p_pol.pattern_prefix_lengths)) x(prefix)
     CROSS JOIN LATERAL (SELECT * FROM ratelimit_overrides o WHERE o.policy = p_pol.name AND o.prefix = x.prefix OFFSET 0) o
     WHERE lower(o.valid) <= p_now AND (upper_inf(o.valid) OR upper(o.valid) > p_now)
       AND (o.key = p_key OR o.pattern AND p_key LIKE o.key_like)
     ORDER BY o.pattern, length(o.prefix) DESC
     LIMIT 1;
  END IF;
  RETURN r;
END
$function$;
COMMENT ON FUNCTION admit_ratelimit_override_in_force(ratelimit_policies, text, timestamptz) IS 'The override in force for a key at a moment: its exact override, else the matching pattern with the longest literal prefix; a row of NULLs when none.';

-- The check functions, each with its look-up replaced by admit_ratelimit_override_bounds (nothing else changed).

CREATE OR REPLACE FUNCTION admit_ratelimit_check(p_policy text, p_key text, p_cost integer, p_info jsonb, p_lock_timeout_ms integer, p_now timestamp with time zone DEFAULT now(), p_edge boolean DEFAULT false)
 RETURNS json
 LANGUAGE plpgsql
AS $function$
DECLARE
  pol ratelimit_policies;
  v_limit integer;
  v_now bigint;                -- ms since the epoch, floored: slot and reset come out as in numeric
  v_ws bigint;                 -- window start, ms
  v_end bigint;                -- ms until the window ends
  v_room bigint;               -- the most `consumed` may be for this cost to fit
  v_left bigint;
  v_set text;
  r ratelimit_counters;
  v_over integer;              -- the quota of the override in force, if any
  v_next timestamptz;          -- the key's next override boundary after now, if any
  v_stop bigint;               -- ms until the window ends, or until that boundary if sooner
  v_cur bigint;                -- the committed counter, read without a lock
  v_read json;
BEGIN
  SELECT * INTO pol FROM ratelimit_policies WHERE name = p_policy;
  IF NOT FOUND THEN RETURN NULL; END IF;
  IF p_edge AND NOT pol.durable THEN
    -- A counter may commit asynchronously: a crash can lose its last moments (docs/ratelimits.md).
    v_set := set_config('synchronous_commit', 'off', true);
  END IF;
  IF p_edge AND pol.algorithm IN ('token_bucket', 'sliding_window') AND p_cost > 0 AND NOT pol.log THEN
    v_read := admit_ratelimit_refused(pol, p_key, p_cost, p_now);
    IF v_read IS NOT NULL THEN RETURN v_read; END IF;
  END IF;
  IF pol.algorithm <> 'fixed_window' OR p_cost <= 0 OR pol.log THEN
    RETURN admit_ratelimit_check_any(p_policy, p_key, p_cost, p_info, p_lock_timeout_ms, p_now);
  END IF;
  -- An assignment, not PERFORM: a simple expression skips the executor.
  v_set := set_config('lock_timeout', p_lock_timeout_ms || 'ms', true);
  -- The limit in force (the key's exact override valid now, else its most specific pattern override
  -- valid now, else the policy's) and the next boundary after now of any override matching the key
  -- (the start of a later one, or the end of one in force). No wait answered goes
  -- past that boundary, where the limit may change.
  SELECT b.o_quota, b.o_next INTO v_over, v_next FROM admit_ratelimit_override_bounds(pol, p_key, p_now) b;
  v_limit := coalesce(v_over, pol.quota);
  v_now := floor(extract(epoch FROM p_now) * 1000);
  v_ws := v_now / pol.window_ms * pol.window_ms;
  v_end := v_ws + pol.window_ms - v_now;
  v_room := v_limit - p_cost;
  v_stop := v_end;
  IF v_next IS NOT NULL THEN
    -- As admit_ratelimit_check_any: no wait past the next override boundary (same arithmetic, so the
    -- same milliseconds).
    v_stop := least(v_end, ceil(admit_ts_to_ms(v_next) - admit_ts_to_ms(p_now))::bigint);
  END IF;
  -- A refusal the committed counter already decides takes no lock and writes nothing: the caller
  -- counts it (attempted, rejected) through its isolate's tally, as a deny-cache answer.
  IF p_edge THEN
    SELECT c.consumed INTO v_cur FROM ratelimit_counters c WHERE c.policy = p_policy AND c.key = p_key AND c.slot = v_ws / pol.window_ms;
  END IF;
  IF v_cur > v_room THEN
    RETURN json_build_object(
      'allowed', false, 'policy', p_policy, 'key', p_key, 'limit', v_limit, 'window_ms', pol.window_ms, 'log', false,
      'remaining', greatest(0, v_limit - v_cur), 'reset_ms', v_end,
      'retry_after_ms', CASE WHEN p_cost <= v_limit THEN v_stop END,
      'wait1_ms', CASE WHEN v_limit - v_cur >= 1 THEN 0 ELSE v_stop END,
      'timeout_ms', pol.timeout_ms, 'on_unavailable', pol.on_unavailable,
      'counted', false, 'window_start_ms', v_ws);
  END IF;
  INSERT INTO ratelimit_counters AS c
    (policy, key, slot, window_start, consumed, admitted, attempted, rejected, last_allowed, expires_at)
  VALUES (p_policy, p_key, v_ws / pol.window_ms, 'epoch'::timestamptz + v_ws * interval '1 millisecond',
          CASE WHEN 0 <= v_room THEN p_cost ELSE 0 END,
          CASE WHEN 0 <= v_room THEN 1 ELSE 0 END, 1,
          CASE WHEN 0 <= v_room THEN 0 ELSE 1 END,
          0 <= v_room,
          'epoch'::timestamptz + (v_ws + pol.window_ms + greatest(pol.window_ms, pol.history_ms)) * interval '1 millisecond')
  ON CONFLICT (policy, key, slot) DO UPDATE SET
    -- Every right-hand side reads the row as it was (the latest committed version, locked).
    last_allowed = c.consumed <= v_room,
    consumed = c.consumed + CASE WHEN c.consumed <= v_room THEN p_cost ELSE 0 END,
    admitted = c.admitted + CASE WHEN c.consumed <= v_room THEN 1 ELSE 0 END,
    attempted = c.attempted + 1,
    rejected = c.rejected + CASE WHEN c.consumed <= v_room THEN 0 ELSE 1 END
  RETURNING * INTO r;
  v_left := v_limit - r.consumed;
  RETURN json_build_object(
    'allowed', r.last_allowed,
    'policy', p_policy,
    'key', p_key,
    'limit', v_limit,
    'window_ms', pol.window_ms,
    'log', false,
    'remaining', greatest(0, v_left),
    'reset_ms', v_end,
    -- Refused: the window's end (or the next override boundary), or never when the cost is above the limit.
    'retry_after_ms', CASE WHEN NOT r.last_allowed AND p_cost <= v_limit THEN v_stop END,
    'wait1_ms', CASE WHEN v_left >= 1 THEN 0 ELSE v_stop END,
    'timeout_ms', pol.timeout_ms,
    'on_unavailable', pol.on_unavailable);
END
$function$;
COMMENT ON FUNCTION admit_ratelimit_check(p_policy text, p_key text, p_cost integer, p_info jsonb, p_lock_timeout_ms integer, p_now timestamp with time zone, p_edge boolean) IS 'Decides one rate-limit check of p_cost units for (policy, key): with p_edge a refusal the committed counter decides from a read (counted: false), else the fixed-window fast path, else admit_ratelimit_check_any. With p_edge (the Worker''s check, its own transaction, counted through the isolate''s tally) refusals come from reads and it commits asynchronously unless the policy is durable.';

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
  v_over integer;              -- the quota of the override in force, if any
  v_next timestamptz;          -- the key's next override boundary after now, if any
  v_wait numeric;
  v_wait1 numeric;
BEGIN
  PERFORM set_config('lock_timeout', p_lock_timeout_ms::text || 'ms', true);
  SELECT * INTO pol FROM ratelimit_policies WHERE name = p_policy;
  IF NOT FOUND THEN RETURN NULL; END IF;
  -- admit_ratelimit_frame(), inlined but for the override look-up, which every check shares.
  -- The limit in force (the key's exact override valid now, else its most specific pattern override
  -- valid now, else the policy's) and the next boundary after now of any override matching the key
  -- (the start of a later one, or the end of one in force). No wait answered goes
  -- past that boundary, where the limit may change.
  SELECT b.o_quota, b.o_next INTO v_over, v_next FROM admit_ratelimit_override_bounds(pol, p_key, p_now) b;
  v_limit := coalesce(v_over, pol.quota);
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

  IF NOT v_allowed THEN
    v_wait := admit_ratelimit_wait_ms(pol.algorithm, v_limit, v_w, v_now, greatest(p_cost, 1), v_ws, coalesce(v_cur, 0), v_prev, r.tat);
  END IF;
  -- A unit still fits now (remaining ≥ 1) ⇒ waiting for one unit is 0: skip the computation
  -- while the counter row is locked.
  v_wait1 := CASE WHEN v_remaining >= 1 THEN 0
                  ELSE admit_ratelimit_wait_ms(pol.algorithm, v_limit, v_w, v_now, 1, v_ws, coalesce(v_cur, 0), v_prev, r.tat) END;
  IF v_next IS NOT NULL THEN
    -- Stop at the next override boundary: the limit changes there, so the wait computed under this
    -- one says nothing past it (NULL, a cost above the limit in force, stays NULL).
    -- (least() skips NULLs: a NULL wait is left alone, not replaced by the boundary.)
    IF v_wait IS NOT NULL THEN v_wait := least(v_wait, admit_ts_to_ms(v_next) - v_now); END IF;
    v_wait1 := least(v_wait1, admit_ts_to_ms(v_next) - v_now);
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
    'retry_after_ms', ceil(v_wait)::bigint,
    'wait1_ms', ceil(v_wait1)::bigint,
    'timeout_ms', pol.timeout_ms,
    'on_unavailable', pol.on_unavailable);
END
$function$;
COMMENT ON FUNCTION admit_ratelimit_check_any(p_policy text, p_key text, p_cost integer, p_info jsonb, p_lock_timeout_ms integer, p_now timestamp with time zone) IS 'Decides one rate-limit check under any algorithm (fixed, sliding window, GCRA token bucket) on the database clock; a cost of 0 is a peek that writes nothing.';

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
    -- The limit in force and the next boundary of an override matching the key (see admit_ratelimit_check_any).
    SELECT b.o_quota, b.o_next INTO v_over, v_next FROM admit_ratelimit_override_bounds(pol, p_key, p_now) b;
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
COMMENT ON FUNCTION admit_ratelimit_check_multi(p_policies text[], p_key text, p_cost integer, p_info jsonb, p_lock_timeout_ms integer, p_now timestamp with time zone) IS 'Decides one check against several policies all-or-nothing: admitted only if every policy admits it (or would refuse in shadow mode), and a refusal leaves every policy as it was.';

CREATE OR REPLACE FUNCTION admit_ratelimit_check_run(p_policy text, p_key text, p_costs integer[], p_infos jsonb[], p_lock_timeout_ms integer, p_now timestamp with time zone DEFAULT now())
 RETURNS json[]
 LANGUAGE plpgsql
AS $function$
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
  -- As admit_ratelimit_check: the limit in force and the next boundary of a matching override, one scan.
  SELECT b.o_quota, b.o_next INTO v_over, v_next FROM admit_ratelimit_override_bounds(pol, p_key, p_now) b;
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
$function$;
COMMENT ON FUNCTION admit_ratelimit_check_run(p_policy text, p_key text, p_costs integer[], p_infos jsonb[], p_lock_timeout_ms integer, p_now timestamp with time zone) IS 'Decides consecutive checks of one (policy, key) with one counter write, each answered as it would have been alone, in order.';

CREATE OR REPLACE FUNCTION admit_ratelimit_refused(p_pol ratelimit_policies, p_key text, p_cost integer, p_now timestamp with time zone)
 RETURNS json
 LANGUAGE plpgsql
 STABLE
AS $function$
DECLARE
  v_limit integer;
  v_over integer;
  v_next timestamptz;
  v_now numeric := admit_ts_to_ms(p_now);
  v_w numeric := p_pol.window_ms;
  v_ws numeric;
  v_t numeric;
  v_base numeric;
  v_remaining numeric;
  v_wait numeric;
  v_wait1 numeric;
  v_eps constant numeric := 0.000001;  -- as admit_ratelimit_check_any
  v_ms bigint;                 -- fixed window: ms since the epoch, floored (as admit_ratelimit_check)
  v_stop numeric;
  r ratelimit_counters;
BEGIN
  IF p_pol.log OR p_cost <= 0 THEN RETURN NULL; END IF;
  v_ms := floor(extract(epoch FROM p_now) * 1000);
  IF p_pol.algorithm = 'sliding_window' THEN
    RETURN admit_ratelimit_refused_sliding(p_pol, p_key, p_cost, p_now);
  END IF;
  SELECT * INTO r FROM ratelimit_counters c
   WHERE c.policy = p_pol.name AND c.key = p_key
     AND c.slot = CASE WHEN p_pol.algorithm = 'token_bucket' THEN -1 ELSE v_ms / p_pol.window_ms END;
  IF NOT FOUND THEN RETURN NULL; END IF;
  SELECT b.o_quota, b.o_next INTO v_over, v_next FROM admit_ratelimit_override_bounds(p_pol, p_key, p_now) b;
  v_limit := coalesce(v_over, p_pol.quota);
  IF p_pol.algorithm = 'fixed_window' THEN
    -- Admitted iff consumed + cost ≤ limit (admit_ratelimit_check): not so, refused.
    IF r.consumed <= v_limit - p_cost THEN RETURN NULL; END IF;
    v_ws := v_ms / p_pol.window_ms * p_pol.window_ms;
    v_stop := v_ws + p_pol.window_ms - v_ms;
    IF v_next IS NOT NULL THEN
      v_stop := least(v_stop, ceil(admit_ts_to_ms(v_next) - v_now));
    END IF;
    RETURN json_build_object(
      'allowed', false, 'policy', p_pol.name, 'key', p_key, 'limit', v_limit, 'window_ms', p_pol.window_ms, 'log', false,
      'remaining', greatest(0, v_limit - r.consumed), 'reset_ms', v_ws + p_pol.window_ms - v_ms,
      'retry_after_ms', CASE WHEN p_cost <= v_limit THEN v_stop::bigint END,
      'wait1_ms', CASE WHEN v_limit - r.consumed >= 1 THEN 0 ELSE v_stop::bigint END,
      'timeout_ms', p_pol.timeout_ms, 'on_unavailable', p_pol.on_unavailable,
      'counted', false, 'window_start_ms', v_ws);
  END IF;
  v_t := v_w / v_limit;
  v_base := greatest(r.tat, v_now);
  -- Admitted iff max(TAT, now) + cost·T − now ≤ window (admit_ratelimit_check_any): not so, refused.
  IF v_base <= v_now + v_w + v_eps - p_cost * v_t THEN RETURN NULL; END IF;
  v_ws := floor(v_now / v_w) * v_w;
  v_remaining := least(v_limit, floor((v_w - (v_base - v_now) + v_eps) / v_t));
  v_wait := admit_ratelimit_wait_ms(p_pol.algorithm, v_limit, v_w, v_now, greatest(p_cost, 1), v_ws, 0, 0, r.tat);
  v_wait1 := CASE WHEN v_remaining >= 1 THEN 0 ELSE admit_ratelimit_wait_ms(p_pol.algorithm, v_limit, v_w, v_now, 1, v_ws, 0, 0, r.tat) END;
  IF v_next IS NOT NULL THEN
    IF v_wait IS NOT NULL THEN v_wait := least(v_wait, admit_ts_to_ms(v_next) - v_now); END IF;
    v_wait1 := least(v_wait1, admit_ts_to_ms(v_next) - v_now);
  END IF;
  RETURN json_build_object(
    'allowed', false, 'policy', p_pol.name, 'key', p_key, 'limit', v_limit, 'window_ms', p_pol.window_ms, 'log', false,
    'remaining', greatest(0, v_remaining)::bigint,
    'reset_ms', ceil(greatest(0, v_base - v_now))::bigint,
    'retry_after_ms', ceil(v_wait)::bigint,
    'wait1_ms', ceil(v_wait1)::bigint,
    'timeout_ms', p_pol.timeout_ms, 'on_unavailable', p_pol.on_unavailable,
    'counted', false, 'window_start_ms', v_ws);
END
$function$;
COMMENT ON FUNCTION admit_ratelimit_refused(p_pol ratelimit_policies, p_key text, p_cost integer, p_now timestamp with time zone) IS 'The refusal the committed counter already decides for a check of p_cost (fixed window, sliding window or token bucket; no log), read without a lock, in the answer''s shape with counted: false; NULL when only a locked write can decide.';

CREATE OR REPLACE FUNCTION admit_ratelimit_refused_sliding(p_pol ratelimit_policies, p_key text, p_cost integer, p_now timestamp with time zone)
 RETURNS json
 LANGUAGE plpgsql
 STABLE
AS $function$
DECLARE
  v_limit integer;
  v_over integer;
  v_next timestamptz;
  v_now numeric := admit_ts_to_ms(p_now);
  v_w numeric := p_pol.window_ms;
  v_slot bigint := floor(admit_ts_to_ms(p_now) / p_pol.window_ms);
  v_ws numeric;
  v_cur numeric;
  v_prev numeric;
  v_weight numeric;
  v_remaining numeric;
  v_wait numeric;
  v_wait1 numeric;
BEGIN
  -- The same quantities as admit_ratelimit_check_any, from the committed rows: this window's
  -- consumed units (none without a row) and the previous window's, weighted by its share still
  -- inside the sliding window.
  v_ws := v_slot * v_w;
  SELECT coalesce(max(c.consumed) FILTER (WHERE c.slot = v_slot), 0), coalesce(max(c.consumed) FILTER (WHERE c.slot = v_slot - 1), 0)
    INTO v_cur, v_prev
    FROM ratelimit_counters c
   WHERE c.policy = p_pol.name AND c.key = p_key AND c.slot IN (v_slot - 1, v_slot);
  v_weight := 1 - (v_now - v_ws) / v_w;
  SELECT b.o_quota, b.o_next INTO v_over, v_next FROM admit_ratelimit_override_bounds(p_pol, p_key, p_now) b;
  v_limit := coalesce(v_over, p_pol.quota);
  -- Admitted iff consumed ≤ limit − cost − prev·weight (admit_ratelimit_check_any): not so, refused.
  IF v_cur <= v_limit - p_cost - v_prev * v_weight THEN RETURN NULL; END IF;
  v_remaining := floor(v_limit - v_cur - v_prev * v_weight);
  v_wait := admit_ratelimit_wait_ms(p_pol.algorithm, v_limit, v_w, v_now, greatest(p_cost, 1), v_ws, v_cur, v_prev, NULL);
  v_wait1 := CASE WHEN v_remaining >= 1 THEN 0 ELSE admit_ratelimit_wait_ms(p_pol.algorithm, v_limit, v_w, v_now, 1, v_ws, v_cur, v_prev, NULL) END;
  IF v_next IS NOT NULL THEN
    IF v_wait IS NOT NULL THEN v_wait := least(v_wait, admit_ts_to_ms(v_next) - v_now); END IF;
    v_wait1 := least(v_wait1, admit_ts_to_ms(v_next) - v_now);
  END IF;
  RETURN json_build_object(
    'allowed', false, 'policy', p_pol.name, 'key', p_key, 'limit', v_limit, 'window_ms', p_pol.window_ms, 'log', false,
    'remaining', greatest(0, v_remaining)::bigint,
    'reset_ms', ceil(greatest(0, v_ws + v_w - v_now))::bigint,
    'retry_after_ms', ceil(v_wait)::bigint,
    'wait1_ms', ceil(v_wait1)::bigint,
    'timeout_ms', p_pol.timeout_ms, 'on_unavailable', p_pol.on_unavailable,
    'counted', false, 'window_start_ms', v_ws);
END
$function$;
COMMENT ON FUNCTION admit_ratelimit_refused_sliding(p_pol ratelimit_policies, p_key text, p_cost integer, p_now timestamp with time zone) IS 'admit_ratelimit_refused for a sliding window: the refusal this and the previous window''s committed counters already decide, read without a lock (counted: false); NULL when only a locked write can decide.';
