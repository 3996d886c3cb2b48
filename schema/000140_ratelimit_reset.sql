-- Resetting one key's usage: support gives a customer a fresh window after an incident.
-- admit_ratelimit_reset() sets what the next check decides on back to nothing spent — `consumed` of
-- the current window (a sliding window's previous one too, whose weight would still count), a token
-- bucket's TAT to now (full) — and keeps the window's admitted/attempted/rejected counts, which say
-- what happened. Each counter row is updated under its row lock, so a reset racing checks of the key
-- is ordered with them: the checks before it spent the old window, the checks after it spend one fresh
-- window, never more. Rows are locked in the counters' order (policy by name, COLLATE "C").

CREATE FUNCTION admit_ratelimit_reset(p_policy text, p_key text, p_names text[], p_lock_timeout_ms integer, p_now timestamptz DEFAULT now())
RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  pol ratelimit_policies;
  v_now numeric := admit_ts_to_ms(p_now);
  v_slot bigint;
  v_done text[] := '{}';
  v_seen integer := 0;
  n integer;
BEGIN
  PERFORM set_config('lock_timeout', p_lock_timeout_ms::text || 'ms', true);
  FOR pol IN
    SELECT * FROM ratelimit_policies p
     WHERE (p_policy IS NULL OR p.name = p_policy)
       AND (p_names IS NULL OR p.name LIKE ANY (p_names))
     ORDER BY p.name COLLATE "C"
       FOR KEY SHARE
  LOOP
    v_seen := v_seen + 1;
    IF pol.algorithm = 'token_bucket' THEN
      UPDATE ratelimit_counters SET tat = v_now, consumed = 0
       WHERE policy = pol.name AND key = p_key AND slot = -1;
    ELSE
      v_slot := floor(v_now / pol.window_ms);
      UPDATE ratelimit_counters SET consumed = 0
       WHERE policy = pol.name AND key = p_key
         AND slot BETWEEN v_slot - CASE WHEN pol.algorithm = 'sliding_window' THEN 1 ELSE 0 END AND v_slot;
    END IF;
    GET DIAGNOSTICS n = ROW_COUNT;
    IF n > 0 THEN v_done := v_done || pol.name; END IF;
  END LOOP;
  IF p_policy IS NOT NULL AND v_seen = 0 THEN RETURN NULL; END IF;
  RETURN json_build_object('key', p_key, 'policies', to_json(v_done), 'at', admit_rfc3339(p_now));
END
$$;
COMMENT ON FUNCTION admit_ratelimit_reset IS 'Gives a key a fresh window in one policy (or every policy p_names lets the caller touch): consumed units of the current window (sliding: and the previous one) to 0, a bucket full; the counts of calls stay. The policies whose counters changed; NULL when p_policy does not exist.';
