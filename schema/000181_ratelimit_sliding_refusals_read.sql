-- A sliding window's refusal is a read too (as a fixed window's and a token bucket's,
-- 000180_ratelimit_async_counters.sql): when the committed counters of this window and the previous
-- one already refuse a Worker's check (p_edge, no log, cost > 0), it is answered from those reads with
-- no row lock and no write (counted: false; the isolate's tally counts it). Re-created here, with no
-- change of signature: admit_ratelimit_refused, admit_ratelimit_check, admit_ratelimit_check_batch;
-- new: admit_ratelimit_refused_sliding.

CREATE FUNCTION admit_ratelimit_refused_sliding(p_pol ratelimit_policies, p_key text, p_cost integer, p_now timestamptz)
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
  IF p_pol.pattern_prefix_lengths = '{}' THEN
    -- No patterns: the key's own overrides, on the EXCLUDE constraint's index (policy, key, valid).
    SELECT max(o.quota) FILTER (WHERE o.valid @> p_now),
           min(CASE WHEN lower(o.valid) > p_now THEN lower(o.valid) ELSE upper(o.valid) END)
      INTO v_over, v_next
      FROM ratelimit_overrides o
     WHERE o.policy = p_pol.name AND o.key = p_key AND o.valid && tstzrange(p_now, NULL, '[)');
  ELSE
    -- The key and its prefixes of the policy's pattern lengths: exact first, then the longest prefix.
    SELECT (array_agg(o.quota ORDER BY o.pattern, length(o.prefix) DESC) FILTER (WHERE o.valid @> p_now))[1],
           min(CASE WHEN lower(o.valid) > p_now THEN lower(o.valid) ELSE upper(o.valid) END)
      INTO v_over, v_next
      FROM ratelimit_overrides o
     WHERE o.policy = p_pol.name AND o.prefix = ANY (admit_ratelimit_key_prefixes(p_key, p_pol.pattern_prefix_lengths))
       AND (upper_inf(o.valid) OR upper(o.valid) > p_now) AND (o.key = p_key OR o.pattern AND p_key LIKE o.key_like);
  END IF;
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
COMMENT ON FUNCTION admit_ratelimit_refused_sliding(ratelimit_policies, text, integer, timestamptz) IS 'admit_ratelimit_refused for a sliding window: the refusal this and the previous window''s committed counters already decide, read without a lock (counted: false); NULL when only a locked write can decide.';

CREATE OR REPLACE FUNCTION admit_ratelimit_refused(p_pol ratelimit_policies, p_key text, p_cost integer, p_now timestamptz)
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
  IF p_pol.pattern_prefix_lengths = '{}' THEN
    -- No patterns: the key's own overrides, on the EXCLUDE constraint's index (policy, key, valid).
    SELECT max(o.quota) FILTER (WHERE o.valid @> p_now),
           min(CASE WHEN lower(o.valid) > p_now THEN lower(o.valid) ELSE upper(o.valid) END)
      INTO v_over, v_next
      FROM ratelimit_overrides o
     WHERE o.policy = p_pol.name AND o.key = p_key AND o.valid && tstzrange(p_now, NULL, '[)');
  ELSE
    -- The key and its prefixes of the policy's pattern lengths: exact first, then the longest prefix.
    SELECT (array_agg(o.quota ORDER BY o.pattern, length(o.prefix) DESC) FILTER (WHERE o.valid @> p_now))[1],
           min(CASE WHEN lower(o.valid) > p_now THEN lower(o.valid) ELSE upper(o.valid) END)
      INTO v_over, v_next
      FROM ratelimit_overrides o
     WHERE o.policy = p_pol.name AND o.prefix = ANY (admit_ratelimit_key_prefixes(p_key, p_pol.pattern_prefix_lengths))
       AND (upper_inf(o.valid) OR upper(o.valid) > p_now) AND (o.key = p_key OR o.pattern AND p_key LIKE o.key_like);
  END IF;
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
COMMENT ON FUNCTION admit_ratelimit_refused(ratelimit_policies, text, integer, timestamptz) IS 'The refusal the committed counter already decides for a check of p_cost (fixed window, sliding window or token bucket; no log), read without a lock, in the answer''s shape with counted: false; NULL when only a locked write can decide.';

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
  -- (the start of a later one, or the end of one in force): one index scan. No wait answered goes
  -- past that boundary, where the limit may change.
  IF pol.pattern_prefix_lengths = '{}' THEN
    -- No patterns: the key's own overrides, on the EXCLUDE constraint's index (policy, key, valid).
    SELECT max(o.quota) FILTER (WHERE o.valid @> p_now),
           min(CASE WHEN lower(o.valid) > p_now THEN lower(o.valid) ELSE upper(o.valid) END)
      INTO v_over, v_next
      FROM ratelimit_overrides o
     WHERE o.policy = p_policy AND o.key = p_key AND o.valid && tstzrange(p_now, NULL, '[)');
  ELSE
    -- The key and its prefixes of the policy's pattern lengths: exact first, then the longest prefix.
    SELECT (array_agg(o.quota ORDER BY o.pattern, length(o.prefix) DESC) FILTER (WHERE o.valid @> p_now))[1],
           min(CASE WHEN lower(o.valid) > p_now THEN lower(o.valid) ELSE upper(o.valid) END)
      INTO v_over, v_next
      FROM ratelimit_overrides o
     WHERE o.policy = p_policy AND o.prefix = ANY (admit_ratelimit_key_prefixes(p_key, pol.pattern_prefix_lengths))
       AND (upper_inf(o.valid) OR upper(o.valid) > p_now) AND (o.key = p_key OR o.pattern AND p_key LIKE o.key_like);
  END IF;
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
COMMENT ON FUNCTION admit_ratelimit_check(text, text, integer, jsonb, integer, timestamptz, boolean) IS 'Decides one rate-limit check of p_cost units for (policy, key): with p_edge a refusal the committed counter decides from a read (counted: false), else the fixed-window fast path, else admit_ratelimit_check_any. With p_edge (the Worker''s check, its own transaction, counted through the isolate''s tally) refusals come from reads and it commits asynchronously unless the policy is durable.';

CREATE OR REPLACE FUNCTION admit_ratelimit_check_batch(p_items jsonb, p_lock_timeout_ms integer, p_edge boolean DEFAULT false)
 RETURNS json
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_res json[] := array_fill(NULL::json, ARRAY[jsonb_array_length(p_items)]);
  g record;
  v_run json[];
  v_set text;
  j integer;
  pol ratelimit_policies;
  v_now timestamptz := now();
  v_read json;
BEGIN
  v_set := set_config('lock_timeout', p_lock_timeout_ms || 'ms', true);
  -- Counters commit asynchronously unless a policy of the batch is durable (docs/ratelimits.md).
  IF p_edge AND NOT EXISTS (
       SELECT FROM ratelimit_policies p
        WHERE p.durable AND p.name IN (SELECT jsonb_array_elements_text(CASE WHEN e ? 'ps' THEN e -> 'ps' ELSE jsonb_build_array(e -> 'p') END)
                                         FROM jsonb_array_elements(p_items) e)) THEN
    v_set := set_config('synchronous_commit', 'off', true);
  END IF;
  -- Refusals the committed counters already decide, read without a lock: one-policy checks of
  -- policies without a log (fixed window, sliding window, token bucket). When the cheapest check of a (policy, key) is refused,
  -- every check of it is (a dearer one needs more room), so each is answered from the read and the
  -- group takes no lock and writes nothing; the caller counts them through its tally.
  FOR g IN
    SELECT t.k, t.p, array_agg(t.i::integer ORDER BY t.i) AS idx, array_agg((t.e ->> 'c')::integer ORDER BY t.i) AS costs
      FROM (SELECT e ->> 'k' AS k, e ->> 'p' AS p, e, i FROM jsonb_array_elements(p_items) WITH ORDINALITY AS u(e, i)) t
     WHERE p_edge AND t.p IS NOT NULL AND NOT (t.e ? 'ps')
     GROUP BY t.k, t.p
  LOOP
    SELECT * INTO pol FROM ratelimit_policies WHERE name = g.p;
    CONTINUE WHEN NOT FOUND OR pol.log OR (SELECT min(c) FROM unnest(g.costs) c) <= 0;
    v_read := admit_ratelimit_refused(pol, g.k, (SELECT min(c) FROM unnest(g.costs) c), v_now);
    CONTINUE WHEN v_read IS NULL;
    FOR j IN 1 .. cardinality(g.idx) LOOP
      v_res[g.idx[j]] := admit_ratelimit_refused(pol, g.k, g.costs[j], v_now);
    END LOOP;
  END LOOP;
  PERFORM 1
     FROM ratelimit_policies p
    WHERE p.name IN (SELECT jsonb_array_elements_text(CASE WHEN e ? 'ps' THEN e -> 'ps' ELSE jsonb_build_array(e -> 'p') END)
                       FROM jsonb_array_elements(p_items) WITH ORDINALITY AS u(e, i)
                      WHERE v_res[u.i] IS NULL)
    ORDER BY p.name COLLATE "C"
      FOR KEY SHARE;
  -- One row per (key, policy) in the counters' lock order; a multi-policy item's key is its own
  -- (the coalescer holds a second item of that key for the next batch), so it is a run of one.
  FOR g IN
    SELECT t.k, t.p, array_agg(t.i::integer ORDER BY t.i) AS idx, array_agg(t.e ORDER BY t.i) AS es
      FROM (SELECT e ->> 'k' AS k, e ->> 'p' AS p, e, i FROM jsonb_array_elements(p_items) WITH ORDINALITY AS u(e, i)) t
     WHERE v_res[t.i] IS NULL
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
$function$;
COMMENT ON FUNCTION admit_ratelimit_check_batch(jsonb, integer, boolean) IS 'Decides the checks of one isolate''s batch in one statement, each as it would have been alone (with p_edge, refusals the committed counters decide from reads, counted: false), the rest locking counter rows in one global order. With p_edge (the Worker''s batch, its own transaction) it commits asynchronously unless a policy of the batch is durable.';
