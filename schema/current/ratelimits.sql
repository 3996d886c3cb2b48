-- GENERATED FILE: DO NOT EDIT.
--
-- The ratelimits part of the schema that applying schema/NNNNNN_*.sql in order produces, built from
-- the catalogs of a freshly migrated database by `npm run schema:dump` (dev/schema-dump.ts), which
-- files each object by its name (AREAS there). It is for reading only: it is never applied, and a
-- change to the schema goes in a new numbered migration, after which `npm run schema:dump` rewrites
-- these files. test/schema/schema.dump.test.ts fails while one is out of date.
--
-- Left out: admit_migrations (the migrator's bookkeeping, created by tools/migrate.ts, not by a
-- migration), the members of extensions, ownership and privileges.

-- Tables, each with its indexes (those not backing a constraint) and triggers

CREATE TABLE ratelimit_counters (
  policy text NOT NULL,
  key text NOT NULL,
  slot bigint NOT NULL,
  window_start timestamp with time zone NOT NULL,
  consumed bigint DEFAULT 0 NOT NULL,
  admitted bigint DEFAULT 0 NOT NULL,
  attempted bigint DEFAULT 0 NOT NULL,
  rejected bigint DEFAULT 0 NOT NULL,
  tat numeric,
  last_allowed boolean NOT NULL,
  expires_at timestamp with time zone NOT NULL,
  would_refuse bigint DEFAULT 0 NOT NULL,
  CONSTRAINT ratelimit_counters_pkey PRIMARY KEY (policy, key, slot)
) WITH (fillfactor=60);
COMMENT ON TABLE ratelimit_counters IS 'The counters: one row per (policy, key, window slot) for fixed and sliding windows, one per (policy, key) for the token bucket. Only never-changing columns are indexed and FILLFACTOR leaves room, so every update is HOT.';

CREATE TABLE ratelimit_list_entries (
  list text NOT NULL,
  policy text,
  kind text NOT NULL,
  value text NOT NULL,
  network cidr,
  reason text,
  expires_at timestamp with time zone,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  updated_at timestamp with time zone DEFAULT now() NOT NULL,
  CONSTRAINT ratelimit_list_entries_policy_fkey FOREIGN KEY (policy) REFERENCES ratelimit_policies(name) ON DELETE CASCADE,
  CONSTRAINT ratelimit_list_entries_check CHECK (((kind = 'ip'::text) = (network IS NOT NULL))),
  CONSTRAINT ratelimit_list_entries_check1 CHECK (((kind <> 'ip'::text) OR (value = (network)::text))),
  CONSTRAINT ratelimit_list_entries_check2 CHECK (((kind <> 'country'::text) OR (value ~ '^[A-Z]{2}$'::text))),
  CONSTRAINT ratelimit_list_entries_kind_check CHECK ((kind = ANY (ARRAY['key'::text, 'prefix'::text, 'ip'::text, 'country'::text]))),
  CONSTRAINT ratelimit_list_entries_list_check CHECK ((list = ANY (ARRAY['deny'::text, 'allow'::text])))
);
COMMENT ON TABLE ratelimit_list_entries IS 'Deny and allow list entries of the rate limits: one per (list, policy or global, kind, value). kind ip keeps the network in `network` (cidr; an address is a /32 or /128) and its text in `value`. policy NULL = every policy. Read by isolates in one statement per load (admit_ratelimit_lists_load), never per check.';
CREATE INDEX ratelimit_list_entries_by_policy ON public.ratelimit_list_entries USING btree (policy) WHERE (policy IS NOT NULL);
CREATE UNIQUE INDEX ratelimit_list_entries_by_value ON public.ratelimit_list_entries USING btree (list, COALESCE(policy, ''::text) COLLATE "C", kind, value COLLATE "C");

CREATE TABLE ratelimit_log (
  id bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
  at timestamp with time zone NOT NULL,
  policy text NOT NULL,
  key text NOT NULL,
  allowed boolean NOT NULL,
  cost integer NOT NULL,
  info jsonb,
  expires_at timestamp with time zone NOT NULL,
  CONSTRAINT ratelimit_log_pkey PRIMARY KEY (id)
);
COMMENT ON TABLE ratelimit_log IS 'The request log of the policies that opt in (log: true): one row per decision, swept after the policy''s history_ms.';
CREATE INDEX ratelimit_log_expires_at ON public.ratelimit_log USING btree (expires_at);
CREATE INDEX ratelimit_log_policy_key_at ON public.ratelimit_log USING btree (policy, key, at);

CREATE TABLE ratelimit_overrides (
  policy text NOT NULL,
  key text NOT NULL,
  quota integer NOT NULL,
  valid tstzrange NOT NULL,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  shadow boolean DEFAULT false NOT NULL,
  pattern boolean GENERATED ALWAYS AS ((strpos(key, '*'::text) > 0)) STORED,
  prefix text GENERATED ALWAYS AS (split_part(key, '*'::text, 1)) STORED,
  key_like text GENERATED ALWAYS AS (replace(replace(replace(replace(key, '\'::text, '\\'::text), '%'::text, '\%'::text), '_'::text, '\_'::text), '*'::text, '%'::text)) STORED,
  CONSTRAINT ratelimit_overrides_no_overlap EXCLUDE USING gist (policy WITH =, key WITH =, valid WITH &&),
  CONSTRAINT ratelimit_overrides_policy_fkey FOREIGN KEY (policy) REFERENCES ratelimit_policies(name) ON DELETE CASCADE,
  CONSTRAINT ratelimit_overrides_quota CHECK ((quota > 0)),
  CONSTRAINT ratelimit_overrides_valid CHECK (((NOT isempty(valid)) AND lower_inc(valid) AND (NOT upper_inc(valid)) AND (NOT lower_inf(valid))))
);
COMMENT ON TABLE ratelimit_overrides IS 'Per-key limits over a half-open period [valid_from, valid_to); a key containing `*` is a pattern (glob) for every key it matches. The EXCLUDE constraint guarantees two periods of one (policy, key) never overlap; admit_ratelimit_put_override refuses two patterns that could tie.';
CREATE INDEX ratelimit_overrides_by_key_start ON public.ratelimit_overrides USING btree (policy, key, lower(valid));
CREATE INDEX ratelimit_overrides_by_prefix ON public.ratelimit_overrides USING btree (policy, prefix, lower(valid));
CREATE INDEX ratelimit_overrides_shadowed ON public.ratelimit_overrides USING btree (policy, key) WHERE shadow;

CREATE TABLE ratelimit_policies (
  name text NOT NULL,
  algorithm text NOT NULL,
  quota integer NOT NULL,
  window_ms bigint NOT NULL,
  log boolean DEFAULT false NOT NULL,
  history_ms bigint DEFAULT 604800000 NOT NULL,
  created_at timestamp with time zone DEFAULT now() NOT NULL,
  updated_at timestamp with time zone DEFAULT now() NOT NULL,
  timeout_ms integer DEFAULT 5000 NOT NULL,
  on_unavailable text DEFAULT 'deny'::text NOT NULL,
  shadow boolean DEFAULT false NOT NULL,
  pattern_prefix_lengths integer[] DEFAULT '{}'::integer[] NOT NULL,
  durable boolean DEFAULT false NOT NULL,
  CONSTRAINT ratelimit_policies_pkey PRIMARY KEY (name),
  CONSTRAINT ratelimit_policies_algorithm CHECK ((algorithm = ANY (ARRAY['fixed_window'::text, 'sliding_window'::text, 'token_bucket'::text]))),
  CONSTRAINT ratelimit_policies_history CHECK (((history_ms >= 0) AND (history_ms <= '31622400000'::bigint))),
  CONSTRAINT ratelimit_policies_name CHECK ((name ~ '^[A-Za-z0-9._:-]{1,100}$'::text)),
  CONSTRAINT ratelimit_policies_on_unavailable CHECK ((on_unavailable = ANY (ARRAY['deny'::text, 'allow'::text]))),
  CONSTRAINT ratelimit_policies_quota CHECK ((quota > 0)),
  CONSTRAINT ratelimit_policies_timeout CHECK (((timeout_ms >= 1) AND (timeout_ms <= 60000))),
  CONSTRAINT ratelimit_policies_window CHECK (((window_ms >= 1) AND (window_ms <= '31622400000'::bigint)))
);
COMMENT ON TABLE ratelimit_policies IS 'Rate-limit policies: algorithm (fixed, sliding, token bucket), limit, window, log and history settings, latency budget, fail mode, shadow mode, and whether its counters commit durably.';
COMMENT ON COLUMN ratelimit_policies.pattern_prefix_lengths IS 'The distinct literal-prefix lengths of the policy''s pattern overrides: which prefixes of a key a check probes. Kept by admit_ratelimit_put_override (adds) and admit_ratelimit_delete_overrides (recounts), under the policy''s pattern lock.';

-- Functions

CREATE OR REPLACE FUNCTION public.admit_ratelimit_check(p_policy text, p_key text, p_cost integer, p_info jsonb, p_lock_timeout_ms integer, p_now timestamp with time zone DEFAULT now(), p_edge boolean DEFAULT false)
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

CREATE OR REPLACE FUNCTION public.admit_ratelimit_check_any(p_policy text, p_key text, p_cost integer, p_info jsonb, p_lock_timeout_ms integer, p_now timestamp with time zone DEFAULT now())
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

CREATE OR REPLACE FUNCTION public.admit_ratelimit_check_batch(p_items jsonb, p_lock_timeout_ms integer, p_edge boolean DEFAULT false)
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
COMMENT ON FUNCTION admit_ratelimit_check_batch(p_items jsonb, p_lock_timeout_ms integer, p_edge boolean) IS 'Decides the checks of one isolate''s batch in one statement, each as it would have been alone (with p_edge, refusals the committed counters decide from reads, counted: false), the rest locking counter rows in one global order. With p_edge (the Worker''s batch, its own transaction) it commits asynchronously unless a policy of the batch is durable.';

CREATE OR REPLACE FUNCTION public.admit_ratelimit_check_multi(p_policies text[], p_key text, p_cost integer, p_info jsonb, p_lock_timeout_ms integer, p_now timestamp with time zone DEFAULT now())
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

CREATE OR REPLACE FUNCTION public.admit_ratelimit_check_run(p_policy text, p_key text, p_costs integer[], p_infos jsonb[], p_lock_timeout_ms integer, p_now timestamp with time zone DEFAULT now())
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

CREATE OR REPLACE FUNCTION public.admit_ratelimit_delete_overrides(p_policy text, p_key text, p_from timestamp with time zone, p_lock_timeout_ms integer DEFAULT 2000)
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_n integer;
BEGIN
  PERFORM set_config('lock_timeout', p_lock_timeout_ms::text || 'ms', true);
  IF strpos(p_key, '*') > 0 THEN
    PERFORM pg_advisory_xact_lock(admit_fnv64('ratelimit_override_patterns/' || p_policy));
  END IF;
  DELETE FROM ratelimit_overrides
   WHERE policy = p_policy AND key = p_key AND (p_from IS NULL OR lower(valid) = p_from);
  GET DIAGNOSTICS v_n = ROW_COUNT;
  IF v_n > 0 AND strpos(p_key, '*') > 0 THEN PERFORM admit_ratelimit_recount_patterns(p_policy); END IF;
  RETURN v_n;
END
$function$;
COMMENT ON FUNCTION admit_ratelimit_delete_overrides(p_policy text, p_key text, p_from timestamp with time zone, p_lock_timeout_ms integer) IS 'Deletes the key''s (or pattern''s) override starting at p_from, or all of its overrides when p_from is NULL; a pattern''s writers keep the policy''s prefix lengths.';

CREATE OR REPLACE FUNCTION public.admit_ratelimit_delete_policy(p_name text, p_lock_timeout_ms integer DEFAULT 2000)
 RETURNS boolean
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM set_config('lock_timeout', p_lock_timeout_ms::text || 'ms', true);
  DELETE FROM ratelimit_policies WHERE name = p_name;
  IF NOT FOUND THEN RETURN false; END IF;
  DELETE FROM ratelimit_counters WHERE policy = p_name;
  RETURN true;
END
$function$;
COMMENT ON FUNCTION admit_ratelimit_delete_policy(p_name text, p_lock_timeout_ms integer) IS 'Deletes a policy with its overrides and counters, under the policy''s lock; false when there was none.';

CREATE OR REPLACE FUNCTION public.admit_ratelimit_frame(p_pol ratelimit_policies, p_key text, p_now timestamp with time zone, OUT o_limit integer, OUT o_w numeric, OUT o_slot bigint, OUT o_ws numeric, OUT o_prev numeric, OUT o_weight numeric)
 RETURNS record
 LANGUAGE plpgsql
 STABLE
AS $function$
DECLARE
  v_now numeric := admit_ts_to_ms(p_now);
BEGIN
  o_limit := coalesce(
    admit_ratelimit_override_quota(p_pol, p_key, p_now),
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
$function$;
COMMENT ON FUNCTION admit_ratelimit_frame(p_pol ratelimit_policies, p_key text, p_now timestamp with time zone, OUT o_limit integer, OUT o_w numeric, OUT o_slot bigint, OUT o_ws numeric, OUT o_prev numeric, OUT o_weight numeric) IS 'Where a key stands at a moment: the limit in force (its override then, else the policy''s), the window, the aligned slot and, for sliding windows, the previous window''s weight.';

CREATE OR REPLACE FUNCTION public.admit_ratelimit_glob_overlap(a text, b text)
 RETURNS boolean
 LANGUAGE plpgsql
 IMMUTABLE
AS $function$
DECLARE
  n integer := length(a);
  m integer := length(b);
  w integer := length(b) + 1;
  d boolean[];  -- d[i*w + j + 1]: some string matches both a's tail from i and b's tail from j (0-based)
  ca text;
  cb text;
BEGIN
  d := array_fill(false, ARRAY[(n + 1) * w]);
  FOR i IN REVERSE n .. 0 LOOP
    FOR j IN REVERSE m .. 0 LOOP
      ca := CASE WHEN i < n THEN substr(a, i + 1, 1) END;
      cb := CASE WHEN j < m THEN substr(b, j + 1, 1) END;
      d[i * w + j + 1] := CASE
        WHEN ca = '*' THEN d[(i + 1) * w + j + 1] OR (j < m AND d[i * w + j + 2])
        WHEN cb = '*' THEN d[i * w + j + 2] OR (i < n AND d[(i + 1) * w + j + 1])
        WHEN ca IS NOT NULL AND cb IS NOT NULL THEN ca = cb AND d[(i + 1) * w + j + 2]
        ELSE ca IS NULL AND cb IS NULL
      END;
    END LOOP;
  END LOOP;
  RETURN d[1];
END
$function$;
COMMENT ON FUNCTION admit_ratelimit_glob_overlap(a text, b text) IS 'Whether some string matches both globs (`*` any run of characters, every other character literal): a dynamic programme over the two patterns, O(length(a) × length(b)).';

CREATE OR REPLACE FUNCTION public.admit_ratelimit_in_shadow(p_pol ratelimit_policies, p_key text, p_now timestamp with time zone)
 RETURNS boolean
 LANGUAGE plpgsql
 STABLE
AS $function$
BEGIN
  IF p_pol.shadow THEN RETURN true; END IF;
  IF NOT EXISTS (SELECT FROM ratelimit_overrides o WHERE o.policy = p_pol.name AND o.shadow) THEN RETURN false; END IF;
  -- Without patterns, only the key's own shadowed override in force matters.
  IF p_pol.pattern_prefix_lengths = '{}' THEN
    RETURN EXISTS (SELECT FROM ratelimit_overrides o
                    WHERE o.policy = p_pol.name AND o.key = p_key AND o.shadow AND o.valid @> p_now);
  END IF;
  RETURN coalesce((admit_ratelimit_override_in_force(p_pol, p_key, p_now)).shadow, false);
END
$function$;
COMMENT ON FUNCTION admit_ratelimit_in_shadow(p_pol ratelimit_policies, p_key text, p_now timestamp with time zone) IS 'Whether checks of (policy, key) at p_now are in shadow mode: the policy is, or the override in force for the key (exact, else most specific pattern) is; the override is looked for only when some override of the policy is in shadow.';

CREATE OR REPLACE FUNCTION public.admit_ratelimit_key_prefixes(p_key text, p_lengths integer[])
 RETURNS text[]
 LANGUAGE plpgsql
 IMMUTABLE
AS $function$
DECLARE
  v_out text[] := ARRAY[p_key];
  v_len integer := length(p_key);
  l integer;
BEGIN
  FOREACH l IN ARRAY p_lengths LOOP
    IF l < v_len THEN v_out := v_out || left(p_key, l); END IF;
  END LOOP;
  RETURN v_out;
END
$function$;
COMMENT ON FUNCTION admit_ratelimit_key_prefixes(p_key text, p_lengths integer[]) IS 'The prefixes an override lookup probes for a key: the key itself, and its first l characters for each pattern prefix length l shorter than it.';

CREATE OR REPLACE FUNCTION public.admit_ratelimit_list_delete(p_list text, p_policy text, p_kind text, p_value text)
 RETURNS boolean
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_value text := p_value;
BEGIN
  IF p_kind = 'ip' THEN
    BEGIN
      v_value := network(p_value::inet)::text;
    EXCEPTION WHEN invalid_text_representation THEN
      RETURN false;
    END;
  ELSIF p_kind = 'country' THEN
    v_value := upper(p_value);
  END IF;
  DELETE FROM ratelimit_list_entries
   WHERE list = p_list AND coalesce(policy, '') = coalesce(p_policy, '') AND kind = p_kind AND value = v_value;
  RETURN FOUND;
END;
$function$;
COMMENT ON FUNCTION admit_ratelimit_list_delete(p_list text, p_policy text, p_kind text, p_value text) IS 'DELETE /v1/ratelimits/lists/{list}: removes one entry by (policy or global, kind, value); true when one was removed.';

CREATE OR REPLACE FUNCTION public.admit_ratelimit_list_entry_json(e ratelimit_list_entries)
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT json_build_object(
    'list', e.list, 'policy', e.policy, 'kind', e.kind, 'value', e.value, 'reason', e.reason,
    'expires_at', admit_rfc3339(e.expires_at), 'created_at', admit_rfc3339(e.created_at),
    'updated_at', admit_rfc3339(e.updated_at),
    'expired', e.expires_at IS NOT NULL AND e.expires_at <= now())
$function$;
COMMENT ON FUNCTION admit_ratelimit_list_entry_json(e ratelimit_list_entries) IS 'A deny/allow list entry as JSON (list, policy, kind, value, reason, expires_at, created_at, updated_at, expired).';

CREATE OR REPLACE FUNCTION public.admit_ratelimit_list_overrides(p_policy text, p_key text)
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT CASE WHEN EXISTS (SELECT 1 FROM ratelimit_policies WHERE name = p_policy) THEN
    (SELECT coalesce(json_agg(admit_ratelimit_override_json(o) ORDER BY lower(o.valid)), '[]'::json)
       FROM ratelimit_overrides o WHERE o.policy = p_policy AND o.key = p_key)
  END
$function$;
COMMENT ON FUNCTION admit_ratelimit_list_overrides(p_policy text, p_key text) IS 'The override periods of one key, in order; NULL when the policy does not exist.';

CREATE OR REPLACE FUNCTION public.admit_ratelimit_list_page(p_list text, p_policy text, p_after text[], p_limit integer, p_names text[])
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT coalesce(json_agg(admit_ratelimit_list_entry_json(e) ORDER BY coalesce(e.policy, '') COLLATE "C", e.kind, e.value COLLATE "C"), '[]')
    FROM (
      SELECT * FROM ratelimit_list_entries t
       WHERE t.list = p_list
         AND (p_policy IS NULL OR t.policy = p_policy)
         AND (p_names IS NULL OR (t.policy IS NOT NULL AND t.policy LIKE ANY (p_names)))
         AND (p_after IS NULL OR (coalesce(t.policy, '') COLLATE "C", t.kind, t.value COLLATE "C") > (p_after[1] COLLATE "C", p_after[2], p_after[3] COLLATE "C"))
       ORDER BY coalesce(t.policy, '') COLLATE "C", t.kind, t.value COLLATE "C"
       LIMIT p_limit + 1
    ) e
$function$;
COMMENT ON FUNCTION admit_ratelimit_list_page(p_list text, p_policy text, p_after text[], p_limit integer, p_names text[]) IS 'GET /v1/ratelimits/lists/{list}: a page of entries by (policy, kind, value) after a cursor, limited to the policies the caller may see (no global entries for a caller with name patterns).';

CREATE OR REPLACE FUNCTION public.admit_ratelimit_list_policies(p_after text, p_limit integer, p_names text[])
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT coalesce(json_agg(admit_ratelimit_policy_json(p) ORDER BY p.name), '[]'::json)
    FROM (SELECT * FROM ratelimit_policies
           WHERE name > coalesce(p_after, '')
             AND (p_names IS NULL OR name LIKE ANY (p_names))
           ORDER BY name LIMIT p_limit + 1) p
$function$;
COMMENT ON FUNCTION admit_ratelimit_list_policies(p_after text, p_limit integer, p_names text[]) IS 'Rate-limit policies by name, after a cursor, one bounded page.';

CREATE OR REPLACE FUNCTION public.admit_ratelimit_list_policy_overrides(p_policy text, p_after_key text, p_after_start timestamp with time zone, p_limit integer)
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT CASE WHEN EXISTS (SELECT 1 FROM ratelimit_policies WHERE name = p_policy) THEN
    (SELECT coalesce(json_agg(admit_ratelimit_override_json(o) ORDER BY o.key, lower(o.valid)), '[]'::json)
       FROM (SELECT * FROM ratelimit_overrides
              WHERE policy = p_policy
                AND (key, lower(valid)) > (coalesce(p_after_key, ''), coalesce(p_after_start, '-infinity'))
              ORDER BY key, lower(valid) LIMIT p_limit + 1) o)
  END
$function$;
COMMENT ON FUNCTION admit_ratelimit_list_policy_overrides(p_policy text, p_after_key text, p_after_start timestamp with time zone, p_limit integer) IS 'Every override of one policy by key then start, after a (key, start) cursor; NULL when the policy does not exist.';

CREATE OR REPLACE FUNCTION public.admit_ratelimit_list_put(p_list text, p_policy text, p_kind text, p_value text, p_reason text, p_expires_at timestamp with time zone)
 RETURNS json
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_net cidr;
  v_value text := p_value;
  v_created boolean;
  v_entry json;
BEGIN
  IF p_policy IS NOT NULL THEN
    PERFORM 1 FROM ratelimit_policies WHERE name = p_policy FOR KEY SHARE;
    IF NOT FOUND THEN RETURN json_build_object('status', 'no_policy'); END IF;
  END IF;
  IF p_kind = 'ip' THEN
    BEGIN
      v_net := network(p_value::inet);
    EXCEPTION WHEN invalid_text_representation THEN
      RETURN json_build_object('status', 'invalid');
    END;
    v_value := v_net::text;
  ELSIF p_kind = 'country' THEN
    v_value := upper(p_value);
  END IF;
  INSERT INTO ratelimit_list_entries AS t (list, policy, kind, value, network, reason, expires_at)
  VALUES (p_list, p_policy, p_kind, v_value, v_net, p_reason, p_expires_at)
  ON CONFLICT (list, (coalesce(policy, '')) COLLATE "C", kind, value COLLATE "C")
  DO UPDATE SET reason = excluded.reason, expires_at = excluded.expires_at, updated_at = now()
  RETURNING (t.xmax = 0), admit_ratelimit_list_entry_json(t) INTO v_created, v_entry;
  RETURN json_build_object('status', CASE WHEN v_created THEN 'created' ELSE 'updated' END, 'entry', v_entry);
END;
$function$;
COMMENT ON FUNCTION admit_ratelimit_list_put(p_list text, p_policy text, p_kind text, p_value text, p_reason text, p_expires_at timestamp with time zone) IS 'PUT /v1/ratelimits/lists/{list}: creates or replaces one deny/allow entry (ip values stored as their network). {status: created|updated|no_policy|invalid, entry}.';

CREATE OR REPLACE FUNCTION public.admit_ratelimit_lists_load()
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT coalesce(json_agg(json_build_object(
           'list', list, 'policy', policy, 'kind', kind, 'value', value, 'reason', reason,
           'expires_in_ms', CASE WHEN expires_at IS NULL THEN NULL ELSE floor(extract(epoch FROM expires_at - now()) * 1000)::bigint END)), '[]')
    FROM ratelimit_list_entries
   WHERE expires_at IS NULL OR expires_at > now()
$function$;
COMMENT ON FUNCTION admit_ratelimit_lists_load() IS 'Every live deny/allow entry with its remaining lifetime in ms (database clock), for an isolate''s list cache: one statement per load, never per check.';

CREATE OR REPLACE FUNCTION public.admit_ratelimit_override_bounds(p_pol ratelimit_policies, p_key text, p_now timestamp with time zone, OUT o_quota integer, OUT o_next timestamp with time zone)
 RETURNS record
 LANGUAGE plpgsql
 STABLE
 SET plan_cache_mode TO 'force_generic_plan'
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
COMMENT ON FUNCTION admit_ratelimit_override_bounds(p_pol ratelimit_policies, p_key text, p_now timestamp with time zone, OUT o_quota integer, OUT o_next timestamp with time zone) IS 'For a check of (policy, key) at p_now: the limit of the override in force (the key''s exact override, else its most specific pattern; NULL when none) and the next boundary after now of any override matching the key (the start of a later one, or the end of one in force), where the limit may change.';

CREATE OR REPLACE FUNCTION public.admit_ratelimit_override_in_force(p_pol ratelimit_policies, p_key text, p_now timestamp with time zone)
 RETURNS ratelimit_overrides
 LANGUAGE plpgsql
 STABLE
 SET plan_cache_mode TO 'force_generic_plan'
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
COMMENT ON FUNCTION admit_ratelimit_override_in_force(p_pol ratelimit_policies, p_key text, p_now timestamp with time zone) IS 'The override in force for a key at a moment: its exact override, else the matching pattern with the longest literal prefix; a row of NULLs when none.';

CREATE OR REPLACE FUNCTION public.admit_ratelimit_override_json(o ratelimit_overrides)
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT json_build_object(
    'policy', o.policy, 'key', o.key, 'limit', o.quota,
    'valid_from', admit_rfc3339(lower(o.valid)), 'valid_to', admit_rfc3339(upper(o.valid)), 'shadow', o.shadow)
$function$;
COMMENT ON FUNCTION admit_ratelimit_override_json(o ratelimit_overrides) IS 'An override''s public shape.';

CREATE OR REPLACE FUNCTION public.admit_ratelimit_override_quota(p_pol ratelimit_policies, p_key text, p_now timestamp with time zone)
 RETURNS integer
 LANGUAGE sql
 STABLE
AS $function$
  SELECT (admit_ratelimit_override_in_force(p_pol, p_key, p_now)).quota
$function$;
COMMENT ON FUNCTION admit_ratelimit_override_quota(p_pol ratelimit_policies, p_key text, p_now timestamp with time zone) IS 'The limit of the override in force for a key at a moment (admit_ratelimit_override_in_force), NULL when none.';

CREATE OR REPLACE FUNCTION public.admit_ratelimit_policy_json(p ratelimit_policies)
 RETURNS json
 LANGUAGE sql
 STABLE
AS $function$
  SELECT json_build_object(
    'name', p.name, 'algorithm', p.algorithm, 'limit', p.quota, 'window_ms', p.window_ms,
    'log', p.log, 'history_ms', p.history_ms, 'timeout_ms', p.timeout_ms, 'on_unavailable', p.on_unavailable,
    'shadow', p.shadow, 'durable', p.durable,
    'created_at', admit_rfc3339(p.created_at), 'updated_at', admit_rfc3339(p.updated_at))
$function$;
COMMENT ON FUNCTION admit_ratelimit_policy_json(p ratelimit_policies) IS 'A policy''s public shape.';

CREATE OR REPLACE FUNCTION public.admit_ratelimit_policy_keys(p_policy text, p_span text, p_order text, p_after_count bigint, p_after_key text, p_limit integer, p_now timestamp with time zone DEFAULT now())
 RETURNS json
 LANGUAGE plpgsql
 STABLE
AS $function$
DECLARE
  pol ratelimit_policies;
  v_now numeric := admit_ts_to_ms(p_now);
  v_from numeric;
  v_ws numeric;
  v_items json;
BEGIN
  SELECT * INTO pol FROM ratelimit_policies WHERE name = p_policy;
  IF NOT FOUND THEN RETURN NULL; END IF;
  v_ws := floor(v_now / pol.window_ms) * pol.window_ms;
  -- The windows counted: the current one, or every window that overlaps [now − 1 h, now].
  v_from := CASE WHEN p_span = '1h' THEN least(v_ws, v_now - 3600000) ELSE v_ws END;
  WITH per_key AS (
    SELECT c.key, sum(c.admitted)::bigint AS admitted, sum(c.attempted)::bigint AS attempted,
           sum(c.rejected)::bigint AS rejected, sum(c.consumed)::bigint AS consumed
      FROM ratelimit_counters c
     WHERE c.policy = p_policy
       AND CASE WHEN pol.algorithm = 'token_bucket'
                THEN c.slot = -1 AND admit_ts_to_ms(c.window_start) + pol.window_ms > v_from
                ELSE c.slot >= floor(v_from / pol.window_ms) AND c.slot <= v_ws / pol.window_ms END
     GROUP BY c.key
  ), ranked AS (
    SELECT k.*, CASE WHEN p_order = 'used' THEN k.consumed ELSE k.rejected END AS n FROM per_key k
  ), page AS (
    SELECT * FROM ranked r
     WHERE r.n > 0
       AND (p_after_key IS NULL OR r.n < p_after_count OR (r.n = p_after_count AND r.key COLLATE "C" > p_after_key COLLATE "C"))
     ORDER BY r.n DESC, r.key COLLATE "C"
     LIMIT p_limit + 1
  )
  SELECT coalesce(json_agg(json_build_object('key', key, 'admitted', admitted, 'attempted', attempted,
                                             'rejected', rejected, 'consumed', consumed)
                           ORDER BY n DESC, key COLLATE "C"), '[]'::json)
    INTO v_items FROM page;
  RETURN json_build_object(
    'policy', p_policy, 'window', p_span, 'order', p_order,
    'from', admit_rfc3339(admit_ms_to_ts(v_from)),
    'window_end', admit_rfc3339(admit_ms_to_ts(v_ws + pol.window_ms)),
    'items', v_items);
END
$function$;
COMMENT ON FUNCTION admit_ratelimit_policy_keys(p_policy text, p_span text, p_order text, p_after_count bigint, p_after_key text, p_limit integer, p_now timestamp with time zone) IS 'A policy''s keys ranked by refusals or by units consumed, in the current window or the last hour, after a (count, key) cursor; NULL when the policy does not exist.';

CREATE OR REPLACE FUNCTION public.admit_ratelimit_policy_minutes(p_policy text, p_minutes integer)
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
COMMENT ON FUNCTION admit_ratelimit_policy_minutes(p_policy text, p_minutes integer) IS 'A policy''s decisions per minute over the last p_minutes (allowed, denied, would_refuse, unenforced, unavailable), oldest first; NULL when the policy does not exist.';

CREATE OR REPLACE FUNCTION public.admit_ratelimit_put_override(p_policy text, p_key text, p_limit integer, p_from timestamp with time zone, p_to timestamp with time zone, p_lock_timeout_ms integer DEFAULT 2000, p_shadow boolean DEFAULT false)
 RETURNS json
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_valid tstzrange := tstzrange(p_from, p_to, '[)');
  v_row ratelimit_overrides;
  v_pattern boolean := strpos(p_key, '*') > 0;
  v_tie json;
BEGIN
  PERFORM set_config('lock_timeout', p_lock_timeout_ms::text || 'ms', true);
  -- Writers of a policy's patterns take its pattern lock first (one at a time: the tie check and
  -- the prefix lengths see each other), then, as every override writer, the key's.
  IF v_pattern THEN
    PERFORM pg_advisory_xact_lock(admit_fnv64('ratelimit_override_patterns/' || p_policy));
  END IF;
  -- One writer per (policy, key) at a time: concurrent inserts checked by the exclusion constraint
  -- wait on each other's tuples and can deadlock (000063).
  PERFORM pg_advisory_xact_lock(admit_fnv64('ratelimit_override/' || p_policy || '/' || p_key));
  -- The policy stays until this override commits (a concurrent DELETE waits, then takes it along);
  -- one being deleted right now is waited for, and then it is not found.
  PERFORM 1 FROM ratelimit_policies WHERE name = p_policy FOR KEY SHARE;
  IF NOT FOUND THEN RETURN json_build_object('status', 'no_policy'); END IF;
  IF v_pattern THEN
    SELECT json_agg(admit_ratelimit_override_json(o) ORDER BY o.key, lower(o.valid)) INTO v_tie
      FROM ratelimit_overrides o
     WHERE o.policy = p_policy AND o.pattern AND o.key <> p_key AND o.prefix = split_part(p_key, '*', 1)
       AND o.valid && v_valid AND admit_ratelimit_glob_overlap(o.key, p_key);
    IF v_tie IS NOT NULL THEN RETURN json_build_object('status', 'tie', 'conflicts', v_tie); END IF;
  END IF;
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
  IF v_pattern THEN
    -- A new pattern adds at most its prefix length (no rescan of the policy's patterns).
    UPDATE ratelimit_policies
       SET pattern_prefix_lengths = ARRAY(SELECT DISTINCT l FROM unnest(pattern_prefix_lengths || length(v_row.prefix)) l ORDER BY 1)
     WHERE name = p_policy AND NOT (length(v_row.prefix) = ANY (pattern_prefix_lengths));
  END IF;
  RETURN json_build_object('status', 'created', 'override', admit_ratelimit_override_json(v_row));
END
$function$;
COMMENT ON FUNCTION admit_ratelimit_put_override(p_policy text, p_key text, p_limit integer, p_from timestamp with time zone, p_to timestamp with time zone, p_lock_timeout_ms integer, p_shadow boolean) IS 'Sets a key''s (or a pattern''s) limit and shadow flag for a period; an overlapping period of the same key is a conflict (the EXCLUDE constraint), a pattern that could tie with another pattern in force at the same time is a tie, never two limits at once.';

CREATE OR REPLACE FUNCTION public.admit_ratelimit_put_policy(p_name text, p_algorithm text, p_limit integer, p_window_ms bigint, p_log boolean, p_history_ms bigint, p_timeout_ms integer DEFAULT 5000, p_on_unavailable text DEFAULT 'deny'::text, p_lock_timeout_ms integer DEFAULT 2000, p_shadow boolean DEFAULT false, p_durable boolean DEFAULT false)
 RETURNS json
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_old ratelimit_policies;
  v_new ratelimit_policies;
BEGIN
  PERFORM set_config('lock_timeout', p_lock_timeout_ms::text || 'ms', true);
  FOR attempt IN 1 .. 3 LOOP
    INSERT INTO ratelimit_policies (name, algorithm, quota, window_ms, log, history_ms, timeout_ms, on_unavailable, shadow, durable)
    VALUES (p_name, p_algorithm, p_limit, p_window_ms, p_log, p_history_ms, p_timeout_ms, p_on_unavailable, p_shadow, p_durable)
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
             on_unavailable = p_on_unavailable, shadow = p_shadow, durable = p_durable, updated_at = now()
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
COMMENT ON FUNCTION admit_ratelimit_put_policy(p_name text, p_algorithm text, p_limit integer, p_window_ms bigint, p_log boolean, p_history_ms bigint, p_timeout_ms integer, p_on_unavailable text, p_lock_timeout_ms integer, p_shadow boolean, p_durable boolean) IS 'Creates or replaces a policy (its shadow flag; durable: its counters commit synchronously), with its audit row, in one statement; a PUT of what is already there changes nothing.';

CREATE OR REPLACE FUNCTION public.admit_ratelimit_recount_patterns(p_policy text)
 RETURNS void
 LANGUAGE sql
AS $function$
  UPDATE ratelimit_policies p
     SET pattern_prefix_lengths = x.l
    FROM (SELECT ARRAY(SELECT DISTINCT length(o.prefix) FROM ratelimit_overrides o
                        WHERE o.policy = p_policy AND o.pattern ORDER BY 1) AS l) x
   WHERE p.name = p_policy AND p.pattern_prefix_lengths IS DISTINCT FROM x.l
$function$;
COMMENT ON FUNCTION admit_ratelimit_recount_patterns(p_policy text) IS 'Sets a policy''s pattern_prefix_lengths from its pattern overrides; called by admit_ratelimit_delete_overrides under the policy''s pattern lock.';

CREATE OR REPLACE FUNCTION public.admit_ratelimit_refund(p_policy text, p_key text, p_cost integer, p_lock_timeout_ms integer, p_now timestamp with time zone DEFAULT now())
 RETURNS json
 LANGUAGE plpgsql
AS $function$
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
$function$;
COMMENT ON FUNCTION admit_ratelimit_refund(p_policy text, p_key text, p_cost integer, p_lock_timeout_ms integer, p_now timestamp with time zone) IS 'Gives back up to p_cost units consumed in the current window (never below zero; a bucket never above its limit); NULL when the policy does not exist.';

CREATE OR REPLACE FUNCTION public.admit_ratelimit_refused(p_pol ratelimit_policies, p_key text, p_cost integer, p_now timestamp with time zone)
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

CREATE OR REPLACE FUNCTION public.admit_ratelimit_refused_sliding(p_pol ratelimit_policies, p_key text, p_cost integer, p_now timestamp with time zone)
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

CREATE OR REPLACE FUNCTION public.admit_ratelimit_reset(p_policy text, p_key text, p_names text[], p_lock_timeout_ms integer, p_now timestamp with time zone DEFAULT now())
 RETURNS json
 LANGUAGE plpgsql
AS $function$
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
$function$;
COMMENT ON FUNCTION admit_ratelimit_reset(p_policy text, p_key text, p_names text[], p_lock_timeout_ms integer, p_now timestamp with time zone) IS 'Gives a key a fresh window in one policy (or every policy p_names lets the caller touch): consumed units of the current window (sliding: and the previous one) to 0, a bucket full; the counts of calls stay. The policies whose counters changed; NULL when p_policy does not exist.';

CREATE OR REPLACE FUNCTION public.admit_ratelimit_shadowed(p_r json, p_cost integer, p_now timestamp with time zone DEFAULT now())
 RETURNS json
 LANGUAGE plpgsql
AS $function$
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
$function$;
COMMENT ON FUNCTION admit_ratelimit_shadowed(p_r json, p_cost integer, p_now timestamp with time zone) IS 'A single check''s answer (admit_ratelimit_check) under shadow mode: unchanged unless the policy or the key''s override in force is in shadow; then marked "shadow", and a refusal counted in would_refuse.';

CREATE OR REPLACE FUNCTION public.admit_ratelimit_shadowed_batch(p_res json, p_items jsonb)
 RETURNS json
 LANGUAGE plpgsql
AS $function$
DECLARE
  v_out json[] := '{}';
  n integer := json_array_length(p_res);
BEGIN
  IF NOT EXISTS (
       SELECT FROM ratelimit_policies p
        WHERE p.name IN (SELECT e ->> 'p' FROM jsonb_array_elements(p_items) e WHERE e ? 'p')
          AND (p.shadow OR EXISTS (SELECT FROM ratelimit_overrides o WHERE o.policy = p.name AND o.shadow))) THEN
    RETURN p_res;
  END IF;
  -- In the batch's own lock order (key, then policy): the counter rows are already locked by it.
  FOR i IN 0 .. n - 1 LOOP
    v_out[i + 1] := CASE WHEN p_items -> i ? 'p' THEN admit_ratelimit_shadowed(p_res -> i, (p_items -> i ->> 'c')::integer) ELSE p_res -> i END;
  END LOOP;
  RETURN array_to_json(v_out);
END
$function$;
COMMENT ON FUNCTION admit_ratelimit_shadowed_batch(p_res json, p_items jsonb) IS 'admit_ratelimit_shadowed over the answers of admit_ratelimit_check_batch (its single-policy items; several-policies items decide shadow mode themselves); the answers as they are when no policy of the batch is in shadow or has an override in shadow.';

CREATE OR REPLACE FUNCTION public.admit_ratelimit_usage(p_policy text, p_key text, p_from timestamp with time zone, p_to timestamp with time zone, p_now timestamp with time zone DEFAULT now())
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
COMMENT ON FUNCTION admit_ratelimit_usage(p_policy text, p_key text, p_from timestamp with time zone, p_to timestamp with time zone, p_now timestamp with time zone) IS 'A key''s usage: the current window''s admitted, attempted, rejected, would_refuse and consumed, whether it is in shadow mode now, and the stored windows in [p_from, p_to); NULL when the policy does not exist.';

CREATE OR REPLACE FUNCTION public.admit_ratelimit_wait_ms(p_algorithm text, p_limit integer, p_window numeric, p_now numeric, p_cost integer, p_window_start numeric, p_cur numeric, p_prev numeric, p_tat numeric)
 RETURNS numeric
 LANGUAGE plpgsql
 IMMUTABLE
AS $function$
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
$function$;
COMMENT ON FUNCTION admit_ratelimit_wait_ms(p_algorithm text, p_limit integer, p_window numeric, p_now numeric, p_cost integer, p_window_start numeric, p_cur numeric, p_prev numeric, p_tat numeric) IS 'How long from p_now until a call of p_cost would be admitted given the state after a decision: 0 now, NULL never (cost above the limit).';

CREATE OR REPLACE FUNCTION public.admit_sweep_ratelimits()
 RETURNS integer
 LANGUAGE plpgsql
AS $function$
DECLARE
  n_counters integer;
  n_log integer;
BEGIN
  -- SKIP LOCKED: a row a check holds right now is left for the next sweep, never waited for.
  EXECUTE $q$
    DELETE FROM ratelimit_counters
     WHERE ctid = ANY (ARRAY(SELECT ctid FROM ratelimit_counters WHERE expires_at <= now()
                              LIMIT 10000 FOR UPDATE SKIP LOCKED))
       AND expires_at <= now()
  $q$;
  GET DIAGNOSTICS n_counters = ROW_COUNT;
  EXECUTE $q$
    DELETE FROM ratelimit_log
     WHERE id = ANY (ARRAY(SELECT id FROM ratelimit_log WHERE expires_at <= now() ORDER BY expires_at LIMIT 10000))
  $q$;
  GET DIAGNOSTICS n_log = ROW_COUNT;
  RETURN n_counters + n_log;
END
$function$;
COMMENT ON FUNCTION admit_sweep_ratelimits() IS 'Sweeper: deletes a bounded batch of expired counter rows and log rows past their policy''s history.';
