-- Rate limits and daily quotas — seed 001, generalised into the service an API gateway calls on every request.
--
-- The seed's recipe, kept: one counter row per (policy, key, window) updated by INSERT … ON CONFLICT
-- DO UPDATE (the row lock serialises concurrent calls on one key and nothing else), both "served"
-- and "attempted" counts, per-customer limits over periods that cannot overlap (tstzrange +
-- EXCLUDE), an optional request log written by the same statement, FILLFACTOR for HOT updates.
-- Generalised: three algorithms, a cost per call, refunds, all window math on the database clock.
--
-- Times inside the decision are milliseconds since the epoch as `numeric` (exact, µs resolution),
-- taken from the database clock (`now()`); tests pass `p_now` to move that clock input instead of
-- sleeping. The HTTP layer never passes it.

CREATE TABLE ratelimit_policies (
  name        text PRIMARY KEY,
  algorithm   text NOT NULL,
  quota       integer NOT NULL,
  window_ms   bigint NOT NULL,
  log         boolean NOT NULL DEFAULT false,
  -- Counter rows (per-window history) and log rows are kept this long after their window ends.
  history_ms  bigint NOT NULL DEFAULT 604800000,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT ratelimit_policies_name CHECK (name ~ '^[A-Za-z0-9._:-]{1,100}$'),
  CONSTRAINT ratelimit_policies_algorithm CHECK (algorithm IN ('fixed_window', 'sliding_window', 'token_bucket')),
  CONSTRAINT ratelimit_policies_quota CHECK (quota > 0),
  CONSTRAINT ratelimit_policies_window CHECK (window_ms BETWEEN 1 AND 31622400000),
  CONSTRAINT ratelimit_policies_history CHECK (history_ms BETWEEN 0 AND 31622400000)
);

-- Per-key limits valid over a period (the seed's t_customer_limit). Half-open [valid_from, valid_to);
-- an unbounded end is allowed. Two periods of one (policy, key) never overlap: the EXCLUDE says so.
CREATE TABLE ratelimit_overrides (
  policy      text NOT NULL REFERENCES ratelimit_policies (name) ON DELETE CASCADE,
  key         text NOT NULL,
  quota       integer NOT NULL,
  valid       tstzrange NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  CONSTRAINT ratelimit_overrides_quota CHECK (quota > 0),
  CONSTRAINT ratelimit_overrides_valid CHECK (NOT isempty(valid) AND lower_inc(valid) AND NOT upper_inc(valid) AND NOT lower_inf(valid)),
  CONSTRAINT ratelimit_overrides_no_overlap EXCLUDE USING gist (policy WITH =, key WITH =, valid WITH &&)
);

-- The counters (the seed's t_log_count). Built for constant update:
--  - the primary key is the only index and covers only columns that never change, so every
--    counter update is HOT-eligible (no index maintenance);
--  - FILLFACTOR 60 leaves room on each page for the new row versions HOT needs.
-- fixed/sliding windows: one row per aligned window, `slot` = floor(epoch_ms / window_ms).
-- token bucket (GCRA): one row per key, slot = -1, `tat` = theoretical arrival time (epoch ms);
--   the counts there are for the aligned window starting at `window_start` and restart each window.
CREATE TABLE ratelimit_counters (
  policy       text NOT NULL,
  key          text NOT NULL,
  slot         bigint NOT NULL,
  window_start timestamptz NOT NULL,
  consumed     bigint NOT NULL DEFAULT 0,   -- units (sum of admitted costs, minus refunds)
  admitted     integer NOT NULL DEFAULT 0,  -- calls served (seed: counter_limit)
  attempted    integer NOT NULL DEFAULT 0,  -- calls made (seed: counter_limit_real)
  rejected     integer NOT NULL DEFAULT 0,  -- calls refused
  tat          numeric,                     -- GCRA only
  last_allowed boolean NOT NULL,            -- the decision of the latest call (read back by RETURNING)
  expires_at   timestamptz NOT NULL,        -- the sweeper deletes the row after this
  PRIMARY KEY (policy, key, slot)
) WITH (fillfactor = 60);

-- The request log (the seed's t_log), opt-in per policy.
CREATE TABLE ratelimit_log (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at          timestamptz NOT NULL,
  policy      text NOT NULL,
  key         text NOT NULL,
  allowed     boolean NOT NULL,
  cost        integer NOT NULL,
  info        jsonb,
  expires_at  timestamptz NOT NULL
);
CREATE INDEX ratelimit_log_policy_key_at ON ratelimit_log (policy, key, at);
CREATE INDEX ratelimit_log_expires_at ON ratelimit_log (expires_at);

CREATE FUNCTION admit_ms_to_ts(ms numeric) RETURNS timestamptz
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT 'epoch'::timestamptz + ms * interval '1 millisecond'
$$;

CREATE FUNCTION admit_ts_to_ms(t timestamptz) RETURNS numeric
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT extract(epoch FROM t) * 1000
$$;

CREATE FUNCTION admit_ratelimit_policy_json(p ratelimit_policies) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT json_build_object(
    'name', p.name, 'algorithm', p.algorithm, 'limit', p.quota, 'window_ms', p.window_ms,
    'log', p.log, 'history_ms', p.history_ms,
    'created_at', admit_rfc3339(p.created_at), 'updated_at', admit_rfc3339(p.updated_at))
$$;

CREATE FUNCTION admit_ratelimit_override_json(o ratelimit_overrides) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT json_build_object(
    'policy', o.policy, 'key', o.key, 'limit', o.quota,
    'valid_from', admit_rfc3339(lower(o.valid)), 'valid_to', admit_rfc3339(upper(o.valid)))
$$;

-- Create or replace a policy. Changing the algorithm or the window resets its counters (their
-- slots would mean something else); changing only the limit keeps them.
CREATE FUNCTION admit_ratelimit_put_policy(
  p_name text, p_algorithm text, p_limit integer, p_window_ms bigint, p_log boolean, p_history_ms bigint
) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  v_old ratelimit_policies;
  v_new ratelimit_policies;
BEGIN
  SELECT * INTO v_old FROM ratelimit_policies WHERE name = p_name FOR UPDATE;
  INSERT INTO ratelimit_policies AS p (name, algorithm, quota, window_ms, log, history_ms)
  VALUES (p_name, p_algorithm, p_limit, p_window_ms, p_log, p_history_ms)
  ON CONFLICT (name) DO UPDATE
    SET algorithm = EXCLUDED.algorithm, quota = EXCLUDED.quota, window_ms = EXCLUDED.window_ms,
        log = EXCLUDED.log, history_ms = EXCLUDED.history_ms, updated_at = now()
  RETURNING * INTO v_new;
  IF v_old.name IS NOT NULL AND (v_old.algorithm <> v_new.algorithm OR v_old.window_ms <> v_new.window_ms) THEN
    DELETE FROM ratelimit_counters WHERE policy = p_name;
  END IF;
  RETURN json_build_object('created', v_old.name IS NULL, 'policy', admit_ratelimit_policy_json(v_new));
END
$$;

CREATE FUNCTION admit_ratelimit_delete_policy(p_name text) RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM ratelimit_policies WHERE name = p_name;
  IF NOT FOUND THEN RETURN false; END IF;
  DELETE FROM ratelimit_counters WHERE policy = p_name;
  RETURN true;
END
$$;

-- Create an override, or change the limit of the one with exactly this period.
-- Returns {"status": "created"|"updated"|"conflict"|"no_policy", "override"?, "conflicts"?}.
CREATE FUNCTION admit_ratelimit_put_override(
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
    RETURN json_build_object('status', 'conflict', 'conflicts',
      (SELECT json_agg(admit_ratelimit_override_json(o) ORDER BY lower(o.valid))
         FROM ratelimit_overrides o WHERE o.policy = p_policy AND o.key = p_key AND o.valid && v_valid));
  END;
  RETURN json_build_object('status', 'created', 'override', admit_ratelimit_override_json(v_row));
END
$$;

-- The periods of one key, in order. NULL when the policy does not exist.
CREATE FUNCTION admit_ratelimit_list_overrides(p_policy text, p_key text) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN EXISTS (SELECT 1 FROM ratelimit_policies WHERE name = p_policy) THEN
    (SELECT coalesce(json_agg(admit_ratelimit_override_json(o) ORDER BY lower(o.valid)), '[]'::json)
       FROM ratelimit_overrides o WHERE o.policy = p_policy AND o.key = p_key)
  END
$$;

-- Deletes the key's override starting at p_from, or all of the key's overrides when p_from is NULL.
CREATE FUNCTION admit_ratelimit_delete_overrides(p_policy text, p_key text, p_from timestamptz) RETURNS integer
LANGUAGE sql AS $$
  WITH d AS (
    DELETE FROM ratelimit_overrides
     WHERE policy = p_policy AND key = p_key AND (p_from IS NULL OR lower(valid) = p_from)
    RETURNING 1)
  SELECT count(*)::integer FROM d
$$;

-- Where a key stands at a moment, for every decision on it: the limit in force (its override valid
-- then — periods never overlap, so at most one — else the policy's), the window, the aligned slot
-- and its start (ms), and for sliding windows the previous window's consumed units and the weight
-- (1 − elapsed fraction) they still carry.
CREATE FUNCTION admit_ratelimit_frame(
  p_pol ratelimit_policies, p_key text, p_now timestamptz,
  OUT o_limit integer, OUT o_w numeric, OUT o_slot bigint, OUT o_ws numeric, OUT o_prev numeric, OUT o_weight numeric
)
LANGUAGE plpgsql STABLE AS $$
DECLARE
  v_now numeric := admit_ts_to_ms(p_now);
BEGIN
  o_limit := coalesce(
    (SELECT o.quota FROM ratelimit_overrides o WHERE o.policy = p_pol.name AND o.key = p_key AND o.valid @> p_now),
    p_pol.quota);
  o_w := p_pol.window_ms;
  o_slot := floor(v_now / o_w);
  o_ws := o_slot * o_w;
  o_prev := 0;
  o_weight := 0;
  IF p_pol.algorithm = 'sliding_window' THEN
    o_prev := coalesce((SELECT c.consumed FROM ratelimit_counters c
                         WHERE c.policy = p_pol.name AND c.key = p_key AND c.slot = o_slot - 1), 0);
    o_weight := 1 - (v_now - o_ws) / o_w;
  END IF;
END
$$;

-- How long (ms from p_now) until a call of cost p_cost would be admitted, given the state after
-- this decision. 0 = now; NULL = never (cost above the limit).
--  fixed:   the window's end, if it does not fit now.
--  sliding: the estimate cur + prev·(1 − f) falls as f (the elapsed fraction) grows; solve for f,
--           in this window or, if the current count alone is too high, in the next one (where this
--           window becomes "previous").
--  GCRA:    the moment max(tat, now) + cost·T − window is reached.
CREATE FUNCTION admit_ratelimit_wait_ms(
  p_algorithm text, p_limit integer, p_window numeric, p_now numeric, p_cost integer,
  p_window_start numeric, p_cur numeric, p_prev numeric, p_tat numeric
) RETURNS numeric
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  f numeric;
  t numeric;
BEGIN
  IF p_cost > p_limit THEN RETURN NULL; END IF;
  IF p_algorithm = 'token_bucket' THEN
    t := greatest(coalesce(p_tat, p_now), p_now) + p_cost * (p_window / p_limit) - p_window;
    RETURN greatest(0, t - p_now);
  END IF;
  f := (p_now - p_window_start) / p_window;
  IF p_algorithm = 'fixed_window' THEN
    RETURN CASE WHEN p_cur + p_cost <= p_limit THEN 0 ELSE p_window_start + p_window - p_now END;
  END IF;
  IF p_cur + p_cost + p_prev * (1 - f) <= p_limit THEN RETURN 0; END IF;
  IF p_cur + p_cost <= p_limit THEN
    t := p_window_start + p_window * (1 - (p_limit - p_cur - p_cost) / p_prev);
  ELSE
    t := p_window_start + p_window + p_window * greatest(0, 1 - (p_limit - p_cost) / p_cur);
  END IF;
  RETURN greatest(0, t - p_now);
END
$$;

-- THE decision: policy lookup, override lookup, counting and the log row, in one statement.
-- p_cost 0 is a peek: nothing is written (and nothing logged); "allowed" then means one more unit fits.
-- A denied call consumes nothing: only `attempted`/`rejected` move.
-- Returns NULL when the policy does not exist, else
--   {allowed, policy, key, limit, window_ms, log, remaining, reset_ms, retry_after_ms, wait1_ms}
-- where wait1_ms (ms until one unit fits, 0 if one fits now) feeds the Worker's deny cache.
CREATE FUNCTION admit_ratelimit_check(
  p_policy text, p_key text, p_cost integer, p_info jsonb, p_lock_timeout_ms integer,
  p_now timestamptz DEFAULT now()
) RETURNS json
LANGUAGE plpgsql AS $$
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
  SELECT * INTO v_limit, v_w, v_slot, v_ws, v_prev, v_weight FROM admit_ratelimit_frame(pol, p_key, p_now);

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
              admit_ms_to_ts(greatest(v_now + v_inc, v_ws + v_w)))
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
        expires_at = admit_ms_to_ts(greatest(c.tat, v_now + v_inc, v_ws + v_w))
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
    'wait1_ms', ceil(admit_ratelimit_wait_ms(pol.algorithm, v_limit, v_w, v_now, 1, v_ws, coalesce(v_cur, 0), v_prev, r.tat))::bigint);
END
$$;

-- Gives back up to p_cost units consumed in the current window (never below zero); for the token
-- bucket, moves the theoretical arrival time back by p_cost·T but never before now (a bucket never
-- holds more than `limit`). Returns NULL when the policy does not exist, else the state after it:
-- {policy, key, limit, remaining, reset_ms, refunded}.
CREATE FUNCTION admit_ratelimit_refund(
  p_policy text, p_key text, p_cost integer, p_lock_timeout_ms integer, p_now timestamptz DEFAULT now()
) RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  pol ratelimit_policies;
  v_limit integer;
  v_now numeric := admit_ts_to_ms(p_now);
  v_w numeric;
  v_t numeric;
  v_slot bigint;
  v_ws numeric;
  v_prev numeric;
  v_weight numeric;
  v_before numeric;
  v_refunded numeric := 0;
  v_remaining numeric;
  v_reset numeric;
  r ratelimit_counters;
BEGIN
  PERFORM set_config('lock_timeout', p_lock_timeout_ms::text || 'ms', true);
  SELECT * INTO pol FROM ratelimit_policies WHERE name = p_policy;
  IF NOT FOUND THEN RETURN NULL; END IF;
  SELECT * INTO v_limit, v_w, v_slot, v_ws, v_prev, v_weight FROM admit_ratelimit_frame(pol, p_key, p_now);
  IF pol.algorithm = 'token_bucket' THEN
    v_t := v_w / v_limit;
    SELECT * INTO r FROM ratelimit_counters WHERE policy = p_policy AND key = p_key AND slot = -1 FOR UPDATE;
    IF FOUND AND r.tat > v_now THEN
      v_before := r.tat;
      UPDATE ratelimit_counters SET tat = greatest(v_now, tat - p_cost * v_t),
             consumed = greatest(0, consumed - p_cost)
       WHERE policy = p_policy AND key = p_key AND slot = -1
      RETURNING * INTO r;
      v_refunded := round((v_before - r.tat) / v_t);
    END IF;
    v_remaining := least(v_limit, floor((v_w - (greatest(coalesce(r.tat, v_now), v_now) - v_now) + 0.000001) / v_t));
    v_reset := greatest(coalesce(r.tat, v_now), v_now) - v_now;
  ELSE
    -- FOR UPDATE reads the latest committed version and holds it until the update below.
    SELECT consumed INTO v_before FROM ratelimit_counters
     WHERE policy = p_policy AND key = p_key AND slot = v_slot FOR UPDATE;
    IF FOUND THEN
      UPDATE ratelimit_counters SET consumed = greatest(0, consumed - p_cost)
       WHERE policy = p_policy AND key = p_key AND slot = v_slot
      RETURNING * INTO r;
      v_refunded := v_before - r.consumed;
    END IF;
    v_remaining := floor(v_limit - coalesce(r.consumed, 0) - v_prev * v_weight);
    v_reset := v_ws + v_w - v_now;
  END IF;
  RETURN json_build_object(
    'policy', p_policy, 'key', p_key, 'limit', v_limit, 'window_ms', pol.window_ms,
    'remaining', greatest(0, v_remaining)::bigint, 'reset_ms', ceil(greatest(0, v_reset))::bigint,
    'refunded', v_refunded::bigint);
END
$$;

-- Usage of a key: the current window ({window_start, window_end, admitted, attempted, rejected,
-- consumed}) and, for fixed and sliding windows when p_from/p_to are given, every stored window
-- starting in [p_from, p_to) (at most 1000, oldest first). NULL when the policy does not exist.
CREATE FUNCTION admit_ratelimit_usage(
  p_policy text, p_key text, p_from timestamptz, p_to timestamptz, p_now timestamptz DEFAULT now()
) RETURNS json
LANGUAGE plpgsql STABLE AS $$
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
             'admitted', h.admitted, 'attempted', h.attempted, 'rejected', h.rejected, 'consumed', h.consumed)
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
    'rejected', coalesce(r.rejected, 0), 'consumed', coalesce(r.consumed, 0),
    'windows', v_history);
END
$$;

-- Cron housekeeping (admit_sweep() finds it by name): counter rows whose window (and its history)
-- is over, and log rows past their policy's history, in bounded batches. Counters have no index on
-- expires_at on purpose (it would cost every GCRA update its HOT-ness): the batch is a bounded scan.
CREATE FUNCTION admit_sweep_ratelimits() RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  n_counters integer;
  n_log integer;
BEGIN
  -- SKIP LOCKED: a row a check holds right now is left for the next sweep, never waited for.
  WITH d AS (
    DELETE FROM ratelimit_counters
     WHERE ctid = ANY (ARRAY(SELECT ctid FROM ratelimit_counters WHERE expires_at <= now()
                              LIMIT 10000 FOR UPDATE SKIP LOCKED))
       AND expires_at <= now()
    RETURNING 1
  )
  SELECT count(*) INTO n_counters FROM d;
  WITH victims AS (
    SELECT id FROM ratelimit_log WHERE expires_at <= now() ORDER BY expires_at LIMIT 10000
  ), d AS (
    DELETE FROM ratelimit_log l USING victims v WHERE l.id = v.id RETURNING 1
  )
  SELECT count(*) INTO n_log FROM d;
  RETURN n_counters + n_log;
END
$$;
