-- Counting flushes (admit_observe_flush, 000100) take ratelimit_counters rows in the one order every
-- other writer of them keeps, and count a deny-cache refusal of a fixed window into the window its
-- cached denial was decided in (`w`, sent by the isolate).
--
-- Lock order of ratelimit_counters, for every function that writes them (so none deadlocks another):
-- 1. Policy rows before counter rows. A function that holds counter rows of several keys first takes
--    their policy rows FOR KEY SHARE in name order (COLLATE "C"): admit_ratelimit_check_batch (000101,
--    000104) and, below, the flush. A policy DELETE (or a PUT that changes the window) locks the policy
--    row and then deletes its counters: a writer holding the counter of (k1, p) and inserting (k2, p)
--    would otherwise wait for p's row (the foreign key's KEY SHARE) while the DELETE waits for (k1, p).
--    A single check holds one counter row. A multi-policy check holds the rows of one key, taken in
--    policy-name order, and waits for a policy row (a new row's foreign-key KEY SHARE) only of a
--    policy after every one whose counter it holds; a DELETE never waits for a row inserted and not
--    yet committed. A chain of such waits only goes up in name order, so it never closes.
-- 2. Counter rows in (key, policy, slot) order, COLLATE "C": a single check and a refund lock one row;
--    a multi-policy check the rows of one key in policy-name order (000015); a batch its items sorted by
--    key, then policy (000101, 000104); the flush, below, its groups sorted the same way (a sliding
--    window's groups of one key may fall in two slots: the earlier first).
-- 3. The sweeper (admit_sweep_ratelimits) takes only rows no one holds (SKIP LOCKED) and never waits.
--
-- p_hits: [{"p": policy, "k": key, "n": calls, "a": ms since the last of them (local elapsed time),
--           "w": the database's start (ms since the epoch) of the window the cached denial that
--                answered them was decided in, when known}]
-- Window of a hit group: fixed window — `w`'s window (a cached fixed-window denial stands at most
-- until its window ends, so each call it answered belongs there; how long the denial stood says
-- nothing, as it stops early at an override boundary); without `w`, and for a sliding window, the
-- window of now − a; a token bucket — its row's current window (000100).
CREATE OR REPLACE FUNCTION admit_observe_flush(p_hits jsonb, p_counts jsonb, p_max_policies integer, p_lock_timeout_ms integer)
RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  v_now numeric := admit_ts_to_ms(now());
  h record;
  v_ws numeric;
  v_hits bigint := 0;
  v_dropped bigint := 0;
  v_rows integer := 0;
  v_room integer;
BEGIN
  PERFORM set_config('lock_timeout', p_lock_timeout_ms::text || 'ms', true);
  PERFORM 1
     FROM ratelimit_policies pol
    WHERE pol.name IN (SELECT x.p FROM jsonb_to_recordset(coalesce(p_hits, '[]')) AS x(p text))
    ORDER BY pol.name COLLATE "C"
      FOR KEY SHARE;
  FOR h IN
    SELECT x.p, x.k, x.n, x.a, pol.algorithm, pol.window_ms, pol.history_ms,
           CASE WHEN pol.algorithm = 'token_bucket' THEN -1
                WHEN pol.algorithm = 'fixed_window' AND x.w IS NOT NULL THEN x.w / pol.window_ms
                ELSE floor((v_now - coalesce(x.a, 0)) / pol.window_ms)::bigint END AS slot
      FROM jsonb_to_recordset(coalesce(p_hits, '[]')) AS x(p text, k text, n integer, a bigint, w bigint)
      LEFT JOIN ratelimit_policies pol ON pol.name = x.p
     ORDER BY x.k COLLATE "C", x.p COLLATE "C", 8
  LOOP
    IF h.algorithm IS NULL OR h.n IS NULL OR h.n <= 0 THEN
      v_dropped := v_dropped + coalesce(greatest(h.n, 0), 0);
      CONTINUE;
    END IF;
    IF h.algorithm = 'token_bucket' THEN
      -- The bucket's row counts the aligned window it last saw; a later window restarts its counts
      -- (as a check does). Calls of a window the row has already left are not stored anywhere.
      v_ws := floor((v_now - coalesce(h.a, 0)) / h.window_ms) * h.window_ms;
      UPDATE ratelimit_counters c SET
        consumed = CASE WHEN c.window_start = admit_ms_to_ts(v_ws) THEN c.consumed ELSE 0 END,
        admitted = CASE WHEN c.window_start = admit_ms_to_ts(v_ws) THEN c.admitted ELSE 0 END,
        attempted = CASE WHEN c.window_start = admit_ms_to_ts(v_ws) THEN c.attempted ELSE 0 END + h.n,
        rejected = CASE WHEN c.window_start = admit_ms_to_ts(v_ws) THEN c.rejected ELSE 0 END + h.n,
        window_start = admit_ms_to_ts(v_ws)
       WHERE c.policy = h.p AND c.key = h.k AND c.slot = -1 AND c.window_start <= admit_ms_to_ts(v_ws);
      IF FOUND THEN v_hits := v_hits + h.n; ELSE v_dropped := v_dropped + h.n; END IF;
    ELSE
      v_ws := h.slot * h.window_ms;
      INSERT INTO ratelimit_counters AS c
        (policy, key, slot, window_start, consumed, admitted, attempted, rejected, last_allowed, expires_at)
      VALUES (h.p, h.k, h.slot, admit_ms_to_ts(v_ws), 0, 0, h.n, h.n, false,
              admit_ms_to_ts(v_ws + h.window_ms + greatest(h.window_ms, h.history_ms)))
      ON CONFLICT (policy, key, slot) DO UPDATE SET
        attempted = c.attempted + h.n,
        rejected = c.rejected + h.n;
      v_hits := v_hits + h.n;
    END IF;
  END LOOP;

  IF jsonb_array_length(coalesce(p_counts, '[]')) > 0 THEN
    -- New policy labels while there is room (a few over the cap when two flushes meet: said in the docs).
    v_room := greatest(0, p_max_policies - (SELECT count(*) FROM metric_policies)::integer);
    IF v_room > 0 THEN
      INSERT INTO metric_policies (name)
      SELECT DISTINCT x.l->>'policy'
        FROM jsonb_to_recordset(p_counts) AS x(m text, l jsonb, n bigint, a bigint)
       WHERE x.l ? 'policy' AND NOT EXISTS (SELECT 1 FROM metric_policies mp WHERE mp.name = x.l->>'policy')
       ORDER BY 1 LIMIT v_room
      ON CONFLICT DO NOTHING;
    END IF;
    INSERT INTO metric_minutes AS mm (name, labels, minute, value)
    SELECT y.m, y.l, y.minute, sum(y.n)
      FROM (SELECT x.m,
                   CASE WHEN x.l ? 'policy' AND NOT EXISTS (SELECT 1 FROM metric_policies mp WHERE mp.name = x.l->>'policy')
                        THEN jsonb_set(x.l, '{policy}', '"_other"') ELSE x.l END AS l,
                   date_trunc('minute', now() - coalesce(x.a, 0) * interval '1 millisecond') AS minute,
                   x.n
              FROM jsonb_to_recordset(p_counts) AS x(m text, l jsonb, n bigint, a bigint)
             WHERE x.m IS NOT NULL AND x.l IS NOT NULL AND x.n > 0) y
     GROUP BY 1, 2, 3
     ORDER BY 1, 2, 3
    ON CONFLICT (name, labels, minute) DO UPDATE SET value = mm.value + EXCLUDED.value;
    GET DIAGNOSTICS v_rows = ROW_COUNT;
  END IF;
  RETURN json_build_object('hits', v_hits, 'dropped', v_dropped, 'counts', v_rows);
END
$$;
