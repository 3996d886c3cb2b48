-- Observability (issue 32): every rate-limit call counted, Prometheus counters that stay counters,
-- the keys of a policy by denials or use, and the gauges a scrape reads.
--
-- Nothing here runs per request. An isolate accumulates what it learns on the hot path in memory
-- (functions/core/tally.ts): the calls its deny cache answered, per (policy, key, cached denial), and
-- decisions per outcome, per (metric, labels, minute). It writes them with ONE statement per flush,
-- admit_observe_flush(), after the response (waitUntil), at most METRICS_FLUSH_MS after the first
-- thing it learnt. A flush that certainly did not apply (refused before it ran, rolled back) is kept
-- and sent again with the next one; a flush whose outcome is unknown is dropped, never re-sent, so
-- nothing is counted twice.
--
-- Counters: per-minute rows (metric_minutes), summed at scrape time with a per-series total
-- (metric_totals). The sweeper rolls minute rows older than 25 hours into the total and deletes them
-- in one statement, so the sum a scrape reads never goes down.

CREATE TABLE metric_minutes (
  name    text NOT NULL,          -- the Prometheus metric, e.g. admit_ratelimit_decisions_total
  labels  jsonb NOT NULL,         -- {"policy": "api", "outcome": "denied"}; never a rate-limit key
  minute  timestamptz NOT NULL,   -- the database minute the flush attributed the counts to
  value   bigint NOT NULL,
  PRIMARY KEY (name, labels, minute)
);
CREATE INDEX metric_minutes_minute ON metric_minutes (minute);

CREATE TABLE metric_totals (
  name    text NOT NULL,
  labels  jsonb NOT NULL,
  value   bigint NOT NULL,
  PRIMARY KEY (name, labels)
);

-- The policies that have a `policy` label of their own: the first METRICS_MAX_POLICIES (default 100)
-- to be counted. Any other policy's counts go to policy="_other". A policy once here stays here, so a
-- series never moves between labels (which would make a counter go down).
CREATE TABLE metric_policies (
  name       text PRIMARY KEY,
  labelled_at timestamptz NOT NULL DEFAULT now()
);

-- One flush of an isolate:
--   p_hits:   [{"p": policy, "k": key, "n": calls, "a": ms since the last of them (local elapsed time),
--               "u": ms until the cached denial they were answered by expires (local elapsed time)}]
--             — calls the deny cache refused; each adds n to attempted and rejected of its window.
--   p_counts: [{"m": metric, "l": {labels}, "n": count, "a": ms since the first of them}]
-- Window of a hit group: fixed window — the window the cached denial stood for, whose end is `u` from
-- now (a fixed-window denial is cached exactly until its window ends); sliding window and token bucket
-- — the window of now − a. Rows are taken in (policy, key, slot) order, as every other writer of
-- ratelimit_counters takes one row at a time, so flushes never deadlock with checks or each other.
-- Returns {"hits": calls counted, "dropped": calls of policies that no longer exist, "counts": rows}.
CREATE FUNCTION admit_observe_flush(p_hits jsonb, p_counts jsonb, p_max_policies integer, p_lock_timeout_ms integer)
RETURNS json
LANGUAGE plpgsql AS $$
DECLARE
  v_now numeric := admit_ts_to_ms(now());
  h record;
  v_slot bigint;
  v_ws numeric;
  v_hits bigint := 0;
  v_dropped bigint := 0;
  v_rows integer := 0;
  v_room integer;
BEGIN
  PERFORM set_config('lock_timeout', p_lock_timeout_ms::text || 'ms', true);
  FOR h IN
    SELECT x.p, x.k, x.n, x.a, x.u, pol.algorithm, pol.window_ms, pol.history_ms,
           CASE WHEN pol.algorithm = 'fixed_window' AND x.u IS NOT NULL
                THEN round((v_now + x.u) / pol.window_ms)::bigint - 1
                WHEN pol.algorithm = 'token_bucket' THEN -1
                ELSE floor((v_now - coalesce(x.a, 0)) / pol.window_ms)::bigint END AS slot
      FROM jsonb_to_recordset(coalesce(p_hits, '[]')) AS x(p text, k text, n integer, a bigint, u bigint)
      LEFT JOIN ratelimit_policies pol ON pol.name = x.p
     ORDER BY x.p COLLATE "C", x.k COLLATE "C", 9
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

-- Every counter series: total plus minute rows, in one statement (one snapshot: a roll-up running at
-- the same time is seen either wholly before or wholly after).
CREATE FUNCTION admit_metric_counters() RETURNS TABLE (name text, labels jsonb, value bigint)
LANGUAGE sql STABLE AS $$
  SELECT s.name, s.labels, sum(s.value)::bigint
    FROM (SELECT t.name, t.labels, t.value FROM metric_totals t
          UNION ALL
          SELECT m.name, m.labels, m.value FROM metric_minutes m) s
   GROUP BY s.name, s.labels
   ORDER BY s.name, s.labels::text
$$;

-- What a scrape reads besides the counters: gauges computed now, on the database clock.
--   permits_in_use: unexpired, unreleased claims per kind (semaphore, lease) — no per-name label;
--   webhook_waiting / webhook_claimed / webhook_lapsed: per source (sources are configured, few);
--   sweep_due: rows past their expiry a sweeper has not removed yet, per sweeper, counted up to 100 000.
CREATE FUNCTION admit_metric_gauges() RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT json_build_object(
    'permits_in_use', (SELECT coalesce(json_object_agg(k.kind, k.n), '{}'::json) FROM (
        SELECT kind, count(*) AS n FROM permits
         WHERE released_at IS NULL AND timed_out_at IS NULL AND expires_at > now() GROUP BY kind) k),
    'semaphore_permits', (SELECT coalesce(sum(permits), 0) FROM semaphores),
    'webhooks', (SELECT coalesce(json_agg(json_build_object(
        'source', s.source,
        'waiting', (SELECT count(*) FROM webhook_events e WHERE e.source = s.source AND e.processed_at IS NULL
                      AND (e.claim_expires_at IS NULL OR e.claim_expires_at <= now())),
        'claimed', (SELECT count(*) FROM webhook_events e WHERE e.source = s.source AND e.processed_at IS NULL
                      AND e.claim_expires_at > now()),
        'lapsed', (SELECT count(*) FROM webhook_events e WHERE e.source = s.source AND e.processed_at IS NULL
                      AND e.claims > 0 AND e.claim_expires_at <= now()),
        'oldest_waiting_s', (SELECT coalesce(extract(epoch FROM now() - min(e.received_at)), 0) FROM webhook_events e
                      WHERE e.source = s.source AND e.processed_at IS NULL)
      ) ORDER BY s.source), '[]'::json) FROM webhook_sources s),
    'sweep_due', json_build_object(
      'ratelimits', (SELECT count(*) FROM (SELECT 1 FROM ratelimit_counters WHERE expires_at <= now() LIMIT 100000) x)
                  + (SELECT count(*) FROM (SELECT 1 FROM ratelimit_log WHERE expires_at <= now() LIMIT 100000) x),
      'permits', (SELECT count(*) FROM (SELECT 1 FROM permits WHERE released_at IS NULL AND timed_out_at IS NULL
                                         AND expires_at <= now() LIMIT 100000) x),
      'idempotency', (SELECT count(*) FROM (SELECT 1 FROM idempotency_keys WHERE expires_at <= now() LIMIT 100000) x),
      'webhook_events', (SELECT count(*) FROM (SELECT 1 FROM webhook_events WHERE processed_at < now() - interval '7 days' LIMIT 100000) x),
      'inventory', (SELECT count(*) FROM (SELECT 1 FROM inventory_tokens WHERE held_until <= now() LIMIT 100000) x)),
    'now', admit_rfc3339(now()))
$$;

-- Cron: minute rows older than 25 hours go into their series' total, in one statement (DELETE …
-- RETURNING feeding the upsert), 10 000 a batch. The dashboard's "over time" reads the minute rows.
CREATE FUNCTION admit_sweep_metrics() RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  n integer;
BEGIN
  EXECUTE $q$
    WITH moved AS (
      DELETE FROM metric_minutes
       WHERE ctid = ANY (ARRAY(SELECT ctid FROM metric_minutes WHERE minute < now() - interval '25 hours'
                                ORDER BY minute LIMIT 10000 FOR UPDATE SKIP LOCKED))
      RETURNING name, labels, value
    ), summed AS (
      SELECT name, labels, sum(value)::bigint AS value FROM moved GROUP BY name, labels
    )
    INSERT INTO metric_totals AS t (name, labels, value)
    SELECT name, labels, value FROM summed ORDER BY name, labels
    ON CONFLICT (name, labels) DO UPDATE SET value = t.value + EXCLUDED.value
  $q$;
  GET DIAGNOSTICS n = ROW_COUNT;
  RETURN n;
END
$$;

-- The keys of a policy by denials (`rejected`) or use (`consumed` units), in the current window or over
-- the windows that overlap the last hour, after a (count, key) cursor, at most p_limit + 1 (the caller
-- knows there is a next page). NULL when the policy does not exist, else
-- {"window_start", "window_end", "items": [{key, admitted, attempted, rejected, consumed}]}.
-- Counts include the calls isolates' deny caches answered once their flush has landed.
CREATE FUNCTION admit_ratelimit_policy_keys(
  p_policy text, p_span text, p_order text, p_after_count bigint, p_after_key text, p_limit integer,
  p_now timestamptz DEFAULT now()
) RETURNS json
LANGUAGE plpgsql STABLE AS $$
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
$$;

-- A policy's decisions per minute over the last p_minutes minutes (the dashboard's "over time"),
-- from the counters' minute rows: [{minute, allowed, denied, unenforced, unavailable}], oldest first.
-- NULL when the policy does not exist.
CREATE FUNCTION admit_ratelimit_policy_minutes(p_policy text, p_minutes integer) RETURNS json
LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN EXISTS (SELECT 1 FROM ratelimit_policies WHERE name = p_policy) THEN
    (SELECT coalesce(json_agg(json_build_object(
              'minute', admit_rfc3339(m.minute), 'allowed', m.allowed, 'denied', m.denied,
              'unenforced', m.unenforced, 'unavailable', m.unavailable)
            ORDER BY m.minute), '[]'::json)
       FROM (SELECT minute,
                    coalesce(sum(value) FILTER (WHERE labels->>'outcome' = 'allowed'), 0)::bigint AS allowed,
                    coalesce(sum(value) FILTER (WHERE labels->>'outcome' = 'denied'), 0)::bigint AS denied,
                    coalesce(sum(value) FILTER (WHERE labels->>'outcome' = 'unenforced'), 0)::bigint AS unenforced,
                    coalesce(sum(value) FILTER (WHERE labels->>'outcome' = 'unavailable'), 0)::bigint AS unavailable
               FROM metric_minutes
              WHERE name = 'admit_ratelimit_decisions_total' AND labels->>'policy' = p_policy
                AND minute >= date_trunc('minute', now()) - (p_minutes - 1) * interval '1 minute'
              GROUP BY minute) m)
  END
$$;
