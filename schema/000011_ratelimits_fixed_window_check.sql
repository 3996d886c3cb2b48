-- Rate limits: a lean path for the commonest decision, a counted fixed-window call.
--
-- admit_ratelimit_check (000010) computes every algorithm in numeric and runs a full SPI query to
-- set lock_timeout. For a fixed window none of that is needed: the window, slot and reset are whole
-- milliseconds, and set_config can be a plain expression. Measured with
--   pgbench -n -M extended -c 16 -j 2 -T 6, one hot key, this machine:
--   the 000010 check ~9 000 checks/s; this path ~13 000 (Postgres CPU per check ~205 µs → ~140 µs).
--
-- The decision and the answer are exactly those of 000010 (same row, same counts, same JSON): the
-- 000010 function stays as admit_ratelimit_check_any and still answers sliding windows, token
-- buckets, peeks (cost 0) and logged policies, which this function hands over to it.

ALTER FUNCTION admit_ratelimit_check(text, text, integer, jsonb, integer, timestamptz)
  RENAME TO admit_ratelimit_check_any;

CREATE FUNCTION admit_ratelimit_check(
  p_policy text, p_key text, p_cost integer, p_info jsonb, p_lock_timeout_ms integer,
  p_now timestamptz DEFAULT now()
) RETURNS json
LANGUAGE plpgsql AS $$
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
BEGIN
  SELECT * INTO pol FROM ratelimit_policies WHERE name = p_policy;
  IF NOT FOUND THEN RETURN NULL; END IF;
  IF pol.algorithm <> 'fixed_window' OR p_cost <= 0 OR pol.log THEN
    RETURN admit_ratelimit_check_any(p_policy, p_key, p_cost, p_info, p_lock_timeout_ms, p_now);
  END IF;
  -- An assignment, not PERFORM: a simple expression skips the executor.
  v_set := set_config('lock_timeout', p_lock_timeout_ms || 'ms', true);
  v_limit := coalesce(
    (SELECT o.quota FROM ratelimit_overrides o WHERE o.policy = p_policy AND o.key = p_key AND o.valid @> p_now),
    pol.quota);
  v_now := floor(extract(epoch FROM p_now) * 1000);
  v_ws := v_now / pol.window_ms * pol.window_ms;
  v_end := v_ws + pol.window_ms - v_now;
  v_room := v_limit - p_cost;
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
    -- Refused: the window's end, or never when the cost is above the limit.
    'retry_after_ms', CASE WHEN NOT r.last_allowed AND p_cost <= v_limit THEN v_end END,
    'wait1_ms', CASE WHEN v_left >= 1 THEN 0 ELSE v_end END);
END
$$;
